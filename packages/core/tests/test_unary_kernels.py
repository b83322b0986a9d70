"""Eager's float32/float64 transcendental ops run the loops over ember.core.ops.vector_math's scalar functions
(NOTE [ Eager and fused transcendentals share one implementation ]): in every layout, with `out=` and in place."""

from __future__ import annotations

import numpy as np
import pytest

import ember.core as ec
from ember.core.ops import unary_kernels
from ember.core.ops.vector_math import SCALAR

_NAMES = unary_kernels.NAMES
_POSITIVE = ("log", "log2", "log10", "acosh")  # where a random normal input would be mostly NaN


def _input(name: str, shape, dtype) -> np.ndarray:
    x = np.random.default_rng(len(name)).standard_normal(shape) * 3
    if name in _POSITIVE:
        x = np.abs(x) + (1.0 if name == "acosh" else 0.0)
    if name in ("asin", "acos", "atanh"):
        x = np.tanh(x)
    return np.asarray(x, dtype)


def _loop(name: str, x: np.ndarray) -> np.ndarray:
    """The op's serial loop applied to a C-contiguous copy of x, reshaped back."""
    serial, _ = unary_kernels._loops(name)
    c = np.ascontiguousarray(x)
    r = np.empty_like(c)
    serial(c.ravel(), r.ravel())
    return r


def _bits(a) -> np.ndarray:
    a = np.asarray(a)
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def test_every_name_has_both_dtypes():
    assert set(_NAMES) == set(SCALAR)
    assert all(f32 is not None and f64 is not None for f32, f64 in SCALAR.values())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", _NAMES)
