"""Fusion: elementwise groups replayed as one generated Numba kernel (config.fuse), against eager."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import ember.autograd as ea
import ember.jit as jit


@pytest.fixture(autouse=True)
def _fuse(monkeypatch):
    monkeypatch.setattr(jit.config, "fuse", True)


def _t(*shape, seed=0, dtype=np.float32, requires_grad=False):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return ea.tensor(a, requires_grad=requires_grad)


def _np(t):
    return t.detach().numpy()


def chain(x):
    y = (x * 1.5 + 0.25).sin()
    y = (y * y - 0.5).exp().tanh() / 3.0
    return y.sigmoid() + x


def _replays(c, *args):
    for _ in range(3):
        out = c(*args)
    return out


@pytest.mark.parametrize("dtype,rtol,atol", [(np.float32, 1e-6, 1e-7), (np.float64, 1e-13, 1e-16)])
def test_fused_forward_matches_eager(dtype, rtol, atol):
    c = jit.compile(chain)
    x = _t(5, 7, dtype=dtype)
    got = _replays(c, x)
    assert c.explain().ops_per_graph == [["fused[mul, add, sin, mul, sub, exp, tanh, div, sigmoid, add]"]]
    assert got.dtype == x.dtype and got.shape == (5, 7)
    # exp/sin/tanh come from LLVM's libm in the kernel and numpy's loops in eager: an ulp apart at most
    # (atol: the last `+ x` cancels to near zero in places, where one ulp of the terms is a large relative error)
    np.testing.assert_allclose(_np(got), _np(chain(x)), rtol=rtol, atol=atol)
    # the float64 reference: the fused float32 kernel computes in float32 as eager does
    ref = 1 / (1 + np.exp(-np.tanh(np.exp(np.sin(_np(x).astype(np.float64) * 1.5 + 0.25) ** 2 - 0.5)) / 3.0))
    np.testing.assert_allclose(_np(got), ref + _np(x), rtol=5 * rtol, atol=5 * atol)


def test_nan_and_inf_propagate_as_eager():
    def f(x):
        return (x.log() * 2.0 + 1.0).sqrt().neg()

    c = jit.compile(f)
    x = ea.tensor(np.array([-1.0, 0.0, np.inf, np.nan, 4.0, 1e-30], np.float32))
    got, want = _np(_replays(c, x)), _np(f(x))
    assert c.explain().ops_per_graph == [["fused[log, mul, add, sqrt, neg]"]]
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[~np.isnan(got)], want[~np.isnan(want)])


def test_division_by_zero_gives_inf_not_an_error():
    c = jit.compile(lambda x, y: (x / y).relu() * 2.0)
    x, y = ea.tensor(np.array([1.0, -1.0, 0.0], np.float32)), ea.zeros(3)
    np.testing.assert_array_equal(_np(_replays(c, x, y)), np.array([np.inf, 0.0, np.nan], np.float32))


def test_training_step_backward_chain_fuses():
    w0 = _t(4, 6, seed=1)

    def step(x, w):
        w.grad = None
        loss = chain(x * w).sum()
        loss.backward()
        return loss, w.grad

    we, wc = ea.tensor(_np(w0), requires_grad=True), ea.tensor(_np(w0), requires_grad=True)
    c = jit.compile(step)
    for i in range(4):
        x = _t(4, 6, seed=10 + i)
        le, ge = step(x, we)
        lc, gc = c(x, wc)
        np.testing.assert_allclose(_np(lc), _np(le), rtol=1e-6)
        np.testing.assert_allclose(_np(gc), _np(ge), rtol=1e-5, atol=1e-7)
    ops = c.explain().ops_per_graph[0]
    fused = [o for o in ops if o.startswith("fused[")]
    assert any("cos" in o for o in fused), ops  # sin's derivative: a backward op fused


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sigmoid_and_tanh_backward_fuse_with_eager_bits(dtype):
    """`sigmoid_backward` and `tanh_backward` (grad, result) join the backward's group: one fused node for the whole
    chain's gradient, bit for bit eager's (they split it into six nodes when they did not fuse)."""
    def step(x):
        x.grad = None
        ((x * 1.5).sigmoid().tanh() * x).sum().backward()
        return x.grad

    xe, xc = _t(8, 16, seed=3, dtype=dtype, requires_grad=True), _t(8, 16, seed=3, dtype=dtype, requires_grad=True)
    c = jit.compile(step)
    for _ in range(4):
        assert np.array_equal(_np(c(xc)), _np(step(xe)))
    ops = c.explain().ops_per_graph[0]
    assert not [o for o in ops if o in ("sigmoid_backward", "tanh_backward")], ops
    assert any("sigmoid_backward" in o and "tanh_backward" in o for o in ops if o.startswith("fused[")), ops


def test_escaping_intermediate_is_written_out():
    def f(x):
        a = x * 2.0
        return a, (a + 1.0).exp()

    c = jit.compile(f)
    x = _t(3, 4)
    a, b = _replays(c, x)
    assert c.explain().ops_per_graph == [["fused[mul, add, exp]"]]
    np.testing.assert_array_equal(_np(a), _np(x) * 2.0)  # mul: bitwise eager
    np.testing.assert_allclose(_np(b), _np(f(x)[1]), rtol=1e-6)
    a2, _ = c(_t(3, 4, seed=5))
    np.testing.assert_array_equal(_np(a), _np(x) * 2.0)  # the next replay does not overwrite it


def test_intermediate_read_by_an_unfused_op_closes_the_group():
    def f(x):
        a = x * 2.0
        s = a.mean()  # not fused (a `sum` would close the group as its epilogue: test_fusion_epilogue.py)
        return (a + 1.0).exp(), s

    c = jit.compile(f)
    x = _t(3, 4)
    e, s = _replays(c, x)
    assert c.explain().ops_per_graph == [["mul", "mean", "fused[add, exp]"]]
    np.testing.assert_allclose(_np(e), _np(f(x)[0]), rtol=1e-6)
    np.testing.assert_array_equal(_np(s), _np(f(x)[1]))


def test_mixed_dtypes_stay_unfused():
    def f(x, y):
        return (x * y).exp().tanh(), (x + 1).neg()

    c = jit.compile(f)
    x, y = _t(3, 4), _t(3, 4, seed=1, dtype=np.float64)
    (p, q) = _replays(c, x, y)
    # float32 * float64 promotes: that mul stays alone; the float64 exp/tanh and the float32 add/neg fuse apart
    assert c.explain().ops_per_graph == [["mul", "fused[exp, tanh]", "fused[add, neg]"]]
    assert p.dtype == ea.float64 and q.dtype == ea.float32
    np.testing.assert_allclose(_np(p), _np(f(x, y)[0]), rtol=1e-13)
    np.testing.assert_array_equal(_np(q), _np(f(x, y)[1]))


def test_int_operands_stay_unfused():
    def f(x, b, i):
        return (x + b).exp().neg(), (i * 2 + 1)

    c = jit.compile(f)
    x, b, i = _t(3, 4), _t(4, seed=1), ea.arange(12).reshape(3, 4)
    p, q = _replays(c, x, b, i)
    # the row-vector broadcast fuses (test_fusion_epilogue.py), the int64 chain does not
    assert c.explain().ops_per_graph == [["fused[add, exp, neg]", "mul", "add"]]
    np.testing.assert_allclose(_np(p), _np(f(x, b, i)[0]), rtol=1e-6)
    np.testing.assert_array_equal(_np(q), np.arange(12).reshape(3, 4) * 2 + 1)


def test_config_fuse_off(monkeypatch):
    monkeypatch.setattr(jit.config, "fuse", False)
    c = jit.compile(chain)
    x = _t(3)
    np.testing.assert_array_equal(_np(_replays(c, x)), _np(chain(x)))
    assert c.explain().ops_per_graph[0][:3] == ["mul", "add", "sin"]


_SCRIPT = """
import json, numpy as np
import ember.autograd as ea, ember.jit as jit
from ember.jit import codegen
jit.config.fuse = True
c = jit.compile(lambda x: ((x * 3.0).cos() - x).exp())
for _ in range(3):
    r = c(ea.ones(8))
