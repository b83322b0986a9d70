"""I0, I1 and their exponentially scaled forms for float32 (and 16-bit floats, which PyTorch computes in float32)
as PyTorch's CPU kernels evaluate them: Cephes' Chebyshev series summed in float32, each step rounded, so the last
digits are PyTorch's (`i0(0)` is 0.99999994 there, not 1). The coefficients are Cephes' tables of exp(-x) I_n(x)
on [0, 8] and of exp(-x) sqrt(x) I_n(x) on the inverted interval [8, inf); float32 I1 uses Cephes' shortened
float tables."""

from __future__ import annotations

import math
from functools import cache

import numpy as np

__all__ = ["i0", "i0e", "i1", "i1e"]

_F = np.float32

_I0_LOW = np.array([
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
    1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
    9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
    1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
    -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
    1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
    -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
    1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1], _F)
_I0_HIGH = np.array([
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
    3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
    -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
    7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
    -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
    3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
    2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
    8.04490411014108831608E-1], _F)
_I1_LOW = np.array([
    9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7,
    -8.56872026469545474066E-7, 3.47025130813767847674E-6, -1.32731636560394358279E-5,
    4.78156510755005422638E-5, -1.61760815825896745588E-4, 5.12285956168575772895E-4,
    -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
    2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1,
    -1.76416518357834055153E-1, 2.52587186443633654823E-1], _F)
_I1_HIGH = np.array([
    -3.83538038596423702205E-9, -2.63146884688951950684E-8, -2.51223623787020892529E-7,
    -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
    7.78576235018280120474E-1], _F)


def _chebyshev(y: np.ndarray, coefficients: np.ndarray) -> np.ndarray:
    """Clenshaw's sum of the Chebyshev series at `y` in float32 (Cephes' chbevl), as PyTorch's build computes its
    step `y * b1 - b2 + c`: a fused multiply-add, then the sum rounded (the float32 product is exact in float64)."""
    y64 = y.astype(np.float64)
    b0, b1, b2 = np.full(y.shape, coefficients[0], _F), np.zeros(y.shape, _F), np.zeros(y.shape, _F)
    for c in coefficients[1:]:
        b2, b1 = b1, b0
        b0 = (y64 * b1 - b2).astype(_F) + c
    return _F(0.5) * (b0 - b2)


def _series(x: np.ndarray, low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """|x| and the scaled series: exp(-|x|) I_n(|x|) (over |x| for n = 1) up to 8, exp(-x) sqrt(x) I_n(x) beyond."""
    a = np.abs(x)
    small = a <= _F(8)
    with np.errstate(all="ignore"):
        s = np.where(small, _chebyshev(a / _F(2) - _F(2), low), _chebyshev(_F(32) / a - _F(2), high))
    return a, small, s


@cache
def _expf_kernel():
    import numba

    @numba.njit(cache=True, nogil=True)
    def kernel(a, out):
        for i in range(a.size):
            out[i] = math.exp(a[i])

    return kernel


def _exp(a: np.ndarray) -> np.ndarray:
    """libm's expf, as PyTorch's kernel calls it (numpy's float32 exp, and exp rounded from float64, differ from
    it in the last bit on some inputs); Numba's float32 `math.exp` is that call."""
    out = np.empty(a.shape, _F)
    _expf_kernel()(np.ascontiguousarray(a).reshape(-1), out.reshape(-1))
    return out


def _signed(x: np.ndarray, r: np.ndarray) -> np.ndarray:
    return np.where(x < 0, -r, r)


def i0(x: np.ndarray) -> np.ndarray:
    a, small, s = _series(x, _I0_LOW, _I0_HIGH)
    e = _exp(a)
    with np.errstate(all="ignore"):
        return np.where(small, e * s, e * s / np.sqrt(a))


def i0e(x: np.ndarray) -> np.ndarray:
    a, small, s = _series(x, _I0_LOW, _I0_HIGH)
    with np.errstate(all="ignore"):
        return np.where(small, s, s / np.sqrt(a))


def i1(x: np.ndarray) -> np.ndarray:
    a, small, s = _series(x, _I1_LOW, _I1_HIGH)
    e = _exp(a)
    with np.errstate(all="ignore"):
        return _signed(x, np.where(small, e * a * s, e * s / np.sqrt(a)))


def i1e(x: np.ndarray) -> np.ndarray:
    a, small, s = _series(x, _I1_LOW, _I1_HIGH)
    with np.errstate(all="ignore"):
        return _signed(x, np.where(small, s * a, s / np.sqrt(a)))
