"""bfloat16 (through ml_dtypes): promotion, creation, printing, ops that compute in float32 and
round once on store, matmul/conv accumulating in float32; values against float32 references
rounded to bfloat16, and against PyTorch's bfloat16 results where it is installed."""

import ml_dtypes
import numpy as np
import pytest

import ember.core as E

BF = np.dtype(ml_dtypes.bfloat16)


def bf(a) -> np.ndarray:
    """float32 values rounded to bfloat16 (round to nearest even), as float32."""
    return np.asarray(a, np.float32).astype(BF).astype(np.float32)


def test_dtype_properties():
    d = E.bfloat16
    assert repr(d) == "ember.bfloat16" and d.itemsize == 2 and d.is_floating_point and d.is_signed
    assert E.ones(2).bfloat16().dtype is d and E.ones(2).to(d).is_floating_point()
    assert E.dtypes.as_dtype("bfloat16") is d and E.dtypes.as_dtype(BF) is d


@pytest.mark.parametrize("other, expected", [
    (E.float16, E.float32), (E.float32, E.float32), (E.float64, E.float64), (E.int64, E.bfloat16),
    (E.uint8, E.bfloat16), (E.bool, E.bfloat16), (E.bfloat16, E.bfloat16),
])
def test_promotion_follows_pytorch(other, expected):
    assert E.promote_types(E.bfloat16, other) is expected
    assert E.promote_types(other, E.bfloat16) is expected
    assert (E.ones(2, dtype=E.bfloat16) + E.ones(2, dtype=other)).dtype is expected


def test_python_scalars_keep_bfloat16():
    x = E.ones(3, dtype=E.bfloat16)
    assert (x * 2.5).dtype is E.bfloat16 and (x + 1).dtype is E.bfloat16
    assert (E.ones(3, dtype=E.int64) + E.ones((), dtype=E.bfloat16)).dtype is E.bfloat16


def test_creation_and_rounding():
    z = E.zeros(2, 3, dtype=E.bfloat16)
    assert z.dtype is E.bfloat16 and z.shape == (2, 3) and not z.float().numpy().any()
    t = E.tensor([1.1, 3.14159, 1e-3], dtype=E.bfloat16)
    np.testing.assert_array_equal(t.float().numpy(), bf([1.1, 3.14159, 1e-3]))
    assert E.randn(4, 5, dtype=E.bfloat16).dtype is E.bfloat16
    assert E.full((2,), 1.7, dtype=E.bfloat16).float().numpy()[0] == bf(1.7)


def test_printing_matches_pytorch_format():
    t = E.tensor([[0.126, -0.1318], [1.3047, 2.0]]).bfloat16()
    assert repr(t) == ("tensor([[ 0.1260, -0.1318],\n        [ 1.3047,  2.0000]], dtype=ember.bfloat16)")


def test_type_names():
    x = E.ones(1, dtype=E.bfloat16)
    assert x.type() == "torch.BFloat16Tensor"
    assert E.ones(1).type("ember.BFloat16Tensor").dtype is E.bfloat16


def test_sum_accumulates_in_float32():
    # 4096 ones: a bfloat16 accumulator stalls at 256 (256 + 1 rounds back to 256)
    x = E.ones(4096, dtype=E.bfloat16)
    assert x.sum().dtype is E.bfloat16 and x.sum().item() == 4096.0
    assert x.mean().item() == 1.0


def test_elementwise_rounds_float32_result():
    a = np.linspace(-3, 3, 50, dtype=np.float32)
    x = E.from_numpy(a).bfloat16()
    np.testing.assert_array_equal(x.exp().float().numpy(), bf(np.exp(bf(a))))
    np.testing.assert_array_equal((x * x).float().numpy(), bf(bf(a) * bf(a)))
    assert x.isnan().dtype is E.bool and not x.isnan().any().item()


def test_matmul_accumulates_in_float32():
    rng = np.random.default_rng(0)
    a, b = bf(rng.standard_normal((8, 64))), bf(rng.standard_normal((64, 5)))
    r = E.from_numpy(a).bfloat16() @ E.from_numpy(b).bfloat16()
    assert r.dtype is E.bfloat16
    np.testing.assert_array_equal(r.float().numpy(), bf(a.astype(np.float64) @ b.astype(np.float64)))


