"""`add`/`sub` with `alpha` (ember.core.ops.axpy): float32/float64 as PyTorch's CPU kernel, one fused
multiply-add `fmadd(other, alpha, input)` rounding once, checked element by element against the exact value
(fractions); 16-bit operands in float32, rounded once; integers wrap."""

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import ember.core as E


def _correctly_rounded(got: np.ndarray, exact: list[Fraction]) -> np.ndarray:
    """Whether each `got[i]` is `exact[i]` rounded to nearest, ties to even, in got's dtype."""
    up = np.nextafter(got, np.array(np.inf, got.dtype))
    down = np.nextafter(got, np.array(-np.inf, got.dtype))
    ok = []
    for g, lo, hi, e in zip(got.tolist(), down.tolist(), up.tolist(), exact):
        g_, low, high = Fraction(g), (Fraction(lo) + Fraction(g)) / 2, (Fraction(hi) + Fraction(g)) / 2
        even = int(np.asarray(g, got.dtype).view(np.int64 if got.dtype == np.float64 else np.int32)) % 2 == 0
        ok.append(low < e < high or (e in (low, high) and even) or e == g_)
    return np.array(ok)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["add", "sub"])
def test_alpha_is_one_fused_multiply_add(name, dtype):
    rng = np.random.default_rng(0)
    x, y = (rng.standard_normal(3000) * 100).astype(dtype), (rng.standard_normal(3000) * 100).astype(dtype)
    alpha = 0.396
    a = Fraction(float(np.asarray(alpha, dtype)))  # alpha is cast to the dtype first
    sign = -1 if name == "sub" else 1
    exact = [Fraction(float(p)) + sign * a * Fraction(float(q)) for p, q in zip(x.tolist(), y.tolist())]
    got = getattr(E, name)(E.tensor(x), E.tensor(y), alpha=alpha).numpy()
    assert got.dtype == dtype and _correctly_rounded(got, exact).all()
    # a product rounded before the sum (two roundings) is off on many of these elements
    two = (x + sign * (np.asarray(alpha, dtype) * y)).astype(dtype)
    assert (two != got).mean() > 0.05


def test_alpha_fma_in_place_out_broadcast_and_a_number():
    got = E.add(E.tensor([24.76399803161621]), E.tensor([214.0]), alpha=0.396).item()
    assert got == 109.50799560546875  # PyTorch's (the rounded product gives 109.50800323486328)
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((4, 64)).astype(np.float32), rng.standard_normal(64).astype(np.float32)
    want = E.add(E.tensor(x), E.tensor(np.broadcast_to(y, (4, 64)).copy()), alpha=-0.01).numpy()
    np.testing.assert_array_equal(E.add(E.tensor(x), E.tensor(y), alpha=-0.01).numpy(), want)
    p = E.tensor(x)
    p.add_(E.tensor(y), alpha=-0.01)
    np.testing.assert_array_equal(p.numpy(), want)
    out = E.empty(4, 64)
    E.add(E.tensor(x), E.tensor(y), alpha=-0.01, out=out)
    np.testing.assert_array_equal(out.numpy(), want)
    exact = [Fraction(float(v)) + Fraction(float(np.float32(0.7))) * Fraction(float(np.float32(3.3)))
             for v in x.reshape(-1).tolist()]
    assert _correctly_rounded(E.add(E.tensor(x), 3.3, alpha=0.7).numpy().reshape(-1), exact).all()



@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_alpha_fuses_in_short_tails_and_strided_views(dtype):
    # PyTorch 2.13 fuses in its scalar tail (under one vector) and strided loop too (compared bit for bit)
    rng = np.random.default_rng(3)
    x, y = (rng.standard_normal(400) * 3).astype(dtype), rng.standard_normal(400).astype(dtype)
    a = Fraction(float(np.asarray(-0.0997013, dtype)))

    def check(xs, ys, got):
        exact = [Fraction(float(p)) + a * Fraction(float(q)) for p, q in zip(xs.tolist(), ys.tolist())]
        assert _correctly_rounded(got.reshape(-1), exact).all()

    for n in (1, 3, 7, 15, 17, 33):
        check(x[:n], y[:n], E.add(E.tensor(x[:n]), E.tensor(y[:n]), alpha=-0.0997013).numpy())
        p = E.tensor(x[:n])
        p.add_(E.tensor(y[:n]), alpha=-0.0997013)
        check(x[:n], y[:n], p.numpy())
    got = E.add(E.tensor(x)[::2], E.tensor(y)[1::2], alpha=-0.0997013).numpy()
    check(x[::2], y[1::2], got)
    got = E.add(E.tensor(x).view(20, 20).t(), E.tensor(y).view(20, 20).t(), alpha=-0.0997013).numpy()
    check(x.reshape(20, 20).T.reshape(-1), y.reshape(20, 20).T.reshape(-1), got)

@pytest.mark.parametrize("dt", [E.bfloat16, E.float16])
def test_alpha_of_16_bit_operands_sums_in_float32_once(dt):
    npdt = np.dtype(ml_dtypes.bfloat16) if dt is E.bfloat16 else np.dtype(np.float16)
    rng = np.random.default_rng(2)
    x, y = (rng.standard_normal(256) * 10).astype(npdt), (rng.standard_normal(256) * 10).astype(npdt)
    alpha = np.float32(np.float32(0.396).astype(npdt))  # PyTorch's `alpha.to<scalar_t>()`
    want = (x.astype(np.float32) + y.astype(np.float32) * alpha).astype(npdt)  # the product is exact in float32
    got = E.add(E.tensor(x.astype(np.float32)).to(dt), E.tensor(y.astype(np.float32)).to(dt), alpha=0.396)
    assert got.dtype is dt
    np.testing.assert_array_equal(got.float().numpy(), want.astype(np.float32))


def test_alpha_of_integers_wraps_and_of_complex_multiplies():
    x = E.tensor([100, -3], dtype=E.int8)
    got = E.add(x, E.tensor([2, 1], dtype=E.int8), alpha=100)
    np.testing.assert_array_equal(got.numpy(), (np.array([100, -3]) + 100 * np.array([2, 1])).astype(np.int8))
    got = E.sub(E.tensor([1 + 1j]), E.tensor([3 + 4j]), alpha=2j)
    np.testing.assert_allclose(got.numpy(), [(1 + 1j) - 2j * (3 + 4j)])


def test_alpha_is_refused_by_other_binary_kernels():
    with pytest.raises(TypeError, match="unexpected keyword argument 'alpha'"):
        E.ops.elementwise.mul(E.ones(2), E.ones(2), alpha=2)