def test_eager_op_is_the_shared_loop_in_every_layout(name, dtype):
    op = getattr(ec, name)
    base = _input(name, (6, 10), dtype)
    want = _loop(name, base)
    for view, ref in ((base, want), (base.T, want.T), (base[::2, 1::3], want[::2, 1::3]), (base[0, 0], want[0, 0])):
        got = op(ec.tensor(view) if view.ndim else ec.tensor(float(view), dtype=ec.float32 if dtype == np.float32
                                                               else ec.float64))
        np.testing.assert_array_equal(_bits(got.numpy()), _bits(ref))
    assert op(ec.tensor(base[:0])).shape == (0, 10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_ndim_and_layout_runs_the_one_loop_compiled_for_its_dtype(dtype):
    """NOTE [ One compile per dtype ]: after a 1-D call, other ndims, layouts, `out=` and in place compile nothing
    more, and each gives the 1-D call's bits, within 1 ulp of float64 numpy."""
    serial, parallel = unary_kernels._loops("sin")
    flat = _input("sin", 120, dtype)
    want = ec.sin(ec.tensor(flat)).numpy()
    ulp = np.spacing(np.abs(want)).astype(np.float64)
    assert (np.abs(want - np.sin(flat.astype(np.float64))) <= ulp).all()
    compiled = {"serial": set(serial.signatures), "parallel": set(parallel.signatures)}
    assert all(a.ndim == 1 for sig in compiled["serial"] for a in sig)
    for shape in [(120,), (12, 10), (2, 6, 10), (2, 3, 2, 10)]:
        x, ref = flat.reshape(shape), want.reshape(shape)
        for view, expect in ((x, ref), (x.T, ref.T), (x[..., ::2], ref[..., ::2])):
            got = ec.sin(ec.tensor(view)).numpy()
            np.testing.assert_array_equal(_bits(got), _bits(expect))
        out = ec.empty(*shape, dtype=ec.float32 if dtype == np.float32 else ec.float64)
        ec.sin(ec.tensor(x), out=out)
        t = ec.tensor(x)
        t.sin_()
        np.testing.assert_array_equal(_bits(out.numpy()), _bits(ref))
        np.testing.assert_array_equal(_bits(t.numpy()), _bits(ref))
    np.testing.assert_array_equal(_bits(ec.sin(ec.tensor(flat[:1]).reshape(())).numpy()), _bits(want[0]))
    assert {"serial": set(serial.signatures), "parallel": set(parallel.signatures)} == compiled


@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid", "sin", "log", "atan"])
def test_out_and_in_place_are_the_shared_loop(name):
    base = _input(name, (5, 8), np.float32)
    want = _loop(name, base)
    op = getattr(ec, name)
    out = ec.empty(5, 8)
    assert op(ec.tensor(base), out=out) is out
    np.testing.assert_array_equal(_bits(out.numpy()), _bits(want))
    wide = ec.zeros(5, 16)
    op(ec.tensor(base), out=wide[:, ::2])  # a strided out
    np.testing.assert_array_equal(_bits(wide.numpy()[:, ::2]), _bits(want))
    assert (wide.numpy()[:, 1::2] == 0).all()
    t = ec.tensor(base)
    getattr(t, name + "_")()
    np.testing.assert_array_equal(_bits(t.numpy()), _bits(want))


def test_integer_input_computes_in_the_default_float_dtype():
    got = ec.exp(ec.tensor([0, 1, 2]))
    assert got.dtype == ec.float32
    np.testing.assert_array_equal(_bits(got.numpy()), _bits(_loop("exp", np.array([0, 1, 2], np.float32))))


def test_other_dtypes_keep_numpy():
    h = ec.sigmoid(ec.tensor([1.0, -2.0], dtype=ec.float16))
    assert h.dtype == ec.float16
    np.testing.assert_allclose(h.numpy().astype(np.float64), 1 / (1 + np.exp([-1.0, 2.0])), rtol=1e-3)
    c = ec.exp(ec.tensor(np.array([1 + 1j], np.complex64)))
    np.testing.assert_allclose(c.numpy(), np.exp(np.array([1 + 1j])), rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_parallel_loop_gives_the_serial_bits(dtype):
    x = _input("tanh", 5000, dtype)
    for name in ("exp", "tanh", "sigmoid", "sin"):
        serial, parallel = unary_kernels._loops(name)
        a, b = np.empty_like(x), np.empty_like(x)
        serial(x, a)
        parallel(x, b)
        np.testing.assert_array_equal(_bits(a), _bits(b))


def test_small_tensors_launch_no_parallel_loop(monkeypatch):
    """Below PARALLEL_MIN elements an op runs its serial loop: a parallel launch wakes the thread pool, which on a
    busy machine waits for a descheduled worker (docs/benchmarks.md, "Stop 31: eager threading")."""
    loops = unary_kernels._loops
    launches = []

    def counting(name):
        serial, parallel = loops(name)

        def launch(x, o):
            launches.append(x.size)
            parallel(x, o)

        return serial, launch

    monkeypatch.setattr(unary_kernels, "_loops", counting)
    monkeypatch.setattr(unary_kernels, "_ENTRY", {})
    for shape in [(10, 10), (16, 512), (192, 512), (unary_kernels.PARALLEL_MIN - 1,)]:
        x = ec.ones(*shape)
        ec.tanh(x), ec.sigmoid(x), ec.exp(x)
        ec.tanh(x, out=ec.empty(*shape))
    assert launches == []
    ec.tanh(ec.ones(unary_kernels.PARALLEL_MIN))
    assert launches == [unary_kernels.PARALLEL_MIN]


@pytest.mark.parametrize("name", ["sigmoid", "silu"])
def test_sigmoid_and_silu_float32_within_3_ulp(name):
    # exp32 within 1 ulp, then 1 + e, the division (and silu's product) round: the formula's error, as numpy's
    # from -87: below it exp(-x) overflows float32 and the formula gives 0, as numpy's did
    x = np.concatenate([np.linspace(-87, 90, 200_001), np.geomspace(1e-30, 1, 2000)]).astype(np.float32)
    x64 = x.astype(np.float64)
    ref = 1 / (1 + np.exp(-x64)) if name == "sigmoid" else x64 / (1 + np.exp(-x64))
    got = getattr(ec, name)(ec.tensor(x)).numpy()
    ulp = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    assert (np.abs(got - ref) <= 3 * ulp).all()


def test_specials_as_numpy():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 100.0, -200.0], np.float32)
    for name, ref in (("exp", np.exp), ("tanh", np.tanh), ("sin", np.sin), ("cos", np.cos), ("log1p", np.log1p),
                      ("sigmoid", lambda v: 1 / (1 + np.exp(-v)))):
        with np.errstate(all="ignore"):
            want = ref(x.astype(np.float64)).astype(np.float32)
        got = getattr(ec, name)(ec.tensor(x)).numpy()
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=name)
        np.testing.assert_allclose(got[~np.isnan(got)], want[~np.isnan(want)], rtol=2.5e-7, atol=1e-45, err_msg=name)
        np.testing.assert_array_equal(np.signbit(got[:2]), np.signbit(want[:2]), err_msg=name)  # -0.0 kept


