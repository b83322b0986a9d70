"""uint16/32/64 and the float8 formats: storage, casts (PyTorch's float8 rounding), promotion errors,
the ops PyTorch 2.13 has for them and its NotImplementedError for the rest, float8 matmul with float32
accumulation; `import ember.core` imports neither ml_dtypes nor the guard."""

import subprocess
import sys

import numpy as np
import pytest

import ember.core as E
from ember.core import dtypes
from ember.core.ops import restricted_dtypes

ml_dtypes = pytest.importorskip("ml_dtypes")

UNSIGNED = [E.uint16, E.uint32, E.uint64]
FLOAT8 = [E.float8_e4m3fn, E.float8_e5m2, E.float8_e4m3fnuz, E.float8_e5m2fnuz, E.float8_e8m0fnu]


@pytest.fixture(autouse=True)
def _no_guard_after():
    yield
    restricted_dtypes.uninstall()  # later tests of the session measure the plain op path


def test_import_loads_neither_ml_dtypes_nor_the_guard():
    code = ("import sys, ember.core as E; from ember.core import dispatch; "
            "assert 'ml_dtypes' not in sys.modules; assert not dispatch._hooks; "
            "E.tensor([1], dtype=E.uint16); assert len(dispatch._hooks) == 1; assert 'ml_dtypes' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("dt", UNSIGNED)
def test_unsigned_storage_casts_and_info(dt):
    info = np.iinfo(dt.np)
    x = E.tensor([0, 1, int(info.max)], dtype=dt)
    assert x.dtype is dt and x.tolist() == [0, 1, int(info.max)] and not dt.is_signed
    assert E.iinfo(dt).max == int(info.max) and E.iinfo(dt).min == 0 and E.iinfo(dt).bits == dt.itemsize * 8
    assert E.from_numpy(np.array([3], dtype=dt.np)).dtype is dt
    assert x.to(E.float64).tolist() == [0.0, 1.0, float(info.max)]
    assert (x * E.tensor([2, 2, 1], dtype=dt)).tolist() == [0, 2, int(info.max)]
    assert x.sum().dtype is E.int64 and (x == 1).tolist() == [False, True, False]
    assert (x ^ E.tensor([1, 1, 0], dtype=dt)).tolist() == [1, 0, int(info.max)]
    assert x.cumsum(0).dtype is E.int64
    m = E.tensor([[0, 1, 2], [3, 4, int(info.max)]], dtype=dt)  # a copying reshape is `_unsafe_view`, as PyTorch's
    assert m.t().reshape(-1).tolist() == [0, 3, 1, 4, 2, int(info.max)] and m.t().flatten().dtype is dt


def test_unsigned_promotion_follows_pytorch():
    for u in UNSIGNED:
        for f in (E.float16, E.bfloat16, E.float32, E.float64):
            assert E.promote_types(u, f) is f and E.promote_types(f, u) is f
        assert E.promote_types(u, u) is u
        for o in (E.bool, E.uint8, E.int8, E.int16, E.int32, E.int64) + tuple(x for x in UNSIGNED if x is not u):
            with pytest.raises(RuntimeError, match="Promotion for uint16, uint32, uint64 types is not supported"):
                E.promote_types(u, o)
    with pytest.raises(RuntimeError, match="attempted to promote UInt16 and Short"):
        E.tensor([1], dtype=E.uint16) + E.tensor([1], dtype=E.int16)


@pytest.mark.parametrize(("fn", "kernel"), [
    (lambda x, y: x + y, "add_stub"), (lambda x, y: x < y, "lt_cpu"), (lambda x, y: -x, "neg_cpu"),
    (lambda x, y: x.max(), "max_all"), (lambda x, y: x.view(1, 3) @ y.view(3, 1), "addmm_impl_cpu_"),
    (lambda x, y: x.flip(0), "flip_cpu"), (lambda x, y: x.gather(0, E.tensor([0])), "scatter_gather_tensor_cpu"),
    (lambda x, y: x << 1, "lshift_cpu"), (lambda x, y: x >> y, "rshift_cpu"), (lambda x, y: ~x, "bitwise_not_cpu"),
    (lambda x, y: E.bitwise_not(x), "bitwise_not_cpu"), (lambda x, y: E.gcd(x, y), "gcd_cpu"),
    (lambda x, y: E.lcm(x, y), "lcm_cpu")])
def test_unsigned_ops_pytorch_lacks_raise_its_error(fn, kernel):
    x, y = E.tensor([1, 2, 3], dtype=E.uint32), E.tensor([3, 4, 5], dtype=E.uint32)
    with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for 'UInt32'"):
        fn(x, y)
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype"):
        x.mean()


@pytest.mark.parametrize(("fn", "kernel"), [
    (lambda x: x.amax(), "max_values_cpu"), (lambda x: x.min(0), "min_cpu"), (lambda x: x.aminmax(), "aminmax_cpu"),
    (lambda x: E.histc(x, 3), "aminmax_cpu"), (lambda x: x.clamp(min=1), "clamp_min_scalar_cpu"),
    (lambda x: x.clamp(max=1), "clamp_max_scalar_cpu"), (lambda x: x.clamp(x, x), "clamp_cpu"),
    (lambda x: E.lerp(x, x, 0.5), "lerp_kernel_scalar"), (lambda x: E.lerp(x, x, x), "lerp_kernel_tensor"),
    (lambda x: x.scatter(0, E.tensor([0]), 5), "scatter_gather_scalar_cpu"),
    (lambda x: x.scatter_reduce(0, E.tensor([0]), x[:1], "amin"), "scatter_gather_tensor_cpu_reduce_amin"),
    (lambda x: x.scatter_add(0, E.tensor([0]), x[:1]), "scatter_gather_tensor_cpu"),
    (lambda x: x.nonzero(), "nonzero_count_cpu"), (lambda x: E.isin(x, x), "isin_default_cpu"),
    (lambda x: x // 2, "div_floor_cpu"), (lambda x: E.div(x, 2, rounding_mode="trunc"), "div_trunc_cpu"),
    (lambda x: x.square(), "pow"), (lambda x: x.dot(x), "dot"), (lambda x: x.flip(-1), "flip_cpu"),
    (lambda x: x.sum(dtype=E.uint32), "sum_cpu"), (lambda x: E.tensor([1]).cumsum(0, dtype=E.uint32), "cumsum_out_cpu"),
    (lambda x: x.cumprod(0, dtype=E.uint32), "cumprod_out_cpu"), (lambda x: x.prod(dtype=E.uint32), "prod_out_cpu")])
def test_unsigned_refusals_name_pytorchs_kernel(fn, kernel):
    """The kernel PyTorch's message names, which for some ops depends on the arguments (a number or a tensor,
    the reduction) and for reductions on the dtype accumulated into."""
    with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for 'UInt32'$"):
        fn(E.tensor([1, 2, 3], dtype=E.uint32))


def test_unsigned_ops_pytorch_has_compute_as_it_does():
    """cumprod and nansum accumulate in int64, unique_consecutive and isclose keep the dtype's values, a flip of
    dims other than the innermost in memory moves whole rows; var and a negative power fail PyTorch's checks."""
    x = E.tensor([[3, 0], [65535, 2]], dtype=E.uint16)
    assert x.cumprod(1).tolist() == [[3, 0], [65535, 131070]] and x.cumprod(0).dtype is E.int64
    assert x.nansum().item() == 65540 and x.flatten().unique_consecutive().tolist() == [3, 0, 65535, 2]
    assert E.isclose(x, E.tensor(3, dtype=E.uint16), atol=1).tolist() == [[True, False], [False, True]]
    assert x.flip(0).tolist() == [[65535, 2], [3, 0]]
    with pytest.raises(NotImplementedError, match="flip_cpu"):
        x.t().flip(0)  # dim 0 of the transpose is the innermost in memory
    with pytest.raises(RuntimeError, match="^std and var only support floating point and complex dtypes$"):
        x.var()
    with pytest.raises(RuntimeError, match="^Integers to negative integer powers are not allowed.$"):
        x ** -1


def test_a_number_no_scalar_holds_is_refused_before_the_missing_kernel():
    x = E.tensor([1], dtype=E.uint16)
    with pytest.raises(OverflowError, match="^int too big to convert$"):
        x + 2**64
    with pytest.raises(OverflowError, match="^can't convert negative int to unsigned$"):
        x + (-(2**63) - 1)


def test_unsigned_pow_answers_what_needs_no_kernel():
    """PyTorch fills ones for an exponent of 0 (or a base of 1), copies for 1, and computes a float exponent in
    float32; an integer exponent of 2 or a tensor exponent reaches the missing kernel."""
    x = E.tensor([3, 1], dtype=E.uint32)
    assert (x**0).tolist() == [1, 1] and (x**0).dtype is E.uint32 and (x**True).tolist() == [3, 1]
    assert E.pow(1, x).tolist() == [1, 1] and (x**0.5).dtype is E.float32
    assert (x**0.5).tolist() == pytest.approx([3**0.5, 1.0])
    for fn in (lambda: x**2, lambda: x ** E.tensor(0, dtype=E.uint32), lambda: E.pow(2, x)):
        with pytest.raises(NotImplementedError, match="^\"pow\" not implemented for 'UInt32'$"):
            fn()


def test_a_zero_dim_int_operand_does_not_take_part_in_unsigned_promotion():
    """uint16 with a 0-dim int64 is uint16 (PyTorch's result_type), so the kernel lookup decides, not promotion."""
    x = E.tensor([3, 1], dtype=E.uint16)
    assert (x * E.tensor(2)).tolist() == [6, 2] and (x * E.tensor(2)).dtype is E.uint16
    assert (x & E.tensor(1)).tolist() == [1, 1] and (x == E.tensor(1)).tolist() == [False, True]
    with pytest.raises(NotImplementedError, match="^\"add_stub\" not implemented for 'UInt16'$"):
        x + E.tensor(1)
    with pytest.raises(RuntimeError, match="attempted to promote UInt16 and Long"):
        x == E.tensor([1])


def test_unsigned_bitwise_and_or_xor_work_as_in_pytorch():
    x = E.tensor([6, 2**32 - 1], dtype=E.uint32)
    assert (x & 3).tolist() == [2, 3] and (x | 1).tolist() == [7, 2**32 - 1] and (x ^ x).tolist() == [0, 0]


def test_float8_casts_follow_pytorch_not_ml_dtypes():
    v = [1e6, -1e6, float("inf"), float("nan"), 0.3, -0.0, 240.0, 250.0]
    # PyTorch 2.13's values (e4m3fn saturates; e8m0fnu keeps the exponent of |x|)
    expected = {
        E.float8_e4m3fn: [448.0, -448.0, 448.0, "nan", 0.3125, -0.0, 240.0, 256.0],
        E.float8_e5m2: [float("inf"), float("-inf"), float("inf"), "nan", 0.3125, -0.0, 256.0, 256.0],
        E.float8_e4m3fnuz: ["nan", "nan", "nan", "nan", 0.3125, 0.0, 240.0, "nan"],
        E.float8_e5m2fnuz: ["nan", "nan", "nan", "nan", 0.3125, 0.0, 256.0, 256.0],
        E.float8_e8m0fnu: [1048576.0, 1048576.0, "nan", "nan", 0.25, 2.0 ** -127, 256.0, 256.0]}
    src = E.tensor(v)
    for dt, want in expected.items():
        for got in (src.to(dt).float().tolist(), E.tensor(v, dtype=dt).float().tolist(),
                    E.zeros(len(v), dtype=dt).copy_(src).float().tolist()):
            assert [("nan" if g != g else g) for g in got] == want, dt
        assert dt.itemsize == 1 and dt.is_floating_point
    assert not E.float8_e8m0fnu.is_signed and E.float8_e4m3fn.is_signed


def test_float8_finfo_is_pytorchs():
    f = E.finfo(E.float8_e4m3fn)
    assert (f.bits, f.eps, f.max, f.min, f.tiny, f.resolution) == (8, 0.125, 448.0, -448.0, 0.015625, 1.0)
    assert E.finfo(E.float8_e5m2).max == 57344.0 and E.finfo(E.float8_e5m2fnuz).eps == 0.125
    assert E.finfo(E.float8_e8m0fnu).min == 2.0 ** -127


def test_float8_matmul_accumulates_in_float32_and_rounds_once():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 16)).astype(np.float32), rng.standard_normal((16, 2)).astype(np.float32)
    for dt in (E.float8_e4m3fn, E.float8_e5m2):
        a8, b8 = E.tensor(a).to(dt), E.tensor(b).to(dt)
        r = a8 @ b8
        ref = (a8.float()._np().astype(np.float64) @ b8.float()._np().astype(np.float64)).astype(np.float32)
        assert r.dtype is dt
        assert r.float().tolist() == E.tensor(ref).to(dt).float().tolist()
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype, but got: "
                                           "c10::Float8_e4m3fn != c10::Float8_e5m2"):
        E.tensor(a).to(E.float8_e4m3fn) @ E.tensor(b).to(E.float8_e5m2)


