"""einsum's gradients where PyTorch 2.13 takes operands of mixed dtypes, broadcasts size-1 dims and sums the
ellipsis dims the output drops: each gradient in its operand's dtype, checked against float64 numpy, and
against PyTorch in the torch session."""

import numpy as np
import pytest

import ember.autograd as E


def _grads(eq, arrays, dts, weights):
    xs = [E.tensor(a).to(getattr(E, d)).requires_grad_() for a, d in zip(arrays, dts, strict=True)]
    out = E.einsum(eq, *xs)
    prod = out * E.tensor(weights).to(out.dtype)
    (prod.real if prod.dtype.is_complex else prod).sum().backward()  # a real loss
    return out, [x.grad for x in xs]


def test_mixed_dtype_product_gradients_in_each_operands_dtype():
    a, b, w = np.array([0.5, -1.0, 2.0]), np.array([3.0, 0.25, -2.0]), np.array([1.0, 2.0, -1.0])
    out, (ga, gb) = _grads("i,i->i", [a, b], ("float32", "float64"), w)
    assert out.dtype is E.float64 and ga.dtype is E.float32 and gb.dtype is E.float64
    np.testing.assert_allclose(ga.numpy(), (w * b).astype(np.float32))
    np.testing.assert_allclose(gb.numpy(), w * a.astype(np.float32), rtol=1e-7)


def test_outer_product_of_mixed_dtypes_and_a_complex_result():
    a, b = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.5])
    w = np.arange(6.0).reshape(3, 2)
    _, (ga, gb) = _grads("i,j->ij", [a, b], ("float32", "float64"), w)
    np.testing.assert_allclose(ga.numpy(), w @ b, rtol=1e-6)
    np.testing.assert_allclose(gb.numpy(), a @ w, rtol=1e-6)
    z = np.array([1 + 2j, -1j, 0.5])
    out, (gz, gr) = _grads("i,i->i", [z, a], ("complex64", "float64"), np.ones(3))
    assert out.dtype is E.complex128 and gz.dtype is E.complex64 and gr.dtype is E.float64
    # loss = sum(Re(z a)): the real operand's gradient is Re(z) (the real part of grad conj(z)), z's is a
    np.testing.assert_allclose(gr.numpy(), z.real, rtol=1e-6)
    np.testing.assert_allclose(gz.numpy(), a, rtol=1e-6)


def test_broadcast_size_one_and_dropped_ellipsis_gradients():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((2, 1))
    w = rng.standard_normal(2)
    _, (ga, gb) = _grads("i...,i...->i", [a, b], ("float64", "float64"), w)
    np.testing.assert_allclose(ga.numpy(), w[:, None] * np.broadcast_to(b, (2, 3)))
    np.testing.assert_allclose(gb.numpy(), (w[:, None] * a).sum(1, keepdims=True))
    x = rng.standard_normal((2, 3, 2))
    _, (gx,) = _grads("i...->i", [x], ("float64",), w)
    np.testing.assert_allclose(gx.numpy(), np.broadcast_to(w[:, None, None], x.shape))


@pytest.mark.torch
@pytest.mark.parametrize("eq, specs", [
    ("i,i->i", [((3,), "float32"), ((3,), "float64")]),
    ("i,j->ij", [((3,), "float32"), ((2,), "float64")]),
    ("i,j->", [((3,), "float32"), ((2,), "float64")]),
    ("i,j,j->ij", [((2,), "float64"), ((3,), "float32"), ((3,), "float32")]),
    ("i,i->i", [((3,), "complex64"), ((3,), "float64")]),
    ("i,i->i", [((3,), "float16"), ((3,), "float32")]),
    ("...->", [((2, 3), "float64")]),
    ("i...,i...->i", [((2, 3), "float64"), ((2, 1), "float64")]),
    ("...ij,...jk->...ik", [((2, 1, 2, 3), "float64"), ((3, 3, 4), "float64")]),
])
def test_einsum_gradients_match_pytorch(eq, specs):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s) + (1j * rng.standard_normal(s) if "complex" in d else 0) for s, d in specs]
    got = []
    for m in (E, torch):
        xs = [m.tensor(a).to(getattr(m, d)).requires_grad_() for a, (_, d) in zip(arrays, specs, strict=True)]
        r = m.einsum(eq, *xs)
        (r.abs() ** 2 if r.dtype.is_complex else r * r).sum().backward()
        got.append([(str(x.grad.dtype).split(".")[-1], x.grad.detach().to(m.complex128).numpy()) for x in xs])
    for (de, ge), (dt, gt) in zip(*got, strict=True):
        assert de == dt
        np.testing.assert_allclose(ge, gt, rtol=2e-3, atol=1e-3)
