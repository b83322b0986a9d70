"""torch.library.custom_op: a function made an operator, its per-device kernel, its autograd formula (checked
against the analytic gradient), PyTorch's node name and errors."""

import numpy as np
import pytest

import ember.torch as torch


def make_sin(name):
    @torch.library.custom_op(name, mutates_args=())
    def numpy_sin(x: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(np.sin(x.detach().numpy()))

    @numpy_sin.register_fake
    def _(x):
        return torch.empty_like(x)

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cos()

    numpy_sin.register_autograd(backward, setup_context=setup_context)
    return numpy_sin


def test_custom_op_runs_and_differentiates_through_its_formula():
    op = make_sin("test::sin_a")
    x = torch.tensor([0.5, 1.0, -2.0], dtype=torch.float64, requires_grad=True)
    y = op(x)
    assert y.grad_fn.name() == "GeneratedBackwardFor_test_sin_a_defaultBackward"
    (y * y).sum().backward()
    xs = np.array([0.5, 1.0, -2.0])
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.sin(xs) * np.cos(xs), rtol=1e-12)
    assert not op(x.detach()).requires_grad  # no node without inputs that require grad


def test_backward_without_a_formula_raises_pytorchs_error():
    @torch.library.custom_op("test::scale", mutates_args=())
    def scale(x: torch.Tensor, k: float = 2.0) -> torch.Tensor:
        return x * k

    z = scale(torch.ones(2, requires_grad=True), k=3.0)
    assert z.tolist() == [3.0, 3.0] and z.requires_grad
    with pytest.raises(RuntimeError, match=r"^Trying to backward through test\.scale\.default but no autograd "
                                           r"formula was registered\. Please use register_autograd to add one\.$"):
        z.sum().backward()


def test_kernels_by_device_mutation_and_names():
    @torch.library.custom_op("test::add_", mutates_args={"x"})
    def add_(x: torch.Tensor, y: torch.Tensor) -> None:
        x.add_(y)

    a = torch.zeros(2)
    assert add_(a, torch.ones(2)) is None and a.tolist() == [1.0, 1.0]

    @torch.library.custom_op("test::twice", mutates_args=())
    def twice(x: torch.Tensor) -> torch.Tensor:
        return x * 2

    torch.library.register_kernel("test::twice", "cpu", lambda x: x * 20)
    assert twice(torch.ones(1)).tolist() == [20.0]
    with pytest.raises(ValueError, match="Expected there to be a namespace in twice"):
        torch.library.custom_op("twice", lambda x: x, mutates_args=())
