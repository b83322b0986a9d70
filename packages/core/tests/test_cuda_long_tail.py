"""The long-tail compositions (elementwise, shifts, gcd, windows, trapezoid, solve_triangular, LU,
matrix_exp) on CUDA give the CPU's values: they are made of primitives every device has."""

import numpy as np
import pytest

import ember.core as E
from ember.core import linalg
from ember.core.testing import assert_close

pytestmark = [pytest.mark.cuda, pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")]

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 3))
X, Y = RNG.standard_normal(4), RNG.standard_normal(4)

CASES = [
    ("logaddexp", lambda d: E.logaddexp(E.tensor(X, device=d), E.tensor(Y, device=d))),
    ("nan_to_num", lambda d: E.nan_to_num(E.tensor([float("nan"), float("inf"), 1.0], device=d))),
    ("shifts", lambda d: (E.tensor([1, -8, 5], dtype=E.int8, device=d) << 2) + (E.tensor([1, -8, 5], dtype=E.int8,
                                                                                       device=d) >> 1)),
    ("gcd", lambda d: E.gcd(E.tensor([12, 18, 0], device=d), E.tensor([8, 27, 5], device=d))),
    ("frexp", lambda d: E.frexp(E.tensor(X, device=d)).mantissa),
    ("hann_window", lambda d: E.hann_window(5, device=d)),
    ("trapezoid", lambda d: E.trapezoid(E.tensor(X, device=d), dx=0.5)),
    ("solve_triangular", lambda d: linalg.solve_triangular(E.tensor(A, device=d), E.eye(3, dtype=E.float64, device=d),
                                                           upper=True)),
    ("lu_factor", lambda d: linalg.lu_factor(E.tensor(A, device=d)).LU),
    ("matrix_exp", lambda d: linalg.matrix_exp(E.tensor(A, device=d))),
]


@pytest.mark.parametrize(("name", "fn"), CASES, ids=[c[0] for c in CASES])
def test_cuda_matches_cpu(name, fn):
    got = fn("cuda")
    assert got.device.type == "cuda"
    assert_close(got.cpu(), fn("cpu"))
