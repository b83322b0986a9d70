"""`exp32`: a float32 `exp` that LLVM vectorizes, for Numba loops over float32.

NOTE [ Vectorized exp32 ]
This Numba has no SVML, so `math.exp` in a loop is a libm call per value and the loop stays scalar;
numpy's own float32 `exp` runs without SIMD here too (1.7 ns a value). `exp32` is Cephes' expf
written branch-free (selects only) so that, inlined into a loop, the loop vectorizes: range
reduction to [-ln2/2, ln2/2], a degree-6 polynomial evaluated by Estrin's scheme through
`llvm.fmuladd` (one FMA where the CPU has one, so the dependency chain is short), 2^n built from
exponent bits. Within about 2 ulp of the correctly rounded value (numpy's is within 1); with FMA the
last bit depends on the CPU. Overflow gives inf, NaN passes, results down to the denormals are
scaled by 2^n in two normal factors. Used by core's softmax row passes, eager's float32 `exp` family
(`ember.core.ops.vector_math`) and ember.jit's fused kernels. Numba's disk cache keys a kernel on its
own file only: a change here needs the caches of the kernels that inline it cleared (ember.jit names
its kernels by this file's hash).
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

__all__ = ["exp32", "fmuladd", "float32_from_bits"]


@intrinsic
def float32_from_bits(typingctx, bits):
    """The float32 whose bits are the int32 `bits`."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())
    return types.float32(types.int32), codegen


@intrinsic
def fmuladd(typingctx, a, b, c):
    """a * b + c, as one fused multiply-add where the CPU has one (llvm.fmuladd), else a multiply and an add."""
    def codegen(context, builder, signature, args):
        t = args[0].type
        fn = builder.module.declare_intrinsic("llvm.fmuladd", [t], ir.FunctionType(t, [t, t, t]))
        return builder.call(fn, args)
    return a(a, a, a), codegen


@numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
def exp32(x):
    """exp of a float32, branch-free (selects only), so the loop around it vectorizes."""
    c = min(max(x, np.float32(-104.0)), np.float32(88.75))
    fx = np.floor(c * np.float32(1.44269504088896341) + np.float32(0.5))
    r = fmuladd(fx, np.float32(-0.693359375), c)  # exact: fx * 0.693359375 has few bits
    r = fmuladd(fx, np.float32(2.12194440e-4), r)
    # the degree-5 polynomial by Estrin's scheme: three independent pairs, so the chain is 3 FMAs deep, not 5
    r2 = r * r
    y = fmuladd(r2, fmuladd(r, np.float32(8.3334519073e-3), np.float32(4.1665795894e-2)),
                fmuladd(r, np.float32(1.6666665459e-1), np.float32(5.0000001201e-1)))
    y = fmuladd(r2 * r2, fmuladd(r, np.float32(1.9875691500e-4), np.float32(1.3981999507e-3)), y)
    # 2^n as two normal factors 2^h 2^(n-h), so n from -150 to 128 (denormal and near-overflow results) scales
    n = np.int32(fx)
    h = n >> np.int32(1)
    e = (fmuladd(y, r2, r) + np.float32(1.0)) * float32_from_bits((h + np.int32(127)) << np.int32(23))
    e = e * float32_from_bits((n - h + np.int32(127)) << np.int32(23))
    e = np.float32(np.inf) if x > np.float32(88.72283) else e
    e = np.float32(0.0) if x < np.float32(-103.97208) else e
    return x if x != x else e
