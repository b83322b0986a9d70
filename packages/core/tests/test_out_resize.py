"""An `out=` tensor of the wrong shape is resized as PyTorch does: with PyTorch's deprecation warning when it
held elements, and then laid out as the result would have been without `out=` (the elementwise rule for
TensorIterator ops, channels_last for `cat` of channels_last inputs, the input's layout for `sort`). An `out=`
of the right shape keeps its own strides. The expected strides are PyTorch 2.13's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember.core as E

RNG = np.random.default_rng(0)
A4 = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
B4 = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
A2 = RNG.standard_normal((5, 4)).astype(np.float32)
CL, ROW4 = (60, 1, 15, 3), (60, 20, 5, 1)


def _inputs(lib, device="cpu"):
    return {"cl": lib.from_numpy(A4).to(device).contiguous(memory_format=lib.channels_last),
            "c": lib.from_numpy(B4).to(device), "t": lib.from_numpy(A2).to(device).t()}


def _indices(lib, like):
    return lib.empty(0, dtype=lib.int64, device=like.device)


# name -> (op(lib, inputs, out), PyTorch 2.13's strides of the resized out)
CASES = {
    "add(channels_last, row-major)": (lambda lib, i, o: lib.add(i["cl"], i["c"], out=o), CL),
    "add(row-major, channels_last)": (lambda lib, i, o: lib.add(i["c"], i["cl"], out=o), ROW4),
    "mul(channels_last, 2)": (lambda lib, i, o: lib.mul(i["cl"], 2, out=o), CL),
    "exp(channels_last)": (lambda lib, i, o: lib.exp(i["cl"], out=o), CL),
    "exp(transposed)": (lambda lib, i, o: lib.exp(i["t"], out=o), (1, 4)),
    "add(transposed, transposed)": (lambda lib, i, o: lib.add(i["t"], i["t"], out=o), (1, 4)),
    "clamp(channels_last)": (lambda lib, i, o: lib.clamp(i["cl"], 0, 1, out=o), CL),
    "lerp(channels_last, row-major)": (lambda lib, i, o: lib.lerp(i["cl"], i["c"], 0.5, out=o), CL),
    "sigmoid(channels_last)": (lambda lib, i, o: lib.sigmoid(i["cl"], out=o), CL),
    "pow(channels_last, 2)": (lambda lib, i, o: lib.pow(i["cl"], 2, out=o), CL),
    "cat(channels_last)": (lambda lib, i, o: lib.cat([i["cl"], i["cl"]], 1, out=o), (120, 1, 30, 6)),
    "sort(channels_last)": (lambda lib, i, o: lib.sort(i["cl"], 0, out=(o, _indices(lib, o)))[0], CL),
    "cumsum(transposed)": (lambda lib, i, o: lib.cumsum(i["t"], 0, out=o), (5, 1)),
}


def _run(op, lib, inputs, out):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = op(lib, inputs, out)
    return r, [str(w.message) for w in caught]


@pytest.mark.parametrize("name", list(CASES))
def test_an_empty_out_is_resized_to_the_results_layout_silently(name):
    op, strides = CASES[name]
    out = E.empty(0)
    r, messages = _run(op, E, _inputs(E), out)
    assert r is out and out.stride() == strides and messages == []
    expected = op(E, {k: v.contiguous() for k, v in _inputs(E).items()}, E.empty(0))
    np.testing.assert_array_equal(out.numpy(), expected.numpy())


def test_a_non_empty_out_of_the_wrong_shape_warns_as_pytorch():
    out = E.empty(3)
    _, messages = _run(CASES["add(channels_last, row-major)"][0], E, _inputs(E), out)
    assert out.stride() == CL
    assert messages == ["An output with one or more elements was resized since it had shape [3], which does not "
                        "match the required output shape [2, 3, 4, 5]. This behavior is deprecated, and in a future "
                        "PyTorch release outputs will not be resized unless they have zero elements. You can "
                        "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
                        "t.resize_(0). (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
                        "Resize.cpp:30.)"]


def test_an_out_of_the_right_shape_keeps_its_strides():
    i = _inputs(E)
    out = E.empty(2, 3, 4, 5)
    E.add(i["cl"], i["cl"], out=out)
    assert out.stride() == ROW4
    np.testing.assert_allclose(out.numpy(), 2 * A4, rtol=1e-6)
    out = E.empty(5, 4).t()
    E.exp(i["c"][0, 0], out=out)
    assert out.stride() == (1, 4)


@pytest.mark.torch
@pytest.mark.parametrize("name", list(CASES))
def test_resized_out_layouts_match_pytorch(name):
    torch = pytest.importorskip("torch")
    op, strides = CASES[name]
    for size in (0, 3):
        want, _ = _run(op, torch, _inputs(torch), torch.empty(size))
        got, _ = _run(op, E, _inputs(E), E.empty(size))
        assert tuple(want.stride()) == strides
        assert got.stride() == strides


@pytest.mark.cuda
@pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")
@pytest.mark.parametrize("name", ["add(channels_last, row-major)", "add(row-major, channels_last)",
                                  "exp(transposed)", "cat(channels_last)", "sort(channels_last)"])
def test_cuda_resizes_out_as_the_cpu(name):
    op, strides = CASES[name]
    out = E.empty(0, device="cuda")
    r, messages = _run(op, E, _inputs(E, "cuda"), out)
    assert r is out and out.stride() == strides and messages == []
    np.testing.assert_allclose(out.cpu().numpy(), op(E, _inputs(E), E.empty(0)).numpy(), rtol=1e-6)


# complex inputs: name -> (op(lib, x, out), out dtype name, PyTorch 2.13's strides of the resized out). The unary
# kernels take the input's layout as the real ones do; complex abs and angle (real results) write row-major.
C4 = (RNG.standard_normal((2, 3, 4)) + 1j * RNG.standard_normal((2, 3, 4))).astype(np.complex64)
PERMUTED, ROW3 = (1, 12, 4), (6, 3, 1)
COMPLEX_CASES = {
    "exp": (lambda lib, x, o: lib.exp(x, out=o), "complex64", PERMUTED),
    "sqrt": (lambda lib, x, o: lib.sqrt(x, out=o), "complex64", PERMUTED),
    "log1p": (lambda lib, x, o: lib.log1p(x, out=o), "complex64", PERMUTED),
    "sigmoid": (lambda lib, x, o: lib.sigmoid(x, out=o), "complex64", PERMUTED),
    "sgn": (lambda lib, x, o: lib.sgn(x, out=o), "complex64", PERMUTED),
    "conj_physical": (lambda lib, x, o: lib.conj_physical(x, out=o), "complex64", PERMUTED),
    "conj_physical(real)": (lambda lib, x, o: lib.conj_physical(x.real, out=o), "float32", PERMUTED),
    "angle(real)": (lambda lib, x, o: lib.angle(x.real, out=o), "float32", PERMUTED),
    "abs": (lambda lib, x, o: lib.abs(x, out=o), "float32", ROW3),
    "angle": (lambda lib, x, o: lib.angle(x, out=o), "float32", ROW3),
}


def _complex_input(lib):
    return lib.from_numpy(C4).permute(2, 0, 1)


@pytest.mark.parametrize("name", list(COMPLEX_CASES))
@pytest.mark.parametrize("size", [0, 5])
def test_complex_ops_resize_out_in_the_layout_of_real_ones(name, size):
    op, dtype, strides = COMPLEX_CASES[name]
    out = E.empty(size, dtype=getattr(E, dtype))
    r, messages = _run(lambda lib, i, o: op(lib, i, o), E, _complex_input(E), out)
    assert r is out and out.stride() == strides and len(messages) == (size > 0)
    np.testing.assert_allclose(out.numpy(), op(E, _complex_input(E).contiguous(), E.empty(0, dtype=out.dtype)).numpy(),
                               rtol=1e-6)


@pytest.mark.torch
@pytest.mark.parametrize("name", list(COMPLEX_CASES))
def test_complex_resized_out_layouts_match_pytorch(name):
    torch = pytest.importorskip("torch")
    op, dtype, strides = COMPLEX_CASES[name]
    want, _ = _run(lambda lib, i, o: op(lib, i, o), torch, _complex_input(torch), torch.empty(0, dtype=getattr(torch,
                                                                                                             dtype)))
    assert tuple(want.stride()) == strides
