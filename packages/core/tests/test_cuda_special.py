"""The special functions' CUDA kernels (the scalar module compiled as device functions) against the
CPU kernels, in Numba's CUDA simulator with tiny shapes: strided and broadcast operands, scalars,
dtypes, attributes (polygamma's n, logit's eps) and the composite mvlgamma."""

from __future__ import annotations

import numpy as np
import pytest

import ember.core as E
from ember.core.ops import special as ops
from ember.core.testing import assert_close, make_tensor

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")]

# inputs where each function is finite (the simulator runs Python's math, which raises outside)
DOMAIN = {"special_ndtri": (0.05, 0.95), "lgamma": (0.2, 4.0), "digamma": (0.2, 4.0),
          "special_entr": (0.1, 3.0), "special_bessel_y0": (0.5, 30.0), "special_bessel_y1": (0.5, 30.0),
          "special_modified_bessel_k0": (0.5, 6.0), "special_modified_bessel_k1": (0.5, 6.0),
          "special_scaled_modified_bessel_k0": (0.5, 6.0), "special_scaled_modified_bessel_k1": (0.5, 6.0),
          "special_bessel_j0": (-30.0, 30.0), "special_bessel_j1": (-30.0, 30.0), "special_airy_ai": (-12.0, 3.0)}


@pytest.mark.parametrize("name", [r[0] for r in ops.UNARY])
def test_unary_matches_cpu(name):
    lo, hi = DOMAIN.get(name, (-2.0, 2.0))
    x = make_tensor(2, 3, dtype=E.float64, low=lo, high=hi, seed=4, noncontiguous=True)
    got = ops.OPS[name](x.to("cuda"))
    assert got.device.type == "cuda" and got.dtype is E.float64
    assert_close(got.cpu(), ops.OPS[name](x), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", [r[0] for r in ops.BINARY])
def test_binary_matches_cpu_with_broadcasting(name):
    a = make_tensor(2, 1, 3, dtype=E.float32, low=0.3, high=3.0, seed=5)
    b = make_tensor(4, 1, dtype=E.float32, low=0.3, high=3.0, seed=6, noncontiguous=True)
    if name == "special_zeta":
        a = a + 1
    if "polynomial" in name:  # small integral degrees
        b = (b * 3).floor()
    got = ops.OPS[name](a.to("cuda"), b.to("cuda"))
    assert got.shape == (2, 4, 3) and got.dtype is E.float32
    assert_close(got.cpu(), ops.OPS[name](a, b), rtol=1e-6, atol=1e-6)


def test_integer_input_scalars_and_attributes():
    n = E.tensor([1, 2, 3], device="cuda")
    assert E.lgamma(n).dtype is E.float32 and E.lgamma(n).cpu().tolist() == [0.0, 0.0, pytest.approx(np.log(2.0))]
    x = make_tensor(5, dtype=E.float64, low=0.05, high=0.95, seed=7)
    xc = x.to("cuda")
    assert_close(E.polygamma(2, xc).cpu(), E.polygamma(2, x), rtol=1e-13, atol=0)
    assert_close(E.logit(xc, eps=0.2).cpu(), E.logit(x, eps=0.2), rtol=1e-13, atol=0)
    assert_close(E.special.zeta(2.0, xc).cpu(), E.special.zeta(2.0, x), rtol=1e-13, atol=0)
    assert_close(E.special.multigammaln(xc + 2, 3).cpu(), E.special.multigammaln(x + 2, 3), rtol=1e-13, atol=0)
    y = xc.clone()
    assert y.digamma_() is y
    assert_close(y.cpu(), E.digamma(x), rtol=1e-13, atol=0)