def test_float8_storage_ops_work_and_arithmetic_raises():
    a = E.tensor([[1.0, 2.0], [3.0, -4.5]]).to(E.float8_e4m3fn)
    assert a.t().contiguous().float().tolist() == [[1.0, 3.0], [2.0, -4.5]]
    assert a.t().reshape(-1).float().tolist() == [1.0, 3.0, 2.0, -4.5]  # a copying reshape (`_unsafe_view`)
    assert E.cat([a, a]).shape == (4, 2) and a.abs().float().tolist() == [[1.0, 2.0], [3.0, 4.5]]
    assert a.view(E.uint8).tolist() == [[56, 64], [68, 201]]
    assert (a == a).all().item() and "dtype=ember.float8_e4m3fn" in repr(a)
    for fn, kernel in ((lambda: a + a, "add_stub"), (lambda: a.sum(), "sum_cpu"), (lambda: -a, "neg_cpu")):
        with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for 'Float8_e4m3fn'"):
            fn()
    with pytest.raises(RuntimeError, match="Promotion for Float8 Types is not supported, attempted to promote "
                                           "Float8_e4m3fn and Float"):
        dtypes.promote_types(E.float8_e4m3fn, E.float32)


@pytest.mark.torch
def test_against_pytorch():
    torch = pytest.importorskip("torch")
    v = [1e6, -1e6, float("inf"), float("nan"), 0.3, -0.0, 1e-9, 250.0]
    for dt in FLOAT8:
        got = E.tensor(v).to(dt).float()._np()
        want = torch.tensor(v).to(getattr(torch, dt.name)).float().numpy()
        np.testing.assert_array_equal(got, want)
    for u in UNSIGNED:
        for o in (E.int32, E.float32, E.bool):
            try:
                mine = E.promote_types(u, o).name
            except RuntimeError:
                mine = "error"
            try:
                theirs = str(torch.promote_types(getattr(torch, u.name), getattr(torch, o.name))).split(".")[1]
            except RuntimeError:
                theirs = "error"
            assert mine == theirs


