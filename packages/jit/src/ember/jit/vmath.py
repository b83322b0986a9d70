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
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

__all__ = ["exp32", "tanh32"]


@intrinsic
def _as_float32(typingctx, bits):
    """The float32 whose bits are the int32 `bits`."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())
    return types.float32(types.int32), codegen


@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def exp32(x):
    """exp of a float32, branch-free (selects only), so the loop around it vectorizes."""
    c = min(max(x, np.float32(-104.0)), np.float32(88.75))
    fx = np.floor(c * np.float32(1.44269504088896341) + np.float32(0.5))
    r = c - fx * np.float32(0.693359375)
    r = r - fx * np.float32(-2.12194440e-4)
    y = np.float32(1.9875691500e-4)
    y = y * r + np.float32(1.3981999507e-3)
    y = y * r + np.float32(8.3334519073e-3)
    y = y * r + np.float32(4.1665795894e-2)
    y = y * r + np.float32(1.6666665459e-1)
    y = y * r + np.float32(5.0000001201e-1)
    # 2^n as two normal factors 2^h 2^(n-h), so n from -150 to 128 (denormal and near-overflow results) scales
    n = np.int32(fx)
    h = n >> np.int32(1)
    e = (y * r * r + r + np.float32(1.0)) * _as_float32((h + np.int32(127)) << np.int32(23))
    e = e * _as_float32((n - h + np.int32(127)) << np.int32(23))
    e = np.float32(np.inf) if x > np.float32(88.72283) else e
    e = np.float32(0.0) if x < np.float32(-103.97208) else e
    return x if x != x else e


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
