"""F.linear with nothing but autograd watching (no other hook, no mode) computes without dispatching its mm and bias
add (`linear_untracked`), with the same bits as the dispatched ops, and dispatches them whenever anything else would
see them."""

import contextlib
import warnings

import numpy as np
import pytest

import ember.autograd as ea
import ember.nn.functional as F
from ember.core import dispatch
from ember.core.testing import watching


def _t(a, requires_grad=False):
    return ea.tensor(a, requires_grad=requires_grad)


@contextlib.contextmanager
def _watched(seen=None):
    """`watching`, checking that it turns `dispatch.untracked` off and back on."""
    with watching(seen):
        assert not dispatch.untracked
        yield
    assert dispatch.untracked


def _dispatched(x, w, b):
    """The same linear through its ops."""
    with _watched():
        return F.linear(x, w, b).numpy()


CASES = [  # (rows, in, out, dtype): small (numpy's add), large (the Numba row pass), an outer product (k = 1)
    (4, 3, 5, np.float32), (2, 7, 1, np.float64), (300, 40, 64, np.float32), (9, 1, 6, np.float32),
    (1, 5, 3, np.float64), (257, 64, 128, np.float64)]


@pytest.mark.parametrize("n,k,m,dt", CASES)
def test_same_bits_as_the_dispatched_ops(untracked_calls, n, k, m, dt):
    rng = np.random.default_rng(n * k * m)
    x, w, b = (rng.standard_normal(s).astype(dt) for s in ((n, k), (m, k), (m,)))
    x[0, 0], b[-1] = 1e38 if dt == np.float32 else 1e308, np.inf  # overflow and inf, silently (no warning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = F.linear(_t(x), _t(w), _t(b))
        bare = F.linear(_t(x), _t(w))
    assert untracked_calls[0] == 2
    assert got.dtype == ea.float32 if dt == np.float32 else ea.float64
    assert got.is_contiguous() and got.grad_fn is None and not got.requires_grad
    want = _dispatched(_t(x), _t(w), _t(b))
    assert np.array_equal(got.numpy().view(np.uint8), want.view(np.uint8))
    assert np.array_equal(bare.numpy(), _dispatched(_t(x), _t(w), None), equal_nan=True)
    with np.errstate(all="ignore"):
        ref = x.astype(np.float64) @ w.T.astype(np.float64) + b
    np.testing.assert_allclose(got.numpy()[1:, :-1], ref[1:, :-1], rtol=1e-4 if dt == np.float32 else 1e-12, atol=1e-5)


@pytest.mark.parametrize("shape,dt", [((2, 3, 5), np.float32), ((4, 64, 96), np.float32), ((2, 2, 3, 7), np.float64),
                                      ((5, 2, 4), np.float32)])
def test_batched_input_same_bits_as_pytorchs_flattened_addmm(untracked_calls, shape, dt):
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal(shape).astype(dt)
    w, b = rng.standard_normal((6, shape[-1])).astype(dt), rng.standard_normal(6).astype(dt)
    got = F.linear(_t(x), _t(w), _t(b))
    assert untracked_calls[0] == 1 and got.shape == (*shape[:-1], 6) and got.is_contiguous() and got.grad_fn is None
    assert np.array_equal(got.numpy(), _dispatched(_t(x), _t(w), _t(b)))
    np.testing.assert_allclose(got.numpy(), x.astype(np.float64) @ w.T.astype(np.float64) + b,
                               rtol=1e-4 if dt == np.float32 else 1e-12, atol=1e-5)
    F.linear(_t(x).transpose(0, 1), _t(w), _t(b))  # not contiguous: dispatched (PyTorch's matmul, then the add)
    F.linear(_t(x), _t(w))  # no bias: dispatched
    assert untracked_calls[0] == 1


def test_strided_operands(untracked_calls):
    rng = np.random.default_rng(3)
    base_x = _t(rng.standard_normal((6, 10)).astype(np.float32))
    base_w = _t(rng.standard_normal((8, 12)).astype(np.float32))
    b = _t(rng.standard_normal(12).astype(np.float32))[::2]  # a strided bias
    pairs = ((base_x[:, ::2], base_w[:6, :5]), (base_x.t()[:5], base_w.t()[:6, :6]), (base_x[::2, :5], base_w[:6, 1:6]))
    for x, w in pairs:
        got = F.linear(x, w, b)
        want = x.numpy().astype(np.float64) @ w.numpy().T.astype(np.float64) + b.numpy()
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)
        assert np.array_equal(got.numpy(), _dispatched(x, w, b))
    assert untracked_calls[0] == 3