def test_finfo_and_iinfo_cover_every_dtype():
    floats = [E.float16, E.bfloat16, E.float32, E.float64] + FLOAT8
    ints = [E.uint8, E.int8, E.int16, E.int32, E.int64] + UNSIGNED
    for dt in floats:
        f = E.finfo(dt)
        assert f.bits == dt.itemsize * 8 and f.max > 0 and f.eps > 0 and f.dtype == dt.name
        with pytest.raises(TypeError):
            E.iinfo(dt)
    for dt in ints:
        i = E.iinfo(dt)
        assert (i.min, i.max, i.bits) == (int(np.iinfo(dt.np).min), int(np.iinfo(dt.np).max), dt.itemsize * 8)
        with pytest.raises(TypeError):
            E.finfo(dt)
    with pytest.raises(TypeError, match="torch.bool is not supported by torch.iinfo"):
        E.iinfo(E.bool)


@pytest.mark.torch
def test_finfo_iinfo_against_pytorch():
    torch = pytest.importorskip("torch")
    for dt in [E.float16, E.bfloat16, E.float32, E.float64] + FLOAT8:
        mine, theirs = E.finfo(dt), torch.finfo(getattr(torch, dt.name))
        for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
            assert getattr(mine, field) == getattr(theirs, field), (dt, field)
    for dt in [E.uint8, E.int8, E.int16, E.int32, E.int64] + UNSIGNED:
        mine, theirs = E.iinfo(dt), torch.iinfo(getattr(torch, dt.name))
        assert (mine.min, mine.max, mine.bits) == (theirs.min, theirs.max, theirs.bits)


