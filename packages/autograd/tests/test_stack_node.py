"""`stack` of tensors requiring grad records PyTorch's one StackBackward0 over the inputs (computed at once where
autograd alone watches ops: NOTE [ One node computed outside dispatch ]), with the dispatched ops' values."""

import numpy as np
import pytest

import ember.autograd as ea
from ember.core.testing import watching


def _names(node):
    return [None if n is None else n.name() for n, _ in node.next_functions]


@pytest.mark.parametrize("dim", [0, 1, -1, 2, -3])
@pytest.mark.parametrize("dt", [ea.float32, ea.float64])
def test_one_node_and_gradients(dim, dt):
    a = ea.randn(2, 3, dtype=dt, requires_grad=True)
    b = ea.randn(2, 3, dtype=dt, requires_grad=True)
    y = ea.stack([a, b * 2], dim)
    assert y.grad_fn.name() == "StackBackward0" and _names(y.grad_fn) == ["torch::autograd::AccumulateGrad",
                                                                           "MulBackward0"]
    assert y.grad_fn._saved_dim == dim % (1 << 64)  # PyTorch's SymInt reads a negative dim back unsigned
    want = np.stack([a.detach().numpy(), 2 * b.detach().numpy()], dim)
    np.testing.assert_array_equal(y.detach().numpy(), want)
    assert y.is_contiguous()
    g = np.arange(want.size, dtype=want.dtype).reshape(want.shape)
    y.backward(ea.tensor(g))
    np.testing.assert_array_equal(a.grad.numpy(), np.take(g, 0, axis=dim))
    np.testing.assert_array_equal(b.grad.numpy(), 2 * np.take(g, 1, axis=dim))


def test_same_as_the_dispatched_ops_and_a_tensor_used_twice():
    a = ea.randn(4, requires_grad=True)
    (ea.stack([a, a, a * 3], 1) ** 2).sum().backward()
    got = a.grad.numpy().copy()
    a.grad = None
    seen = []
    with watching(seen):
        y = ea.stack([a, a, a * 3], 1)
        (y ** 2).sum().backward()
    assert "cat" in seen and y.grad_fn.name() == "StackBackward0"
    np.testing.assert_array_equal(got, a.grad.numpy())
    np.testing.assert_allclose(got, 2 * a.detach().numpy() * (1 + 1 + 9), rtol=1e-6)


def test_only_some_inputs_require_grad_and_promotion():
    a = ea.ones(3, dtype=ea.float64, requires_grad=True)
    b = ea.arange(3)  # int64: promoted, no gradient
    y = ea.stack([b, a])
    assert y.dtype == ea.float64 and _names(y.grad_fn) == [None, "torch::autograd::AccumulateGrad"]
    y.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [1.0, 1.0, 1.0])
    h = ea.ones(3, dtype=ea.float32, requires_grad=True)
    (ea.stack([h, a]) * 2).sum().backward()  # a float32 input of a float64 result gets a float32 gradient
    assert h.grad.dtype == ea.float32


def test_double_backward():
    x = ea.tensor([1.0, 2.0], dtype=ea.float64, requires_grad=True)
    y = ea.stack([x ** 3, x * x]).sum()
    (g,) = ea.autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [3 + 2, 12 + 4])
    (gg,) = ea.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), [6 + 2, 12 + 2])


def test_no_grad_result_and_errors_unchanged():
    a = ea.randn(2, requires_grad=True)
    with ea.no_grad():
        assert ea.stack([a, a]).grad_fn is None
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got \[2\] at entry 0 "
                                           r"and \[3\] at entry 1"):
        ea.stack([a, ea.randn(3, requires_grad=True)])
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        ea.stack([a, a], 2)
