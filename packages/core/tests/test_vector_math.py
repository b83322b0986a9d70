"""ember.core.ops.vector_math's vectorizable functions: float32 against float64 numpy rounded once to float32,
float64 against numpy's longdouble (64-bit significand on x86)."""

from __future__ import annotations

import functools
import re

import numba
import numpy as np
import pytest

from ember.core.ops import vector_math as vmath


@functools.cache
def _loop(name: str):
    """A Numba loop applying vmath's `name` to each value, as a fused kernel inlines it."""
    f = getattr(vmath, name)

    @numba.njit(nogil=True, error_model="numpy")
    def run(a):
        out = np.empty_like(a)
        for i in range(a.size):
            out[i] = f(a[i])
        return out

    return run


def _ulps(got: np.ndarray, ref64: np.ndarray) -> np.ndarray:
    """How many float32 steps `got` is from `ref64` rounded to float32 (-0.0 and 0.0 are one point)."""
    def ordered(a):
        i = a.astype(np.float32).view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7FFFFFFF), i)
    return np.abs(ordered(got) - ordered(ref64))


def _near_multiples_of_half_pi(count: int, kmax: float) -> np.ndarray:
    """The float32 values on either side of k pi/2 for k up to `kmax`: where r = x - k pi/2 is smallest, so the
    reduction cancels most (an inexact pi/2 shows here first)."""
    k = np.unique(np.geomspace(1, kmax, count).round())
    x = (k * (np.pi / 2)).astype(np.float32)
    return np.concatenate([x, np.nextafter(x, np.float32(np.inf)), np.nextafter(x, np.float32(0)), -x])


@pytest.mark.parametrize("name", ["sin", "cos"])
def test_sin_cos_within_2_ulp_below_2_pow_29(name):
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-lim, lim, 200_000) for lim in (1.0, 10.0, 1e3, 1e5, 1e7, 2.0 ** 29)]
                       + [_near_multiples_of_half_pi(20_000, 3e8), np.geomspace(1e-30, 1.0, 20_000),
                          np.array([np.finfo(np.float32).smallest_subnormal, 2.0 ** -12, 2.0 ** -12 * 1.01])])
    x = x.astype(np.float32)
    got = _loop(name + "32")(x)
    ref = getattr(np, name)(x.astype(np.float64))
    assert _ulps(got, ref).max() <= 2
    assert np.abs(got).max() <= 1.0


def test_sin_cos_specials():
    x = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, -1e-45], np.float32)
    s, c = _loop("sin32")(x), _loop("cos32")(x)
    np.testing.assert_array_equal(s[:2].view(np.uint32), x[:2].view(np.uint32))  # sin(-0.0) is -0.0
    assert np.isnan(s[2:5]).all() and np.isnan(c[2:5]).all()
    assert s[5] == np.float32(-1e-45) and (c[[0, 1, 5]] == 1.0).all()


def test_sin_cos_past_2_pow_29_degrade_gradually_and_stay_bounded():
    # NOTE [ Vectorized sin and cos in fused kernels ]: absolute error about |x| 2^-53, then no meaning past 2^52
    rng = np.random.default_rng(1)
    for e, tol in ((30, 1e-7), (36, 2e-5), (40, 3e-4)):
        x = (2.0 ** e * rng.uniform(1, 2, 20_000)).astype(np.float32)
        for name in ("sin", "cos"):
            got = _loop(name + "32")(x)
            assert np.abs(got - getattr(np, name)(x.astype(np.float64))).max() < tol, (name, e)
    huge = np.array([2.0 ** 60, 1e30, -3.4e38, 3.4028235e38], np.float32)
    for name in ("sin32", "cos32"):
        got = _loop(name)(huge)
        assert np.isfinite(got).all() and np.abs(got).max() <= 1.0