def _counting_fresh_hook(seen: list):
    """A hook that records op names and, like autograd's, ignores fresh fills (so it keeps `dispatch.bare`)."""
    def hook(op, args, kwargs, call_next):
        seen.append(op.name)
        return call_next(op, args, kwargs)

    hook.ignores_fresh = True
    return hook


def test_factories_keep_their_fast_path_after_a_restricted_dtype_is_used():
    """The guard ignores fresh tensors: once uint16 is used, `zeros`/`ones`/`empty`/`rand` (and theirs of uint16)
    still fill with numpy, not the `fill_` op, while the guard's errors stay as PyTorch's."""
    from ember.core import dispatch

    E.tensor([1], dtype=E.uint16)  # installs the guard
    assert restricted_dtypes._guard in dispatch._hooks and dispatch.bare
    seen: list = []
    hook = dispatch.register_dispatch_hook(_counting_fresh_hook(seen))
    try:
        made = [E.zeros(3), E.ones(2, 2), E.empty(4), E.rand(3), E.zeros(3, dtype=E.uint16), E.ones(2, dtype=E.uint64),
                E.zeros_like(E.empty(2, dtype=E.uint32))]
        assert seen == []  # no op at all: each took numpy's path
        assert made[4].tolist() == [0, 0, 0] and made[5].tolist() == [1, 1] and made[6].dtype is E.uint32
        with pytest.raises(RuntimeError, match="value cannot be converted to type uint16_t without overflow"):
            E.full((2,), 70000, dtype=E.uint16)
        with pytest.raises(NotImplementedError, match="\"add_stub\" not implemented for 'UInt16'"):
            E.zeros(2, dtype=E.uint16) + 1
        with pytest.raises(NotImplementedError, match="not implemented for 'UInt16'"):
            E.rand(2, dtype=E.uint16)
        with pytest.raises(RuntimeError, match="Promotion for uint16, uint32, uint64 types is not supported"):
            E.cat([E.zeros(2, dtype=E.uint16), E.zeros(2, dtype=E.int64)])
    finally:
        dispatch.remove_dispatch_hook(hook)


