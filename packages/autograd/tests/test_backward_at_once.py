"""The products of `mm`'s and `addmm`'s gradients and a gradient's transpose compute at once in a backward without
`create_graph` where nothing but autograd watches ops (NOTE [ Backward products computed at once ]): the same bits
as the dispatched ops, and the dispatched ops whenever anything else would see them."""

import numpy as np
import pytest

import ember.autograd as ea
from ember.core.testing import watching

LAYOUTS = ["rows", "weight_t", "both_t"]


def _operands(layout, dt, n=5, k=7, m=3):
    rng = np.random.default_rng(0)
    a = ea.tensor(rng.standard_normal((n, k)).astype(dt), requires_grad=True)
    b = ea.tensor(rng.standard_normal((m, k) if layout != "rows" else (k, m)).astype(dt), requires_grad=True)
    c = ea.tensor(rng.standard_normal(m).astype(dt), requires_grad=True)
    return a, b, c


def _grads(layout, dt, fn, watched):
    a, b, c = _operands(layout, dt)
    seen = []

    def run():
        left = a.t().t() if layout != "both_t" else a.t().contiguous().t()
        right = b.t() if layout != "rows" else b
        y = fn(left, right, c)
        (y * ea.arange(y.numel(), dtype=y.dtype).reshape(y.shape)).sum().backward()

    if watched:
        with watching(seen):
            run()
    else:
        run()
    used = [t for t in (a, b, c) if t.grad is not None]  # mm leaves the bias unused
    return [t.grad.numpy() for t in used], [t.grad.stride() for t in used], seen


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fn", [lambda x, w, b: x.mm(w), lambda x, w, b: ea.addmm(b, x, w),
                                lambda x, w, b: ea.matmul(x, w) + b], ids=["mm", "addmm", "matmul_add"])
def test_same_bits_and_layouts_as_the_dispatched_ops(dt, layout, fn):
    got, got_strides, _ = _grads(layout, dt, fn, watched=False)
    want, want_strides, seen = _grads(layout, dt, fn, watched=True)
    assert "mm" in seen  # the reference really dispatched its products
    assert len(got) == len(want) >= 2
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert got_strides == want_strides


def test_values_against_numpy():
    a, b, c = _operands("weight_t", np.float64)
    y = ea.addmm(c, a, b.t())
    g = np.arange(15.0).reshape(5, 3)
    y.backward(ea.tensor(g))
    np.testing.assert_allclose(a.grad.numpy(), g @ b.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), (a.detach().numpy().T @ g).T, rtol=1e-12)
    np.testing.assert_allclose(c.grad.numpy(), g.sum(0), rtol=1e-12)


def test_no_product_dispatched_in_a_plain_backward():
    a, b, c = _operands("weight_t", np.float32)
    y = ea.addmm(c, a, b.t()).sum()
    seen = []
    from ember.core import dispatch

    def hook(op, args, kwargs, call_next):  # installed after the forward: counts the backward's ops only
        seen.append(op.name)
        return call_next(op, args, kwargs)

    hook.ignores_untracked = True  # a hook that declares it need not see untracked work keeps the shortcut
    dispatch.register_dispatch_hook(hook)
    try:
        y.backward()
    finally:
        dispatch.remove_dispatch_hook(hook)
    assert "mm" not in seen and "transpose" not in seen and "sum" not in seen  # the bias's sum too


def test_create_graph_records_the_products():
    a, b, _ = _operands("weight_t", np.float64)
    (ga,) = ea.autograd.grad(a.mm(b.t()).pow(2).sum(), a, create_graph=True)
    assert ga.grad_fn is not None
    (gb,) = ea.autograd.grad(ga.sum(), b)
    x, w = a.detach().numpy(), b.detach().numpy()
    # d/dw sum(2 (x w^T) w) = 2 * (ones @ ... ): checked against a float64 finite difference
    eps = 1e-6
    num = np.zeros_like(w)
    for i in np.ndindex(w.shape):
        wp, wm = w.copy(), w.copy()
        wp[i] += eps
        wm[i] -= eps
        num[i] = ((2 * (x @ wp.T) @ wp).sum() - (2 * (x @ wm.T) @ wm).sum()) / (2 * eps)
    np.testing.assert_allclose(gb.numpy(), num, rtol=1e-6, atol=1e-6)


def test_a_complex_or_half_gradient_takes_the_dispatched_ops():
    for dt in (ea.complex64, ea.float16):
        a = ea.randn(3, 4, dtype=dt, requires_grad=True)
        b = ea.randn(4, 2, dtype=dt, requires_grad=True)
        a.mm(b).sum().abs().backward() if dt.is_complex else a.mm(b).sum().backward()
        assert a.grad.dtype == dt and b.grad.dtype == dt