@pytest.mark.parametrize("name, ref", [("log32", np.log), ("log2_32", np.log2), ("log10_32", np.log10)])
def test_logs_within_1_ulp_over_all_positive_float32(name, ref):
    rng = np.random.default_rng(2)
    x = np.concatenate([np.exp(rng.uniform(-103.2, 88.7, 400_000)), rng.uniform(0.5, 2.0, 200_000),
                        1.0 + rng.uniform(-1e-3, 1e-3, 50_000), 2.0 ** np.arange(-149, 128), 10.0 ** np.arange(-38, 39),
                        np.array([np.finfo(np.float32).smallest_subnormal, 1e-40, np.finfo(np.float32).tiny,
                                  np.finfo(np.float32).max, np.sqrt(0.5), np.sqrt(2.0)])]).astype(np.float32)
    got = _loop(name)(x)
    assert _ulps(got, ref(x.astype(np.float64))).max() <= 1
    if name == "log2_32":  # powers of two give their exponent exactly
        powers = (2.0 ** np.arange(-149, 128)).astype(np.float32)
        np.testing.assert_array_equal(_loop(name)(powers), np.arange(-149, 128))


def test_log1p_within_1_ulp():
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.uniform(-1, 1, 300_000), np.geomspace(1e-38, 1.0, 50_000),
                        -np.geomspace(1e-38, 0.9, 50_000), np.exp(rng.uniform(0, 88.7, 100_000)),
                        [2.0 ** -24, -(2.0 ** -24), 2.0 ** -29]]).astype(np.float32)
    x = x[x > -1]
    assert _ulps(_loop("log1p32")(x), np.log1p(x.astype(np.float64))).max() <= 1


@pytest.mark.parametrize("name, at_zero", [("log32", 0.0), ("log2_32", 0.0), ("log10_32", 0.0), ("log1p32", -1.0)])
def test_log_specials(name, at_zero):
    # the arguments of log, shifted for log1p: at_zero is where it is -inf
    x = np.array([0.0, -0.0, 1.0, np.inf, -1.0, -np.inf, np.nan, -0.5], np.float32) + np.float32(at_zero)
    got = _loop(name)(x)
    assert got[0] == -np.inf and got[1] == -np.inf and got[3] == np.inf
    assert np.isnan(got[4:]).all()
    assert got[2] == (np.log1p(np.float32(0.0)) if name == "log1p32" else 0.0)


def test_log1p_keeps_tiny_values_and_negative_zero():
    x = np.array([-0.0, 1e-45, -1e-30, 5e-8], np.float32)
    np.testing.assert_array_equal(_loop("log1p32")(x).view(np.uint32), x.view(np.uint32))


def test_exp_and_tanh_within_1_ulp():
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(-103.9, 88.7, 400_000), rng.uniform(-1, 1, 100_000),
                        np.geomspace(1e-30, 1, 5_000)]).astype(np.float32)
    assert _ulps(_loop("exp32")(x), np.exp(x.astype(np.float64))).max() <= 1  # denormal results too
    x = np.concatenate([x[x > -20], -x[x > -20]])
    assert _ulps(_loop("tanh32")(x), np.tanh(x.astype(np.float64))).max() <= 1


def test_functions_vectorize():
    # the point of the module: a loop over each is a SIMD loop (LLVM's vector types in the optimized IR)
    x = np.linspace(-3, 3, 64, dtype=np.float32)
    for name in ("sin32", "cos32", "log32", "log1p32", "exp32", "tanh32"):
        run = _loop(name)
        run(np.abs(x))
        ir = "".join(run.inspect_llvm().values())
        assert re.search(r"<(4|8|16) x float>", ir), name  # SSE/AVX2 lanes, or AVX-512's (znver4)


_REFS = {"exp32": (np.exp, 1), "tanh32": (np.tanh, 1), "sin32": (np.sin, 2), "cos32": (np.cos, 2), "log32": (np.log, 1),
         "log2_32": (np.log2, 1), "log10_32": (np.log10, 1), "log1p32": (np.log1p, 1)}


@pytest.mark.parametrize("name", sorted(_REFS))
def test_every_float32_of_a_binade_and_random_bits(name):
    # every float32 in [0.5, 1) and its negatives (the logs: [0.5, 2)), then 1M random bit patterns of every
    # exponent (sin/cos below 2^29: NOTE [ Vectorized sin and cos in fused kernels ])
    ref, bound = _REFS[name]
    dense = np.arange(0x3F000000, 0x3F800000, dtype=np.uint32).view(np.float32)
    dense = np.concatenate([dense, dense * np.float32(2.0)] if name.startswith("log") else [dense, -dense])
    x = np.random.default_rng(6).integers(0, 2 ** 32, 1_000_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    x = x[np.isfinite(x)]
    if name in ("sin32", "cos32"):
        x = x[np.abs(x) < 2.0 ** 29]
    for v in (dense, x):
        with np.errstate(all="ignore"):
            want = ref(v.astype(np.float64))
        got = _loop(name)(v)
        finite = np.isfinite(want) & (np.abs(want) < np.finfo(np.float32).max)
        assert _ulps(got[finite], want[finite]).max() <= bound, name
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))  # NaN exactly where the function is undefined