@pytest.mark.parametrize("dt", UNSIGNED + [E.float8_e4m3fn, E.float8_e8m0fnu])
def test_random_fills_are_pytorchs_kernels_and_refusals(dt):
    """PyTorch 2.13's words for each sampler it has no kernel for; uint16/32/64 draw bounded integers (`randint`,
    `random_(from, to)`) as int64 does, the same numbers."""
    torch_name = dtypes.TORCH_NAMES[dt.name]
    refusals = [(lambda: E.rand(2, dtype=dt), "check_uniform_bounds"),
                (lambda: E.empty(2, dtype=dt).uniform_(), "check_uniform_bounds"),
                (lambda: E.empty(2, dtype=dt).normal_(), "normal_kernel_cpu"),
                (lambda: E.empty(2, dtype=dt).bernoulli_(), "bernoulli_scalar_cpu_"),
                (lambda: E.empty(2, dtype=dt).bernoulli_(E.full((2,), 0.5)), "bernoulli_tensor_cpu_self_"),
                (lambda: E.empty(2, dtype=dt).random_(), "random_kernel_cpu"),
                (lambda: E.randperm(3, dtype=dt), "randperm")]
    if dt in FLOAT8:
        refusals += [(lambda: E.randint(3, (2,), dtype=dt), "random_update_from_to"),
                     (lambda: E.empty(2, dtype=dt).exponential_(), "exponential_cpu")]
    for call, kernel in refusals:
        with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for '{torch_name}'$"):
            call()
    if dt in FLOAT8:
        return
    with pytest.raises(RuntimeError, match="^Exponential distribution is a continuous probability distribution. dtype "
                                           f"must be a floating point but you specified {torch_name}$"):
        E.empty(2, dtype=dt).exponential_()
    E.manual_seed(0)
    want = E.randint(10, (5,)).tolist()
    E.manual_seed(0)
    got = E.randint(10, (5,), dtype=dt)
    assert got.dtype is dt and got.tolist() == want
    E.manual_seed(0)
    want = E.empty(5, dtype=E.int64).random_(3, 10).tolist()
    E.manual_seed(0)
    assert E.empty(5, dtype=dt).random_(3, 10).tolist() == want
    with pytest.raises(RuntimeError, match="^from is out of bounds for "):
        E.randint(-1, 3, (2,), dtype=dt)


