"""gradcheck's batched (is_grads_batched) and forward-mode (jvp) checks: they pass on correct
derivatives and report a wrong one, as PyTorch's."""

import numpy as np
import pytest

import ember.autograd as E
from ember.autograd import Function
from ember.autograd.gradcheck import GradcheckError, gradcheck


def _x():
    return E.tensor(np.linspace(-1.0, 2.0, 6).reshape(2, 3), dtype=E.float64, requires_grad=True)


@pytest.mark.parametrize("flags", [dict(check_batched_grad=True), dict(check_forward_ad=True),
                                   dict(check_batched_forward_grad=True, check_backward_ad=False)])
def test_correct_derivatives_pass_every_mode(flags):
    w = E.tensor([[0.5, -1.0], [2.0, 0.25], [1.0, 3.0]], dtype=E.float64, requires_grad=True)
    assert gradcheck(lambda x, w: ((x.sin() @ w) * x.sum(1, keepdim=True), x.exp().sum()), (_x(), w), **flags)


class _WrongBackward(Function):
    """x ** 2 with a backward off by a factor 3: every mode that uses the backward must catch it."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 6 * x * g


def test_a_wrong_backward_fails_the_batched_check_and_has_no_forward_mode():
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"):
        gradcheck(_WrongBackward.apply, (_x(),), check_batched_grad=True)
    # a user's Function without `jvp` has no forward mode, as in PyTorch: the forward check raises its error (with
    # `raise_exception=False` too: the error is the Function's, not a failed check)
    for quiet in (True, False):
        with pytest.raises(NotImplementedError, match="^You must implement the jvp function for custom "
                                                      "autograd.Function to use it with forward mode AD.$"):
            gradcheck(_WrongBackward.apply, (_x(),), check_forward_ad=True, check_backward_ad=False,
                      raise_exception=quiet)



def test_mismatch_message_shows_jacobians_as_pytorch_does():
    """(numel(input), numel(output)) tensors, numerical in the output dtype, analytical in the input's; inputs
    counted among those that require grad."""

    class Bad(Function):
        @staticmethod
        def forward(ctx, a, b):
            return (a[:2] * b.sum()).double()

        @staticmethod
        def backward(ctx, g):
            return None, (g * 0 + 1).sum().float().expand(3)

    a = E.tensor([0.5, 1.0, 2.0], dtype=E.float32)
    b = E.ones(3, requires_grad=True)
    with pytest.raises(GradcheckError) as info:
        gradcheck(Bad.apply, (a, b), eps=2**-10)
    assert str(info.value).replace("ember.", "torch.") == (  # ember's dtype repr outside the torch shim
        "Jacobian mismatch for output 0 with respect to input 0,\n"
        "numerical:tensor([[0.5000, 1.0000],\n        [0.5000, 1.0000],\n        [0.5000, 1.0000]], "
        "dtype=torch.float64)\n"
        "analytical:tensor([[2., 2.],\n        [2., 2.],\n        [2., 2.]])\n")


def test_gradgradcheck_draws_grad_outputs_from_the_global_generator():
    """PyTorch's make_tensor(low=-1, high=1): one uniform_ per output, so a seeded program's later draws agree."""
    x = E.tensor([0.3, -0.7, 1.1], dtype=E.float64, requires_grad=True)
    E.manual_seed(0)
    assert E.autograd.gradgradcheck(lambda t: (t.sin(), t * t), (x,))
    after = E.rand(4)
    E.manual_seed(0)
    E.empty(3, dtype=E.float64).uniform_(-1, 1)
    E.empty(3, dtype=E.float64).uniform_(-1, 1)
    np.testing.assert_array_equal(after.numpy(), E.rand(4).numpy())


class _CountingBackward(Function):
    """The identity whose backward scales by how often it has run: right on the first run, off on the next."""

    runs = 0

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        _CountingBackward.runs += 1
        return g * (1 + 1e-6 * (_CountingBackward.runs > 3))


def test_a_backward_that_differs_between_runs_is_not_reentrant():
    """PyTorch runs the backward Jacobian twice and compares the runs within `nondet_tol`."""
    x = E.tensor([0.5, -1.0, 2.0], dtype=E.float64, requires_grad=True)
    _CountingBackward.runs = 0
    with pytest.raises(GradcheckError) as info:
        gradcheck(_CountingBackward.apply, (x,))
    assert str(info.value).startswith("Backward is not reentrant, i.e., running backward with same input and "
                                      "grad_output multiple times gives different values, although analytical "
                                      "gradient matches numerical gradient.The tolerance for nondeterminism was 0.0.")
    assert "with `nondet_tol=<tol>` as a keyword argument." in str(info.value)
    _CountingBackward.runs = 0
    assert gradcheck(_CountingBackward.apply, (x,), raise_exception=False) is False
    _CountingBackward.runs = 0
    assert gradcheck(_CountingBackward.apply, (x,), nondet_tol=1e-5)