def _ulps64(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """How many float64 ulps (of the correctly rounded value's binade, denormals' at least) `got` is from the
    longdouble `ref`."""
    step = np.spacing(np.abs(ref.astype(np.float64))).astype(np.longdouble)
    return np.abs(got.astype(np.longdouble) - ref) / step


def _float64_sample(lo: float, hi: float) -> np.ndarray:
    """Uniform and log-spaced points of [lo, hi], values around 0 and 1e6 random float64 bit patterns (finite)."""
    rng = np.random.default_rng(11)
    bits = rng.integers(0, 2 ** 63, 1_000_000, dtype=np.int64) * rng.choice(np.array([-1, 1]), 1_000_000)
    bits = bits.view(np.float64)
    return np.concatenate([rng.uniform(lo, hi, 300_000), rng.uniform(-1, 1, 200_000), np.geomspace(1e-300, 1, 50_000),
                           -np.geomspace(1e-300, 1, 50_000), bits[np.isfinite(bits)]])


@pytest.mark.skipif(np.finfo(np.longdouble).nmant < 60, reason="needs an extended-precision longdouble reference")
def test_exp64_within_1_ulp():
    x = _float64_sample(-745.2, 709.8)
    x = np.concatenate([x, np.linspace(-745.2, -708.0, 100_000), np.linspace(700.0, 709.78, 20_000)])
    with np.errstate(all="ignore"):
        ref = np.exp(x.astype(np.longdouble))
    got = _loop("exp64")(x)
    finite = ref <= np.finfo(np.float64).max
    assert _ulps64(got[finite], ref[finite]).max() <= 1  # denormal results too (1 ulp there is 5e-324)
    assert np.isinf(got[~finite]).all()


@pytest.mark.skipif(np.finfo(np.longdouble).nmant < 60, reason="needs an extended-precision longdouble reference")
def test_tanh64_within_2_ulp():
    x = _float64_sample(-20.0, 20.0)
    x = np.concatenate([x, np.linspace(0.0, 0.7, 200_000), np.linspace(15.0, 20.0, 50_000)])
    got = _loop("tanh64")(x)
    assert _ulps64(got, np.tanh(x.astype(np.longdouble))).max() <= 2  # 1.5 measured, near 0.18


def test_exp64_and_tanh64_specials():
    tiny = np.finfo(np.float64).smallest_subnormal
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 709.782712893384, 709.7827128933841, -745.1332191019411,
                  -745.14, tiny, -1e300, 1e300])
    e = _loop("exp64")(x)
    np.testing.assert_array_equal(e[[0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11]],
                                  [1.0, 1.0, np.inf, 0.0, np.nan, np.inf, tiny, 0.0, 1.0, 0.0, np.inf])
    # the largest x whose exp is finite: within 1 ulp of the extended-precision value, a finite float64
    assert np.isfinite(e[5]) and abs(e[5] - np.exp(np.longdouble(x[5]))) <= np.spacing(e[5])
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, tiny, -tiny, 1e-20, 19.1, -19.1, 1e300, -1e300])
    t = _loop("tanh64")(x)
    np.testing.assert_array_equal(t, [0.0, -0.0, 1.0, -1.0, np.nan, tiny, -tiny, 1e-20, 1.0, -1.0, 1.0, -1.0])
    assert np.signbit(t[1]) and not np.signbit(t[0])


def test_float64_functions_vectorize():
    x = np.linspace(-3, 3, 64)
    for name in ("exp64", "tanh64", "sigmoid64", "silu64"):
        run = _loop(name)
        run(x)
        # the host's vector width: 4 lanes with AVX2, 8 where LLVM targets AVX-512 (znver4)
        assert re.search(r"<(2|4|8|16) x double>", "".join(run.inspect_llvm().values())), name