@pytest.mark.parametrize("make", [lambda dt: E.zeros(2, dtype=dt), lambda dt: E.empty(2, dtype=dt),
                                  lambda dt: E.ones(2, dtype=dt)])
def test_a_factory_on_the_fast_path_is_a_first_use_that_installs_the_guard(make):
    from ember.core import dispatch

    restricted_dtypes.uninstall()
    x = make(E.uint16)
    assert restricted_dtypes._guard in dispatch._hooks and dispatch.bare
    with pytest.raises(NotImplementedError, match="^\"add_stub\" not implemented for 'UInt16'$"):
        x + 1


def _bits(t) -> list:
    return t.view(E.uint8).tolist()


@pytest.mark.parametrize("dt, value, one, overflows", [
    # PyTorch 2.13's bits for `full((1,), value)` (converted unchecked) and whether `full((2,), value)` overflows
    (E.float8_e4m3fn, 449.0, 126, True), (E.float8_e4m3fn, 448.0, 126, False), (E.float8_e4m3fn, np.inf, 126, True),
    (E.float8_e4m3fn, -np.inf, 254, True), (E.float8_e4m3fn, np.nan, 127, False), (E.float8_e4m3fn, -241.0, 247, False),
    (E.float8_e5m2, 57345.0, 123, True), (E.float8_e5m2, np.inf, 124, False), (E.float8_e5m2, np.nan, 127, False),
    (E.float8_e4m3fnuz, 241.0, 127, True), (E.float8_e4m3fnuz, np.nan, 128, False),
    (E.float8_e5m2fnuz, np.inf, 128, True), (E.float8_e8m0fnu, 0.0, 0, True), (E.float8_e8m0fnu, -1.0, 127, True),
    (E.float8_e8m0fnu, -3.0, 129, True), (E.float8_e8m0fnu, 2.0 ** 127, 254, False),
    (E.float8_e8m0fnu, 2.0 ** -127, 0, False), (E.float8_e8m0fnu, 2.0 ** 128, 255, True),
])
def test_float8_fill_converts_and_checks_as_pytorch(dt, value, one, overflows):
    assert _bits(E.full((1,), value, dtype=dt)) == [one]
    if overflows:
        with pytest.raises(RuntimeError, match=f"^value cannot be converted to type c10::{dtypes.TORCH_NAMES[dt.name]} "
                                               "without overflow$"):
            E.full((2,), value, dtype=dt)
        value_tensor = E.tensor(value, dtype=E.float64)  # a tensor value: converted unchecked
        assert _bits(E.zeros(2, dtype=dt).fill_(value_tensor)) == [one] * 2
    else:
        assert _bits(E.full((2,), value, dtype=dt)) == [one] * 2


def test_float8_e8m0fnu_zeros_are_zero_bits_as_pytorchs_memset():
    assert _bits(E.zeros(3, dtype=E.float8_e8m0fnu)) == [0] * 3  # 2**-127: the format has no zero
    assert _bits(E.ones(2, dtype=E.float8_e8m0fnu).zero_()) == [0, 0]
    x = E.ones(2, dtype=E.float8_e8m0fnu)
    assert _bits(x.new_zeros(3)) == [0] * 3 and _bits(E.zeros_like(x)) == [0, 0]
