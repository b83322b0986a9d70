"""F.linear with operands that require grad and autograd alone watching is computed at once and recorded as PyTorch's
nodes (AddmmBackward0, or MmBackward0 without a bias, over the weight's TBackward0; NOTE [ One node computed outside
dispatch ]): the same values, gradients, saved tensors and graph as the dispatched ops', and PyTorch's graph shape."""

import numpy as np
import pytest

import ember.autograd as ea
import ember.nn.functional as F
from ember.autograd import forward_ad as fwAD
from ember.core.testing import watching


def _names(node) -> list:
    return [None if f is None else type(f).__name__ for f, _ in node.next_functions]


def _operands(shape, out, dt, grads, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dt)
    w, b = rng.standard_normal((out, shape[-1])).astype(dt), rng.standard_normal(out).astype(dt)
    return [ea.tensor(a, requires_grad=g) for a, g in zip((x, w, b), grads)]


def _run(x, w, b, gy):
    """linear's output and the gradients of (x, w, b) for the output gradient `gy`."""
    for t in (x, w, b):
        if t is not None:
            t.grad = None
    y = F.linear(x, w, b)
    y.backward(gy)
    return y, [None if t is None or t.grad is None else t.grad.numpy() for t in (x, w, b)]


@pytest.mark.parametrize("shape,dt", [((5, 4), np.float32), ((7, 3), np.float64), ((2, 3, 4), np.float32),
                                      ((64, 96), np.float32)])
@pytest.mark.parametrize("grads", [(False, True, True), (True, True, True), (True, False, False),
                                   (False, False, True)])
def test_values_and_gradients_match_the_dispatched_ops(shape, dt, grads):
    x, w, b = _operands(shape, 6, dt, grads, seed=len(shape) * 7 + shape[-1])
    gy = ea.tensor(np.random.default_rng(1).standard_normal((*shape[:-1], 6)).astype(dt))
    y, got = _run(x, w, b, gy)
    with watching():
        y_ref, want = _run(x, w, b, gy)
    assert np.array_equal(y.detach().numpy(), y_ref.detach().numpy())
    for g, r in zip(got, want):
        assert (g is None) == (r is None)
        if g is not None:
            assert np.array_equal(g, r)
    x64, w64, g64 = (t.detach().numpy().astype(np.float64).reshape(-1, t.shape[-1]) for t in (x, w, gy))
    tol = {"rtol": 1e-4, "atol": 1e-4} if dt == np.float32 else {"rtol": 1e-12, "atol": 1e-12}
    np.testing.assert_allclose(y.detach().numpy().reshape(-1, 6), x64 @ w64.T + b.detach().numpy(), **tol)
    refs = (g64 @ w64, g64.T @ x64, g64.sum(0))
    for g, r, t in zip(got, refs, (x, w, b)):
        if t.requires_grad:
            np.testing.assert_allclose(g.reshape(r.shape), r, **tol)


def test_graph_is_pytorchs():
    x, w, b = _operands((3, 4), 5, np.float32, (False, True, True))
    y = F.linear(x, w, b)
    assert type(y.grad_fn).__name__ == "AddmmBackward0" and _names(y.grad_fn) == ["AccumulateGrad", None, "TBackward0"]
    assert _names(y.grad_fn.next_functions[2][0]) == ["AccumulateGrad"]
    fn = y.grad_fn
    assert fn._saved_alpha == 1 and fn._saved_beta == 1 and fn._saved_mat2 is None
    assert fn._saved_mat1 is x
    y = F.linear(x.requires_grad_(), w, b)
    assert _names(y.grad_fn) == ["AccumulateGrad", "AccumulateGrad", "TBackward0"]
    m2 = y.grad_fn._saved_mat2
    assert m2.shape == (4, 5) and m2.stride() == (1, 4) and m2._base is w
    y = F.linear(x, w)  # no bias: matmul's mm
    assert type(y.grad_fn).__name__ == "MmBackward0" and _names(y.grad_fn) == ["AccumulateGrad", "TBackward0"]
    xb = ea.randn(2, 3, 4, requires_grad=True)
    y = F.linear(xb, w, b)  # PyTorch's flattened addmm between two views
    assert type(y.grad_fn).__name__ == "ViewBackward0" and _names(y.grad_fn) == ["AddmmBackward0"]
    assert _names(y.grad_fn.next_functions[0][0]) == ["AccumulateGrad", "ViewBackward0", "TBackward0"]


def test_pack_hooks_see_pytorchs_saved_tensors_in_order():
    x, w, b = _operands((3, 4), 5, np.float32, (True, True, True))
    seen = []

    def pack(t):
        seen.append((tuple(t.shape), t.stride()))
        return t

    with ea.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        F.linear(x, w, b)
        F.linear(x, w)
    assert seen == [((3, 4), (4, 1)), ((4, 5), (1, 4)), ((4, 5), (1, 4)), ((3, 4), (4, 1))]


def test_in_place_change_of_a_saved_input_is_refused():
    x, w, b = _operands((3, 4), 5, np.float64, (False, True, True))
    y = F.linear(x, w, b)
    x.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_double_backward_and_gradgradcheck():
    x, w, b = _operands((3, 4), 2, np.float64, (True, True, True))
    assert ea.autograd.gradcheck(F.linear, (x, w, b))
    assert ea.autograd.gradgradcheck(F.linear, (x, w, b))
    y = F.linear(x, w, b)
    (gw,) = ea.autograd.grad((y ** 2).sum(), w, create_graph=True)
    (gx,) = ea.autograd.grad(gw.sum(), x)
    xn, wn, bn = x.detach().numpy(), w.detach().numpy(), b.detach().numpy()
    # gw = 2 (x w^T + b)^T x: the gradient of its sum by x, by central differences
    eps, want = 1e-6, np.zeros_like(xn)
    for i in np.ndindex(xn.shape):
        d = np.zeros_like(xn)
        d[i] = eps
        f = [(2 * ((xx @ wn.T + bn).T @ xx)).sum() for xx in (xn + d, xn - d)]
        want[i] = (f[0] - f[1]) / (2 * eps)
    np.testing.assert_allclose(gx.numpy(), want, rtol=1e-6, atol=1e-6)


def test_forward_ad_tangent():
    x, w, b = _operands((3, 4), 5, np.float64, (False, False, False))
    t = ea.ones(3, 4, dtype=ea.float64)
    with fwAD.dual_level():
        y = F.linear(fwAD.make_dual(x, t), w, b)
        tangent = fwAD.unpack_dual(y).tangent
    np.testing.assert_allclose(tangent.numpy(), t.numpy() @ w.numpy().T, rtol=1e-12)
