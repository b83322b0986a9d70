"""Ops PyTorch refuses complex input to raise its exception type and message, on the CPU and on
CUDA alike (the refusal is the op's `complex_error` flag, checked in its meta step, or a check in
the composite), instead of computing something numpy defines for complex numbers (a lexicographic
sort, a complex digamma)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import ember.core as E

_VALUES = np.array([[1 + 2j, -3 + 0.5j, 0.25 - 1j], [2 - 2j, 0.5 + 0.5j, -1 - 1j]], np.complex64)
_NIE = NotImplementedError


def _z(m):
    return m(E.tensor(_VALUES))


def _x(m):
    return m(E.tensor(_VALUES.real.copy()))


def _kernel(name):
    return f"\"{name}\" not implemented for 'ComplexFloat'"


# (label, fn(m) -> the call, PyTorch's exception type, its message); `m` puts a tensor on the device
ERRORS = [
    ("sort", lambda m: E.sort(_z(m)), RuntimeError, " Sort does not support complex dtypes on CPU"),
    ("argmax", lambda m: E.argmax(_z(m)), RuntimeError, "argmax(): does not support complex input"),
    ("max over a dim", lambda m: E.max(_z(m), 1), RuntimeError, "max(): does not support complex input"),
    ("max of everything", lambda m: E.max(_z(m)), _NIE, _kernel("max_all")),
    ("min of everything", lambda m: E.min(_z(m)), _NIE, _kernel("min_all")),
    ("amax", lambda m: E.amax(_z(m), 1), _NIE, _kernel("max_values_cpu")),
    ("aminmax", lambda m: E.aminmax(_z(m)), _NIE, _kernel("aminmax_cpu")),
    ("median", lambda m: E.median(_z(m)), _NIE, _kernel("median_cpu")),
    ("median over a dim", lambda m: E.median(_z(m), 1), _NIE, _kernel("median_out")),
    ("nanmedian", lambda m: E.nanmedian(_z(m)), _NIE, _kernel("median_cpu")),
    ("nanmedian over a dim", lambda m: E.nanmedian(_z(m), 1), _NIE, _kernel("median_out")),
    ("mode", lambda m: E.mode(_z(m), 1), _NIE, _kernel("mode_cpu")),
    ("cummax", lambda m: E.cummax(_z(m), 1), _NIE, _kernel("cummax_cpu")),
    ("cummin", lambda m: E.cummin(_z(m), 1), _NIE, _kernel("cummin_cpu")),
    ("searchsorted of complex values", lambda m: E.searchsorted(_x(m)[0], _z(m)[0]), _NIE,
     _kernel("searchsorted_out_cpu")),
    ("unique", lambda m: E.unique(_z(m)), _NIE, _kernel("unique")),
    ("unique_consecutive", lambda m: E.unique_consecutive(_z(m)), _NIE, _kernel("unique")),
    ("histc", lambda m: E.histc(_z(m)), _NIE, _kernel("aminmax_cpu")),
    ("isin", lambda m: E.isin(_x(m), _z(m)), RuntimeError,
     "Unsupported input type encountered for isin(): ComplexFloat"),
    ("digamma", lambda m: E.digamma(_z(m)), _NIE, _kernel("digamma")),
    ("erfc", lambda m: E.erfc(_z(m)), _NIE, _kernel("erfc_vml_cpu")),
    ("erfinv", lambda m: E.erfinv(_z(m)), _NIE, _kernel("erfinv_vml_cpu")),
    ("round", lambda m: E.round(_z(m)), _NIE, _kernel("round_vml_cpu")),
    ("i0", lambda m: E.i0(_z(m)), _NIE, _kernel("i0_vml_cpu")),
    ("lgamma", lambda m: E.lgamma(_z(m)), _NIE, _kernel("lgamma_vml_cpu")),
    ("logit", lambda m: E.logit(_z(m)), _NIE, _kernel("logit_cpu")),
    ("igamma of a real and a complex", lambda m: E.igamma(_x(m), _z(m)), _NIE, _kernel("igamma_cpu")),
    ("special.ndtr", lambda m: E.special.ndtr(_z(m)), _NIE, _kernel("erf_vml_cpu")),
    ("special.zeta", lambda m: E.special.zeta(_z(m), _z(m)), _NIE, _kernel("zeta_cpu")),
    ("special.bessel_j0", lambda m: E.special.bessel_j0(_z(m)), _NIE, _kernel("bessel_j0_cpu")),
    ("nansum", lambda m: E.nansum(_z(m)), RuntimeError, "nansum on CPU does not support complex inputs"),
    ("nanmean", lambda m: E.nanmean(_z(m), 1), RuntimeError, "nansum on CPU does not support complex inputs"),
    ("deg2rad", lambda m: E.deg2rad(_z(m)), RuntimeError, "deg2rad is not supported for complex tensors."),
    ("rad2deg", lambda m: E.rad2deg(_z(m)), RuntimeError, "rad2deg is not supported for complex tensors."),
    ("isposinf", lambda m: E.isposinf(_z(m)), RuntimeError, "isposinf does not support complex inputs."),
    ("isneginf", lambda m: E.isneginf(_z(m)), RuntimeError, "isneginf does not support complex inputs."),
    ("heaviside", lambda m: E.heaviside(_z(m), _z(m)), RuntimeError, "heaviside is not yet implemented for complex "
                                                                      "tensors."),
    ("gcd", lambda m: E.gcd(_z(m), _z(m)), _NIE, _kernel("gcd_cpu")),
    ("lcm", lambda m: E.lcm(_z(m), _z(m)), _NIE, _kernel("lcm_cpu")),
    ("bitwise_not", lambda m: E.bitwise_not(_z(m)), _NIE, _kernel("bitwise_not_cpu")),
    ("bitwise_left_shift", lambda m: E.bitwise_left_shift(_z(m), _z(m)), _NIE, _kernel("lshift_cpu")),
    ("abs_", lambda m: _z(m).abs_(), RuntimeError, "In-place abs is not supported for complex tensors."),
    ("cdist", lambda m: E.cdist(_z(m), _z(m)), RuntimeError, "cdist only supports floating-point dtypes, X1 got: "
                                                              "ComplexFloat"),
    ("pdist", lambda m: E.pdist(_z(m)), RuntimeError, "pdist only supports floating-point dtypes"),
]


def _cpu(t):
    return t


def _cuda(t):
    return t.to("cuda")


def _expect(fn, exc, msg, m):
    with pytest.raises(exc, match=f"^{re.escape(msg)}$"):
        fn(m)


@pytest.mark.parametrize("fn,exc,msg", [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_complex_input_raises_pytorchs_error(fn, exc, msg):
    _expect(fn, exc, msg, _cpu)


@pytest.mark.cuda
@pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")
@pytest.mark.parametrize("fn,exc,msg", [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_complex_input_raises_the_same_error_on_cuda(fn, exc, msg):
    _expect(fn, exc, msg, _cuda)


def test_an_ops_own_meta_step_runs_after_its_complex_refusal():
    """`searchsorted` keeps its own checks for real input (the flag composes with `@op.meta`)."""
    with pytest.raises(RuntimeError, match=re.escape("torch.searchsorted(): sorter index out of range")):
        E.searchsorted(E.tensor([1.0, 2.0]), E.tensor([1.5]), sorter=E.tensor([0, 2]))
    np.testing.assert_array_equal(E.searchsorted(E.tensor([1.0, 2.0]), E.tensor([1.5])).numpy(), [1])


@pytest.mark.torch
@pytest.mark.parametrize("fn,exc,msg", [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_the_table_agrees_with_pytorch(fn, exc, msg, monkeypatch):
    """The same calls in PyTorch raise the hard-coded type and message (the table's `E.*` go to torch)."""
    torch = pytest.importorskip("torch")
    import sys

    monkeypatch.setattr(sys.modules[__name__], "E", torch)
    with pytest.raises(exc, match=f"^ ?{re.escape(msg)}$"):  # PyTorch's sort messages start with a space
        fn(_cpu)


def test_sinc_computes_complex_input():
    """PyTorch computes sinc of complex numbers (sin(pi z) / (pi z), 1 at 0); it used to drop the
    imaginary part."""
    z = _VALUES.reshape(-1)
    want = np.where(z == 0, 1.0, np.sin(np.pi * z.astype(np.complex128)) / (np.pi * z.astype(np.complex128)))
    got = E.sinc(E.tensor(z))
    assert got.dtype == E.complex64
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(E.sinc(E.tensor(np.array([0j, 0.5 + 0j], np.complex64))).numpy(), [1.0, 2 / np.pi],
                               rtol=1e-6)
