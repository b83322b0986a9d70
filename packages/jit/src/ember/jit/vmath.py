"""float32 `exp` and `tanh` that LLVM vectorizes, for fused kernels (NOTE [ Vectorized exp in fused kernels ]).

NOTE [ Vectorized exp in fused kernels ]
This Numba has no SVML, so `math.exp` in a fused loop is a libm call per value, slower than numpy's
own loops; hence `config.fuse_libm_max`. For float32 groups, `exp` (and `sigmoid`, `silu`, `tanh`
written from it) use these branch-free forms instead, inlined into the loop so it vectorizes: Cephes'
expf (range reduction to [-ln2/2, ln2/2], a degree-6 polynomial, 2^n built from exponent bits, as
`ember.core.ops.rnn_cells` does for the LSTM) and Cephes' tanhf (an odd polynomial below 0.625,
1 - 2 / (exp(2|x|) + 1) above). Both are within about 2 ulp of the correctly rounded value (numpy's
are within 1): a fused group with them is close to eager, not bitwise. Overflow gives inf, NaN
passes, results down to the denormals are scaled by 2^n in two normal factors.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ember.core.ops.vector_exp import exp32

__all__ = ["exp32", "tanh32"]


@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def tanh32(x):
    """tanh of a float32, branch-free: an odd polynomial below |x| = 0.625, 1 - 2 / (exp(2|x|) + 1) above."""
    a = abs(x)
    z = a * a
    small = ((((np.float32(-5.70498872745e-3) * z + np.float32(2.06390887954e-2)) * z
               - np.float32(5.37397155531e-2)) * z + np.float32(1.33314422036e-1)) * z
             - np.float32(3.33332819422e-1)) * z * a + a
    big = np.float32(1.0) - np.float32(2.0) / (exp32(np.float32(2.0) * a) + np.float32(1.0))
    r = big if a > np.float32(0.625) else small
    return math.copysign(r, x)  # tanh(-0.0) is -0.0