def test_no_grad_and_inference_mode(untracked_calls):
    x, w, b = ea.randn(3, 4), ea.randn(2, 4, requires_grad=True), ea.randn(2, requires_grad=True)
    with ea.no_grad():
        r = F.linear(x, w, b)
    assert untracked_calls[0] == 1 and not r.requires_grad and r.grad_fn is None
    with ea.inference_mode():
        r = F.linear(x, w, b)
    assert untracked_calls[0] == 2 and r.is_inference()
    assert not F.linear(x, w.detach(), b.detach()).is_inference()


def test_dispatched_when_something_watches(untracked_calls):
    x, w, b = ea.randn(3, 4), ea.randn(2, 4), ea.randn(2)
    r = F.linear(x, w.requires_grad_(), b)  # autograd alone watches: computed at once, recorded as AddmmBackward0
    assert type(r.grad_fn).__name__ == "AddmmBackward0" and untracked_calls[0] == 1
    seen = []
    with _watched(seen):
        r = F.linear(x, w, b)
    assert seen == ["transpose", "mm", "add"] and untracked_calls[0] == 1
    assert type(r.grad_fn).__name__ == "AddmmBackward0"
    w.requires_grad_(False)
    with _watched(seen):
        F.linear(x, w, b)
    assert seen == ["transpose", "mm", "add"] * 2 and untracked_calls[0] == 1
    with ea.autocast("cpu", dtype=ea.bfloat16):  # autocast's composite hook casts linear to bfloat16
        assert F.linear(x, w, b).dtype == ea.bfloat16
    assert untracked_calls[0] == 1
    F.linear(x, w, b)
    assert untracked_calls[0] == 2


def test_errors_unchanged(untracked_calls):
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(3x4 and 5x2\)"):
        F.linear(ea.randn(3, 4), ea.randn(2, 5), ea.randn(2))
    with pytest.raises(RuntimeError, match="mat1 and mat2 must have the same dtype"):
        F.linear(ea.randn(3, 4, dtype=ea.float64), ea.randn(2, 4), ea.randn(2))
    assert F.linear(ea.randn(0, 4), ea.randn(2, 4), ea.randn(2)).shape == (0, 2)
    assert untracked_calls[0] == 0


def test_a_subclass_is_handed_the_call_and_plain_tensors_stay_untracked_after_it(untracked_calls):
    class Logged(ea.Tensor):
        seen = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.seen.append(getattr(func, "__name__", func))
            return super().__torch_function__(func, types, args, kwargs or {})

    x, w, b = ea.randn(3, 4), ea.randn(2, 4), ea.randn(2)
    r = F.linear(x.as_subclass(Logged), w, b)
    assert type(r) is Logged and Logged.seen[0] == "linear" and untracked_calls[0] == 0
    np.testing.assert_allclose(r.as_subclass(ea.Tensor).numpy(), x.numpy() @ w.numpy().T + b.numpy(), rtol=1e-6)
    assert dispatch.untracked  # the subclass turned the protocol on; plain tensors still compute at once
    F.linear(x, w, b)
    assert untracked_calls[0] == 1


def test_sparse_input_takes_the_dispatched_ops(untracked_calls):
    s = ea.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2))
    w = ea.ones(3, 2, requires_grad=True)
    for weight in (w, w.detach()):  # a sparse operand has no dense array: the ops (PyTorch's sparse addmm) compute it
        np.testing.assert_array_equal(F.linear(s, weight, ea.ones(3)).detach().numpy(), [[2.0] * 3, [3.0] * 3])
    assert untracked_calls[0] == 0


def test_parameters_compute_at_once(untracked_calls):
    """A Parameter (and any subclass that opts out of `__torch_function__`, as PyTorch's Parameter does) is a plain
    tensor to the direct path from its class's definition on, not only once an op's scan has met it."""
    from ember.nn import Linear, LSTMCell, Parameter

    class Tied(Parameter):  # defined here: no op has seen the class yet
        pass

    lin = Linear(4, 3)
    lin.weight = Tied(lin.weight.detach().clone())
    x = ea.randn(2, 4)
    r = lin(x)
    assert untracked_calls[0] == 1 and type(r.grad_fn).__name__ == "AddmmBackward0"
    r.sum().backward()
    np.testing.assert_allclose(lin.weight.grad.numpy(), np.tile(x.numpy().sum(0), (3, 1)), rtol=1e-6)
    LSTMCell(4, 5)(ea.randn(2, 4))  # both of the cell's products
    assert untracked_calls[0] == 3
