"""Fusion on CUDA: elementwise groups of CUDA tensors replayed as one generated numba.cuda kernel (the
simulator here, a GPU elsewhere), against eager CUDA and float64 numpy."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import ember.autograd as ea
import ember.jit as jit
from ember.jit import codegen, cuda_codegen

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not ea.cuda.is_available(), reason="no CUDA device or simulator")]


@pytest.fixture(autouse=True)
def _fuse(monkeypatch, tmp_path):
    monkeypatch.setattr(jit.config, "fuse", True)
    monkeypatch.setattr(jit.config, "fuse_cache_dir", str(tmp_path))


def _t(*shape, seed=0, dtype=np.float32, requires_grad=False):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return ea.tensor(a, device="cuda", requires_grad=requires_grad)


def _np(t):
    return t.detach().cpu().numpy()


def chain(x):
    y = (x * 1.5 + 0.25).sin()
    y = (y * y - 0.5).exp().tanh() / 3.0
    return y.sigmoid() + x


def _replays(c, *args):
    for _ in range(3):
        out = c(*args)
    return out


@pytest.mark.parametrize("dtype,rtol,atol", [(np.float32, 1e-6, 1e-7), (np.float64, 1e-13, 1e-16)])
def test_chain_on_cuda_fuses_into_one_kernel_and_matches_eager(dtype, rtol, atol, tmp_path):
    c = jit.compile(chain)
    x = _t(3, 5, dtype=dtype)
    got = _replays(c, x)
    assert c.explain().ops_per_graph == [["fused[mul, add, sin, mul, sub, exp, tanh, div, sigmoid, add]"]]
    # the generated source sits in the cache directory, where Numba-CUDA's cache=True keys on it
    (src,) = tmp_path.glob("ember_cuda_fused_*.py")
    assert "@cuda.jit(cache=True)" in src.read_text()
    assert got.device.type == "cuda" and got.dtype == x.dtype and got.shape == (3, 5)
    np.testing.assert_allclose(_np(got), _np(chain(x)), rtol=rtol, atol=atol)
    xd = _np(x).astype(np.float64)
    ref = 1 / (1 + np.exp(-np.tanh(np.exp(np.sin(xd * 1.5 + 0.25) ** 2 - 0.5)) / 3.0)) + xd
    np.testing.assert_allclose(_np(got), ref, rtol=5 * rtol, atol=5 * atol)


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # the simulator's numpy scalars: inf * 0
def test_out_of_domain_values_give_eagers_nan_and_inf():
    # the simulator's math is Python's, which raises on log(-1): the kernel guards as ember.core's CUDA kernels
    def f(x):
        return ((x.log() + x.sqrt()) * x.log1p().neg()).abs(), (x.acosh() + x.atanh()).exp(), (x - 800.0).sigmoid()

    c = jit.compile(f)
    x = ea.tensor(np.array([-2.0, -1.0, 0.0, 0.5, 1.0, 3.0, np.inf, np.nan]), device="cuda")
    got, want = _replays(c, x), f(x)
    # one group: none of the three reads another's results
    assert c.explain().ops_per_graph == [["fused[log, sqrt, add, log1p, neg, mul, abs, acosh, atanh, add, exp, sub, "
                                          "sigmoid]"]]
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(_np(g), _np(w))  # NaN where eager has NaN (assert_array_equal: NaN == NaN)
    with np.errstate(over="ignore"):
        np.testing.assert_allclose(_np(got[2]), 1 / (1 + np.exp(800.0 - _np(x))), rtol=1e-15, atol=0)


def test_training_step_forward_and_backward_on_cuda_fuse():
    w0 = _t(2, 3, seed=1)

    def step(x, w):
        w.grad = None
        loss = chain(x * w).sum()
        loss.backward()
        return loss, w.grad

    we, wc = (ea.tensor(_np(w0), device="cuda", requires_grad=True) for _ in range(2))
    c = jit.compile(step)
    for i in range(3):
        x = _t(2, 3, seed=10 + i)
        le, ge = step(x, we)
        lc, gc = c(x, wc)
        np.testing.assert_allclose(_np(lc), _np(le), rtol=1e-6)
        np.testing.assert_allclose(_np(gc), _np(ge), rtol=1e-5, atol=1e-7)
    assert gc.device.type == "cuda"
    fused = [o for o in c.explain().ops_per_graph[0] if o.startswith("fused[")]
    assert any("cos" in o for o in fused), fused  # sin's derivative: a backward op fused, on CUDA


def test_escaping_intermediate_is_written_out_and_not_overwritten():
    def f(x):
        a = x * 2.0
        return a, (a + 1.0).exp()

    c = jit.compile(f)
    x = _t(2, 3)
    a, b = _replays(c, x)
    assert c.explain().ops_per_graph == [["fused[mul, add, exp]"]]
    np.testing.assert_array_equal(_np(a), _np(x) * np.float32(2.0))
    np.testing.assert_allclose(_np(b), np.exp(_np(x) * 2.0 + 1.0), rtol=1e-6)
    c(_t(2, 3, seed=5))
    np.testing.assert_array_equal(_np(a), _np(x) * np.float32(2.0))


def test_groups_on_the_cpu_and_on_cuda_stay_apart():
    def f(x, y):
        return (x * 2.0).exp(), (y * 2.0).exp()

    c = jit.compile(f)
    xc, yd = ea.tensor(np.linspace(-1, 1, 6, dtype=np.float32)), _t(6, seed=2)
    p, q = _replays(c, xc, yd)
    assert c.explain().ops_per_graph == [["fused[mul, exp]", "fused[mul, exp]"]]
    assert p.device.type == "cpu" and q.device.type == "cuda"
    np.testing.assert_allclose(p.numpy(), np.exp(xc.numpy() * 2.0), rtol=1e-6)
    np.testing.assert_allclose(_np(q), np.exp(_np(yd) * 2.0), rtol=1e-6)


def test_broadcast_operand_of_a_slice_reads_its_offset():
    # a C-contiguous row of a larger tensor (offset 3) and a broadcast value at an offset
    base = _t(2, 3, seed=3)
    s = ea.tensor([5.0, 7.0], device="cuda")[1:].expand(3)
    c = jit.compile(lambda r, s: (r * s + 1.0).neg())
    got = _replays(c, base[1], s)
    assert c.explain().ops_per_graph == [["fused[mul, add, neg]"]]
    # allclose: on a GPU the mul and the add contract into one FMA (NOTE [ Fused kernels on CUDA ])
    np.testing.assert_allclose(_np(got), -(_np(base)[1] * np.float32(7.0) + np.float32(1.0)), rtol=1e-6)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the simulator's numpy scalars: 1 / 0, log(0) ...
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_op_matches_the_cpu_kernel_in_and_out_of_its_domain(dtype):
    # the kernel `ptx_check --cases ember.jit.cuda_codegen` compiles to PTX (`nox -s ptx`): every op of EXPR,
    # run here in the simulator against the CPU kernel generated from the same group
    from numba import cuda

    cases = {label: (fn, sig) for label, fn, sig in cuda_codegen.ptx_cases()}
    assert sorted(cases) == ["fused every op[float32]", "fused every op[float64]"]
    kinds, steps, n_scalar = cuda_codegen.ptx_group()
    assert {name for name, _ in steps} == set(codegen.EXPR)
    fn, sig = cases[f"fused every op[{np.dtype(dtype).name}]"]
    assert fn.__code__.co_argcount == len(sig)

    x = np.array([-2.0, -1.0, -0.5, 0.0, 0.3, 0.9, 1.0, 1.5, 3.0, np.nan], dtype)
    y = np.array([0.5, -1.0, 0.0, 0.0, 2.0, np.nan, 1.0, -3.0, 3.0, 1.0], dtype)
    b, sv = dtype(0.25), dtype(-1.5)
    outs = tuple(range(len(steps)))
    serial, _ = codegen.load(codegen.kernel_source(np.dtype(dtype).name, kinds, n_scalar, steps, outs))
    want = [np.empty_like(x) for _ in outs]
    serial(x.size, *want, x, y, np.array([b]), np.array([sv]))
    got = [cuda.device_array(x.size, dtype) for _ in outs]
    # the operands at an offset in a longer array, as a slice of a tensor's storage
    ins = [cuda.to_device(np.concatenate([[dtype(7)], v])) for v in (x, y, [b])]
    cuda.jit(fn)[1, 16](x.size, *got, ins[0], 1, ins[1], 1, ins[2], 1, sv)
    for (name, _), g, w in zip(steps, got, want, strict=True):
        np.testing.assert_allclose(g.copy_to_host(), w, rtol=2e-6 if dtype == np.float32 else 1e-14, err_msg=name)


def test_ptx_check_compiles_the_generated_kernels(tmp_path):
    # needs libNVVM/NVRTC (numba-cuda[cu13], as in `nox -s ptx`), no GPU: skipped where they are missing
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["EMBER_JIT_CACHE_DIR"] = str(tmp_path)
    run = subprocess.run([sys.executable, "-m", "ember.core.cuda.ptx_check", "-k", "fused ",
                          "--cases", "ember.jit.cuda_codegen"], env=env, capture_output=True, text=True, timeout=600)
    if "DynamicLibNotFoundError" in run.stdout or "NvvmSupportError" in run.stdout:
        pytest.skip("no libNVVM/NVRTC here (nox -s ptx installs them)")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2/2 kernels compiled to PTX" in run.stdout


@pytest.mark.parametrize("dtype,uint", [(np.float32, np.uint32), (np.float64, np.uint64)])
def test_fused_maximum_minimum_and_relu_backward_are_the_cpus_bits(dtype, uint):
    # of equal zeros the first operand, a NaN operand the canonical NaN; relu's backward +0.0 where the result
    # is <= 0, a NaN result passing the gradient: the bits of eager on the CPU
    def f(x, y):
        a, b = x * 1.0, y * 1.0
        return ea.maximum(a, b), ea.minimum(a, b)

    def step(x, w):
        x.grad = None
        ((x * 1.0).relu() * w).sum().backward()
        return x.grad
    nan = np.array(0x7FC00123 if dtype == np.float32 else 0xFFF8000000000123, uint).view(dtype)
    x = np.array([-0.0, 0.0, -0.0, nan, 1.0, nan, 2.0, -1.0], dtype)
    y = np.array([0.0, -0.0, -0.0, 1.0, nan, nan, 3.0, -0.0], dtype)
    cx, cy = ea.tensor(x, device="cuda"), ea.tensor(y, device="cuda")
    c = jit.compile(f)
    for g, w in zip(_replays(c, cx, cy), f(ea.tensor(x), ea.tensor(y)), strict=True):
        np.testing.assert_array_equal(_np(g).view(uint), _np(w).view(uint))
    assert c.explain().ops_per_graph == [["fused[mul, mul, maximum, minimum]"]]
    s = jit.compile(step)
    got = _np(_replays(s, ea.tensor(x, device="cuda", requires_grad=True), cy))
    assert any(op.startswith("fused[") and "threshold_backward" in op for op in s.explain().ops_per_graph[0])
    want = _np(step(ea.tensor(x, requires_grad=True), ea.tensor(y)))
    np.testing.assert_array_equal(got.view(uint), want.view(uint))
