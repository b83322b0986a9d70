"""`exp32`: a float32 `exp` that LLVM vectorizes, for Numba loops over float32 (NOTE [ Vectorized exp32 ]).

NOTE [ Vectorized exp32 ]
This Numba has no SVML, so `math.exp` in a loop is a libm call per value and the loop stays scalar;
numpy's own float32 `exp` runs without SIMD here too (1.7 ns a value). `exp32` is Cephes' expf written
branch-free (selects only) so that, inlined into a loop, the loop vectorizes: range reduction to
[-ln2/2, ln2/2], a degree-6 polynomial, 2^n built from exponent bits. Within about 2 ulp of the
correctly rounded value (numpy's is within 1). Overflow gives inf, NaN passes, results down to the
denormals are scaled by 2^n in two normal factors. Used by core's softmax row passes and ember.jit's
fused kernels. Numba's disk cache keys a kernel on its own file only: a change here needs the
caches of the kernels that inline it cleared (ember.jit names its kernels by this file's hash).
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

__all__ = ["exp32"]


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
