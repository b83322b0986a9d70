"""`add`/`sub` with `alpha != 1` as one kernel, with PyTorch's CPU roundings: float32/float64 one fused
multiply-add, `fmadd(other, alpha, input)` (alpha cast to the dtype; `sub` adds `-alpha`); bfloat16/float16
in float32 with alpha and the operands rounded to the dtype first (the product is then exact), rounded once at
the end, as PyTorch's vectorized loop; integers and complex numbers `input + other * alpha` in the dtype."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ember.core import dtypes

__all__ = ["scaled"]

_FMA = (dtypes.float32, dtypes.float64)
_HALF = (dtypes.bfloat16, dtypes.float16)


def scaled(name: str, alpha, dt: dtypes.dtype) -> Callable:
    """The numpy-level function `f(x, y, out=None, dtype=None)` of `name(x, y, alpha=alpha)` computed in `dt`
    (the binary kernel's `fn` for add and sub, which takes `alpha` only through here)."""
    if name not in ("add", "sub"):
        raise TypeError(f"{name}() got an unexpected keyword argument 'alpha'")
    if dt in _FMA:
        from ember.core.ops import numba_cpu

        a = dt.np.type(-alpha if name == "sub" else alpha)
        axpy = numba_cpu.axpy_ufunc()

        def fma(x, y, out=None, dtype=None):
            return axpy(np.asarray(x, dt.np), np.asarray(y, dt.np), a, out=out)

        return fma
    if dt in _HALF:
        f32 = np.float32
        a = f32(np.asarray(f32(alpha)).astype(dt.np))  # as PyTorch's `alpha.to<scalar_t>()`: through float

        def half(x, y, out=None, dtype=None):
            x, y = np.asarray(x, dt.np).astype(f32), np.asarray(y, dt.np).astype(f32)
            r = (np.subtract if name == "sub" else np.add)(x, np.multiply(y, a), dtype=f32).astype(dt.np)
            if out is None:
                return r
            np.copyto(out, r)
            return out

        return half
    # integers wrap alpha into the dtype (as PyTorch's conversion); complex and other floats take it as it is
    a = np.array(alpha).astype(dt.np) if dt.np.kind in "iu" else alpha
    ufunc = np.subtract if name == "sub" else np.add

    def plain(x, y, out=None, dtype=None):
        return ufunc(x, np.multiply(y, a, dtype=dt.np), out=out, dtype=dt.np)

    return plain
