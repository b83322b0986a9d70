"""LLVM's fused multiply-add for Numba code (imported lazily, by kernel modules only): `a * b + c` rounded once,
as the FMA instructions PyTorch's CPU kernels execute (its vectorized `fmadd`, and the compiler's contraction of
`a * b + c` in its scalar loops)."""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def fma(typingctx, a, b, c):
    """`a * b + c` with one rounding, in float32 when all three are float32, else in float64."""
    t = types.float32 if a == b == c == types.float32 else types.float64
    ll = ir.FloatType() if t == types.float32 else ir.DoubleType()

    def codegen(context, builder, signature, args):
        args = [context.cast(builder, v, ty, t) for v, ty in zip(args, signature.args)]
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ll, [ll] * 3),
                                            f"llvm.fma.f{32 if t == types.float32 else 64}")
        return builder.call(fn, args)

    return t(a, b, c), codegen


def axpy(input, other, alpha):
    """PyTorch's CPU `add(input, other, alpha=alpha)` of float32/float64: `fmadd(other, alpha, input)`."""
    return fma(other, alpha, input)