def test_matmul_dtype_mismatch_names_bfloat16():
    with pytest.raises(RuntimeError, match="c10::BFloat16"):
        E.mm(E.ones(2, 2, dtype=E.bfloat16), E.ones(2, 2))


def test_conv2d_in_bfloat16():
    rng = np.random.default_rng(1)
    x, w = bf(rng.standard_normal((1, 2, 5, 5))), bf(rng.standard_normal((3, 2, 3, 3)))
    r = E.conv2d(E.from_numpy(x).bfloat16(), E.from_numpy(w).bfloat16())
    ref = E.conv2d(E.from_numpy(x).double(), E.from_numpy(w).double()).numpy()
    assert r.dtype is E.bfloat16
    np.testing.assert_allclose(r.float().numpy(), ref, rtol=2 ** -8, atol=1e-6)


@pytest.mark.torch
def test_ops_match_pytorch_bfloat16():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((4, 6)).astype(np.float32), rng.standard_normal((6, 3)).astype(np.float32)
    cases = {
        "mm": lambda m, x, y: x @ y, "sum": lambda m, x, y: x.sum(1), "softmax": lambda m, x, y: x.softmax(1),
        "var": lambda m, x, y: x.var(0), "tanh": lambda m, x, y: x.tanh(), "div": lambda m, x, y: x / 3,
        "cumsum": lambda m, x, y: x.cumsum(1), "logsumexp": lambda m, x, y: x.logsumexp(1),
    }
    for name, f in cases.items():
        e = f(E, E.from_numpy(a).bfloat16(), E.from_numpy(b).bfloat16())
        t = f(torch, torch.from_numpy(a).bfloat16(), torch.from_numpy(b).bfloat16())
        assert e.dtype is E.bfloat16 and t.dtype is torch.bfloat16, name
        np.testing.assert_allclose(e.float().numpy(), t.float().numpy(), rtol=2 ** -7, atol=1e-2, err_msg=name)


def test_numba_kernels_take_bfloat16_through_float32():
    x = E.tensor([1.0, 3.0, 2.0, 5.0, 4.0]).bfloat16()
    values, indices = x.cummax(0)
    assert values.dtype is E.bfloat16 and values.float().tolist() == [1.0, 3.0, 3.0, 5.0, 5.0]
    assert indices.tolist() == [0, 1, 1, 3, 3]
    pooled = E.max_pool2d(E.arange(16.0).view(1, 1, 4, 4).bfloat16(), 2)
    assert pooled.dtype is E.bfloat16 and pooled.float().flatten().tolist() == [5.0, 7.0, 13.0, 15.0]


def test_importing_core_leaves_ml_dtypes_for_first_use():
    """ml_dtypes takes about a second to import: `import ember.core` must not pay it; the first
    bfloat16 use, or an array the program made with ml_dtypes, brings it in."""
    import subprocess
    import sys

    code = ("import sys, ember.core as E; assert 'ml_dtypes' not in sys.modules; "
            "import ml_dtypes, numpy as np; "
            "t = E.from_numpy(np.ones(3, ml_dtypes.bfloat16)); assert t.dtype is E.bfloat16; "
            "assert E.as_tensor(np.ones(2, ml_dtypes.bfloat16)).dtype is E.bfloat16; "
            "assert (t + 1).dtype is E.bfloat16 and E.bfloat16.np == np.dtype(ml_dtypes.bfloat16)")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
    code = "import sys, ember.core as E; E.zeros(2, dtype=E.bfloat16); assert 'ml_dtypes' in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