jit.wait_for_compiles()
print(json.dumps(codegen.stats()))
"""


def test_second_process_loads_kernels_from_the_disk_cache(tmp_path):
    env = dict(os.environ, EMBER_JIT_CACHE_DIR=str(tmp_path))
    env.pop("NUMBA_CACHE_DIR", None)
    runs = [json.loads(subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True,
                                      check=True, timeout=300).stdout.strip().splitlines()[-1]) for _ in range(2)]
    assert runs[0]["compiled"] == 1 and runs[0]["cached"] == 0
    assert runs[1] == {"kernels": 1, "compiled": 0, "cached": 1}
    assert len(list(tmp_path.glob("ember_fused_*.py"))) == 1


def test_large_groups_leave_libm_ops_to_numpy(monkeypatch):
    monkeypatch.setattr(jit.config, "fuse_libm_max", 16)
    c = jit.compile(lambda x: (x * 2.0 + 1.0).tan().neg().abs())  # float32 tan is libm's: eager's own kernel
    x = _t(5, 4)
    got = _replays(c, x)
    assert c.explain().ops_per_graph == [["fused[mul, add]", "tan", "fused[neg, abs]"]]
    np.testing.assert_array_equal(_np(got), _np((x * 2.0 + 1.0).tan().neg().abs()))
    c64 = jit.compile(lambda x: (x * 2.0 + 1.0).sin().neg().abs())  # float64 sin is libm's: eager's own kernel
    x64 = _t(5, 4, dtype=np.float64)
    got = _replays(c64, x64)
    assert c64.explain().ops_per_graph == [["fused[mul, add]", "sin", "fused[neg, abs]"]]
    np.testing.assert_array_equal(_np(got), np.abs(-np.sin(_np(x64) * 2.0 + 1.0)))


def test_float64_exp_tanh_sigmoid_fuse_at_any_size_with_eagers_bits(monkeypatch):
    # NOTE [ Vectorized float64 exp and tanh ]: exp64 and tanh64, whatever fuse_libm_max, and eager's
    monkeypatch.setattr(jit.config, "fuse_libm_max", 16)

    def f(x):
        return (x * 3.0).exp() + x.tanh() + x.sigmoid() + x.silu() * 0.5

    c = jit.compile(f)
    x = ea.tensor(np.concatenate([np.linspace(-300, 300, 4001), [0.0, -0.0, 1e-300, 5e-324, 240.0, -800.0]]))
    got = _np(_replays(c, x))
    assert c.explain().ops_per_graph == [["fused[mul, exp, tanh, add, sigmoid, add, silu, mul, add]"]]
    x64 = _np(x)
    with np.errstate(over="ignore"):
        sig = 1 / (1 + np.exp(-x64))
        ref = np.exp(x64 * 3.0) + np.tanh(x64) + sig + x64 * sig * 0.5
    np.testing.assert_allclose(got, ref, rtol=1e-14, atol=1e-300)
    np.testing.assert_array_equal(got.view(np.uint64), _np(f(x)).view(np.uint64))  # eager's very functions
    special = ea.tensor(np.array([np.nan, np.inf, -np.inf, 300.0]))
    np.testing.assert_array_equal(_np(c(special)), _np(f(special)))  # nan, inf (exp overflows to inf), nan, inf


def test_float32_exp_tanh_sigmoid_fuse_at_any_size_with_eagers_bits(monkeypatch):
    # NOTE [ Vectorized exp in fused kernels ]: vector_math's branch-free forms, whatever fuse_libm_max, and eager's
    monkeypatch.setattr(jit.config, "fuse_libm_max", 16)

    def f(x):
        return (x * 3.0).exp() + x.tanh() + x.sigmoid() + x.silu() * 0.5

    c = jit.compile(f)
    x = ea.tensor(np.concatenate([np.linspace(-30, 30, 4001), [0.0, -0.0, 1e-30, 50.0, -120.0]]).astype(np.float32))
    got = _np(_replays(c, x))
    assert c.explain().ops_per_graph == [["fused[mul, exp, tanh, add, sigmoid, add, silu, mul, add]"]]
    x64 = _np(x).astype(np.float64)
    sig = 1 / (1 + np.exp(-x64))
    with np.errstate(over="ignore"):
        e = np.exp((_np(x) * np.float32(3.0)).astype(np.float64)).astype(np.float32)  # inf past float32's range
        ref = e.astype(np.float64) + np.tanh(x64) + sig + x64 * sig * 0.5
    np.testing.assert_allclose(got, ref, rtol=2e-6, atol=1e-6)
    np.testing.assert_array_equal(got.view(np.uint32), _np(f(x)).view(np.uint32))  # eager's very functions
    special = ea.tensor(np.array([np.nan, np.inf, -np.inf, 100.0], np.float32))
    np.testing.assert_array_equal(_np(c(special)), _np(f(special)))  # nan, inf (exp overflows to inf), nan, inf


def test_float32_sin_cos_and_logs_fuse_at_any_size_with_eagers_bits(monkeypatch):
    # NOTE [ Vectorized sin and cos in fused kernels ]: vmath's forms, whatever fuse_libm_max
    monkeypatch.setattr(jit.config, "fuse_libm_max", 16)

    def f(x):
        a = x.abs() + 0.5
        return x.sin() * 2.0, x.cos() + 1.0, a.log() - 1.0, a.log2() * 3.0, a.log10() + 0.0, (a - 0.25).log1p() * 1.0

    c = jit.compile(f)
    x = ea.tensor(np.concatenate([np.linspace(-50, 50, 3001), [0.0, -0.0, 1e5, -3e6]]).astype(np.float32))
    got = [_np(t) for t in _replays(c, x)]
    assert c.explain().ops_per_graph == [["fused[abs, add, sin, mul, cos, add, log, sub, log2, mul, log10, add, "
                                          "sub, log1p, mul]"]]
    for g, e in zip(got, f(x)):
        np.testing.assert_array_equal(g.view(np.uint32), _np(e).view(np.uint32))  # eager's very functions
    x64 = _np(x).astype(np.float64)
    np.testing.assert_allclose(got[0], np.sin(x64) * 2.0, rtol=3e-7, atol=3e-7)
    np.testing.assert_allclose(got[2], np.log(np.abs(x64) + 0.5) - 1.0, rtol=3e-7, atol=3e-7)


_TRANSCENDENTAL = ["exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan",
                   "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "silu"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", _TRANSCENDENTAL)
def test_fused_transcendental_gives_eagers_bits(name, dtype):
    # NOTE [ Eager and fused transcendentals share one implementation ] in ember.core.ops.vector_math
    def f(x):
        return getattr(x * 1.5 + 0.25, name)() * 2.0

    c = jit.compile(f)
    x = ea.tensor(np.concatenate([np.linspace(-4, 4, 997), [0.0, -0.0, 60.0, -90.0, np.inf, -np.inf, np.nan]])
                  .astype(dtype))
    got = _np(_replays(c, x))
    assert c.explain().ops_per_graph == [[f"fused[mul, add, {name}, mul]"]]
    bits = np.uint32 if dtype == np.float32 else np.uint64
    np.testing.assert_array_equal(got.view(bits), _np(f(x)).view(bits))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_log_sigmoid_and_its_backward_give_eagers_bits(dtype):
    # both are core's loops over vector_math's functions, which the fused kernel inlines: the whole step one group
    def step(x, w):
        x.grad = None
        y = ea.logsigmoid(x * 1.5 + 0.25) * w
        y.sum().backward()
        return y.detach(), x.grad

    x = ea.tensor(np.concatenate([np.linspace(-40, 40, 997), [0.0, -0.0, 90.0, -90.0, np.inf, -np.inf, np.nan]])
                  .astype(dtype), requires_grad=True)
    w = ea.tensor(np.random.default_rng(3).standard_normal(x.shape).astype(dtype))
    c = jit.compile(step)
    got = _replays(c, x, w)
    ops = c.explain().ops_per_graph[0]
    assert ops == ["expand", "fused[mul, add, log_sigmoid, mul, mul, log_sigmoid_backward, mul]"], ops
    bits = np.uint32 if dtype == np.float32 else np.uint64
    for a, b in zip(got, step(x, w), strict=True):
        np.testing.assert_array_equal(_np(a).view(bits), _np(b).view(bits))


def test_fused_relu_keeps_negative_zero_and_nan_as_eager():
    # PyTorch's (and eager ember's) relu is `x < 0 ? 0 : x`: -0.0 stays -0.0, NaN passes
    c = jit.compile(lambda x: (x * 1.0).relu() + 0.0 * x)
    x = ea.tensor(np.array([-0.0, 0.0, -2.0, np.nan, 3.0], np.float32))
    got = _np(_replays(c, x))
    np.testing.assert_array_equal(got.view(np.uint32), _np((x * 1.0).relu() + 0.0 * x).view(np.uint32))
    assert np.signbit(_np(_replays(jit.compile(lambda x: (x * 1.0).relu()), x))[0])


@pytest.mark.parametrize("n", [5, 127, 128, 129, 300, 1000])
def test_blocked_steps_are_the_one_loop_bits(n):
    # NOTE [ Blocked steps ]: the serial kernel runs step by step over full blocks, then the partial one; the
    # same operations on the same values: eager's bits for arithmetic, an escaping intermediate written in full
    from ember.jit import codegen

    assert codegen.BLOCK == 128  # n = 128 is one full block, 129 a full block and a tail, 127 a tail alone

    def f(x, y):
        a = x * 1.5 + y
        b = a * a - 0.25
        return a, b / (y * y + 1.0)
    c = jit.compile(f)
    x, y = _t(n, seed=1), _t(n, seed=2)
    got = _replays(c, x, y)
    assert c.explain().ops_per_graph == [["fused[mul, add, mul, sub, mul, add, div]"]]
    for g, w in zip(got, f(x, y)):
        np.testing.assert_array_equal(_np(g), _np(w))


def _specials(n, dtype, seed):
    # signed zeros, NaNs with a payload and a sign, numbers: every pairing of them in x against y
    uint = np.uint32 if dtype == np.float32 else np.uint64
    nan = np.array(0x7FC00123 if dtype == np.float32 else 0xFFF8000000000123, uint).view(dtype)
    vals = np.array([-0.0, 0.0, nan, -1.5, 2.0, np.inf], dtype)
    return vals[np.random.default_rng(seed).integers(0, vals.size, n)], uint


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [36, 300])
def test_fused_maximum_minimum_are_eagers_bits(dtype, n):
    # eager's (PyTorch's) element path: of equal zeros the first operand, a NaN operand the canonical NaN
    def f(x, y):
        a, b = x * 1.0, y * 1.0
        return ea.maximum(a, b), ea.minimum(a, b), ea.maximum(b, a) * 1.0
    x, uint = _specials(n, dtype, 1)
    y, _ = _specials(n, dtype, 2)
    x[:4], y[:4] = [-0.0, 0.0, -0.0, 0.0], [0.0, -0.0, -0.0, 0.0]
    x, y = ea.tensor(x), ea.tensor(y)
    c = jit.compile(f)
    got = _replays(c, x, y)
    assert c.explain().ops_per_graph == [["fused[mul, mul, maximum, minimum, maximum, mul]"]]
    for g, w in zip(got, f(x, y), strict=True):
        np.testing.assert_array_equal(_np(g).view(uint), _np(w).view(uint))
    assert np.signbit(_np(got[0])[:4]).tolist() == [True, False, True, False]
    canonical = np.array(np.nan, dtype).view(uint)
    assert (_np(got[1]).view(uint)[np.isnan(_np(got[1]))] == canonical).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [36, 300])
def test_fused_relu_backward_is_eagers_bits(dtype, n):
    # threshold_backward(grad, result, 0): +0.0 where the result is <= 0 (-0.0 included), else grad (a NaN result
    # passes the gradient, a NaN gradient passes with its payload)
    def step(x, w):
        x.grad = None
        ((x * 1.0).relu() * w).sum().backward()
        return x.grad
    x, uint = _specials(n, dtype, 3)
    w, _ = _specials(n, dtype, 4)
    x, w = ea.tensor(x, requires_grad=True), ea.tensor(w)
    c = jit.compile(step)
    got = _np(_replays(c, x, w)).copy()
    assert any("threshold_backward" in op and op.startswith("fused[") for op in c.explain().ops_per_graph[0])
    np.testing.assert_array_equal(got.view(uint), _np(step(x, w)).view(uint))


@pytest.mark.parametrize("th", [0.5, 0.1])
def test_fused_threshold_backward_compares_in_the_dtype(th):
    # eager and PyTorch compare the input with the threshold in its dtype: float32(0.1) <= 0.1 there, so its
    # gradient is 0 as the forward replaced it (in float64 0.1 < float32(0.1) would pass it)
    def step(x):
        x.grad = None
        (ea.threshold(x * 1.0, th, -1.0) * 2.0).sum().backward()
        return x.grad
    x = ea.tensor(np.array([np.float32(th), 0.0, 0.3, 1.0], np.float32), requires_grad=True)
    c = jit.compile(step)
    got = _np(_replays(c, x)).copy()
    assert any(op.startswith("fused[") and "threshold_backward" in op for op in c.explain().ops_per_graph[0])
    np.testing.assert_array_equal(got, _np(step(x)))
    np.testing.assert_array_equal(got, [0.0, 0.0, 0.0 if th == 0.5 else 2.0, 2.0])


@pytest.mark.parametrize("n", [100, 128, 1000])
def test_blocked_kernel_is_the_one_loops_bits_with_vmath(n):
    # the parallel variant is one loop over every step per element: the blocked serial kernel must give its bits
    from ember.jit import codegen

    steps = (("mul", (("a", 0), ("s", 0))), ("sin", (("t", 0),)), ("exp", (("t", 1),)), ("tanh", (("t", 2),)),
             ("sigmoid", (("t", 3),)), ("maximum", (("t", 4), ("a", 1))),
             ("threshold_backward", (("t", 5), ("a", 0), ("s", 1))))
    serial, parallel = codegen.load(codegen.kernel_source("float32", "ab", 2, steps, (1, 6)))
    x = np.random.default_rng(5).standard_normal(n).astype(np.float32) * 3
    x[:3] = [-0.0, np.nan, 0.0]
    b, sv = np.array([0.5], np.float32), np.array([1.5, 0.0], np.float32)
    got, want = [np.empty(n, np.float32) for _ in range(2)], [np.empty(n, np.float32) for _ in range(2)]
    serial(n, *got, x, b, sv)
    parallel(n, *want, x, b, sv)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g.view(np.uint32), w.view(np.uint32))