@pytest.mark.torch
@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid", "sin", "cos", "log", "log2", "log10", "log1p", "silu"])
def test_float32_within_a_few_ulp_of_torch(name):
    torch = pytest.importorskip("torch")
    x = _input(name, 100_000, np.float32)
    if name == "log1p":
        x = np.abs(x)
    got = getattr(ec, name)(ec.tensor(x)).numpy()
    fn = torch.nn.functional.silu if name == "silu" else getattr(torch, name)
    want = fn(torch.from_numpy(x)).numpy()
    ulp = np.spacing(np.abs(want)).astype(np.float64)
    assert (np.abs(got.astype(np.float64) - want) <= 4 * ulp).all()


def test_unary_entry_fast_path_matches_the_dispatcher_for_any_ndim_and_read_only_input():
    impl = unary_kernels.implementation("exp", np.exp)
    for ndim in range(4):
        x = _input("exp", (3,) * ndim, np.float32)
        want = _loop("exp", x)
        for _ in range(2):  # the first call finds the compiled entry, the second takes it
            np.testing.assert_array_equal(_bits(impl(x)), _bits(want))
        ro = x.copy()
        ro.flags.writeable = False
        np.testing.assert_array_equal(_bits(impl(ro)), _bits(want))
    x = _input("exp", (4, 5), np.float64)
    got = unary_kernels.unary("exp", x, np.float32)  # numpy's `dtype=`: computed in float32
    assert got.dtype == np.float32
    np.testing.assert_array_equal(_bits(got), _bits(_loop("exp", x.astype(np.float32))))
    assert unary_kernels.unary("exp", x.astype(np.float16)) is None
    np.testing.assert_array_equal(impl(x.astype(np.float16)), np.exp(x.astype(np.float16)))


@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid", "log1p", "sin", "cos"])
def test_eager_loops_vectorize(name):
    # the loop calls the op's function (not inlined by Numba, to compile faster): LLVM must still inline it and
    # vectorize the loop, or the op runs one value at a time
    import re

    import numba

    cached, _ = unary_kernels._loops(name)
    serial = numba.njit(**cached.targetoptions)(cached.py_func)  # compiled here: a disk-cached kernel has no IR
    x = np.abs(np.linspace(-3, 3, 64, dtype=np.float32))
    serial(x, np.empty_like(x))
    ir = "".join(serial.inspect_llvm().values())
    assert re.search(r"<(4|8|16) x float>", ir), name


@pytest.mark.parametrize("name", ["sin", "cos"])
def test_float32_sin_cos_past_2_pow_29_are_the_fully_reduced_values(name):
    # NOTE [ float32 sin and cos past 2^29 ]: those values computed again in float64, the rest keep the loop's bits
    small = _input(name, (40,), np.float32)
    huge = np.array([1e30, -1e30, 2.0 ** 29, -7e12, 3e38, 1e10], np.float32)
    x = np.concatenate([small, huge, np.array([np.inf, -np.inf, np.nan], np.float32)])
    with np.errstate(invalid="ignore"):
        want = getattr(np, name)(x.astype(np.float64)).astype(np.float32)
    assert want[40] == np.float32(-0.79116344 if name == "sin" else -0.6116048)  # sin/cos(1e30), as PyTorch's
    big = np.tile(x, 1 << 15)  # the parallel loop
    for got in (getattr(ec, name)(ec.tensor(x)).numpy(), getattr(ec, name)(ec.tensor(x.reshape(7, 7)).t()).numpy().T
                .ravel(), getattr(ec, name)(ec.tensor(big)).numpy()[-x.size:]):
        np.testing.assert_array_equal(_bits(got[40:46]), _bits(want[40:46]))
        np.testing.assert_array_equal(_bits(got[:40]), _bits(_loop(name, small)))
        assert np.isnan(got[46:]).all()
    out = ec.empty(x.size)
    getattr(ec, name)(ec.tensor(x), out=out)
    np.testing.assert_array_equal(_bits(out.numpy()[40:46]), _bits(want[40:46]))
    assert not unary_kernels._loops(name)[0](huge.astype(np.float64), np.empty(6))  # float64's libm form is exact