@pytest.mark.parametrize("name", ["bfloat16", "float16"])
def test_product_and_quotient_by_a_scalar_keep_it_in_float32(name):
    # PyTorch's CPU mul/div/div_floor kernels read a scalar second operand (a number or a 0-dim tensor) in float32,
    # not rounded to the 16-bit dtype first: x * 0.3 is round(x * float32(0.3))
    npdt = BF if name == "bfloat16" else np.dtype(np.float16)
    x32 = np.random.default_rng(4).standard_normal(400).astype(np.float32)
    xs = x32.astype(npdt).astype(np.float32)
    t = E.from_numpy(x32).to(getattr(E, name))
    s = np.float32(0.3)
    cases = {"mul": (t * 0.3, xs * s), "rmul": (0.3 * t, xs * s), "div": (t / 0.3, xs / s),
             "mul_": (t.clone().mul_(0.3), xs * s), "0-dim": (t * E.tensor(0.3, dtype=E.float64), xs * s),
             "rdiv": (0.3 / t, (np.float32(1) / xs).astype(npdt).astype(np.float32) * s)}
    for case, (got, want) in cases.items():
        assert got.dtype is t.dtype, case
        np.testing.assert_array_equal(got.float().numpy(), want.astype(npdt).astype(np.float32), err_msg=case)


@pytest.mark.parametrize("name", ["bfloat16", "float16"])
def test_floor_division_by_a_scalar_keeps_it_in_float32(name):
    # PyTorch's div_floor kernel too (Python's floor-division steps in float32); rounding 0.3 to the 16-bit dtype
    # first gave other floors for 10% of these bfloat16 values (2.13's bits on 6000 of them)
    npdt = BF if name == "bfloat16" else np.dtype(np.float16)
    t = E.arange(-3000, 3000).to(getattr(E, name)) / 97
    xs, s = t.float().numpy(), np.float32(0.3)
    want = np.floor_divide(xs, s).astype(npdt).astype(np.float32)
    for got in (t // 0.3, E.div(t, E.tensor(0.3), rounding_mode="floor"), E.floor_divide(t, 0.3)):
        assert got.dtype is t.dtype
        np.testing.assert_array_equal(got.float().numpy(), want)
    assert not np.array_equal(np.floor_divide(xs, np.float32(s.astype(npdt))), want)  # the scalar rounded first


def test_reflected_division_is_reciprocal_times_the_number_as_pytorch():
    # PyTorch's Tensor.__rtruediv__ is `self.reciprocal() * other`: two roundings, also in float32
    x = np.random.default_rng(5).standard_normal(500).astype(np.float32)
    got = (0.3 / E.from_numpy(x)).numpy()
    np.testing.assert_array_equal(got, (np.float32(1) / x) * np.float32(0.3))
    assert (3 / E.tensor([2, 4])).tolist() == [1.5, 0.75]


def test_bfloat16_casts_to_integers_go_through_float_as_pytorchs():
    """ml_dtypes' own cast saturates (-8 to uint8 is 0, NaN to int64 is 0); PyTorch's converts the float: 248 and
    INT64_MIN, as float32's cast does."""
    x = E.tensor([float("nan"), -8.0, 300.0, -0.0, 2.5], dtype=E.bfloat16)
    for dt in (E.uint8, E.int8, E.int16, E.int32, E.int64):
        want = x.float().to(dt).tolist()
        assert x.to(dt).tolist() == want
        assert E.zeros(5, dtype=dt).copy_(x).tolist() == want
    assert x.to(E.uint8).tolist()[1] == 248 and x.long().tolist()[0] == -2**63


def test_bfloat16_sign_and_nan_aware_selections_match_float32():
    x = E.tensor([[0.0, -0.0, 1.0, -1.0, 3.0], [0.5, 2.5, -2.5, 3.0, 3.0], [7.0, -8.0, 100.0, 0.25, float("nan")]])
    b = x.to(E.bfloat16)
    s = b.sign().float().numpy()
    assert s.tolist() == [[0.0, 0.0, 1.0, -1.0, 1.0], [1.0, 1.0, -1.0, 1.0, 1.0], [1.0, -1.0, 1.0, 1.0, 0.0]]
    assert not np.signbit(s[s == 0]).any()  # PyTorch's (0 < x) - (x < 0): sign(-0.0) and sign(nan) are +0
    for dim in (0, 1):
        got, want = b.nanmedian(dim), x.nanmedian(dim)
        assert got.values.float().tolist() == want.values.tolist() and got.indices.tolist() == want.indices.tolist()
    seq = E.tensor([1.0, 2.0, float("nan")], dtype=E.bfloat16)
    assert E.searchsorted(seq, E.tensor([float("nan"), 1.5], dtype=E.bfloat16)).tolist() == [3, 1]  # PyTorch 2.13
