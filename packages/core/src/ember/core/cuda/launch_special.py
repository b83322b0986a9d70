"""CUDA kernels of the special functions (`ember.core.ops.special`) on the elementwise template: the
same scalar functions as the CPU kernels (`special_math`), compiled as device functions. They
compute in float64 whatever the result dtype, as the CPU kernels do, and store in the result dtype."""

from __future__ import annotations

from functools import cache

from ember.core.cuda.kernels import elementwise as K
from ember.core.cuda.launch_elementwise import _device, _result_shape, launch, result
from ember.core.dispatch import get_op
from ember.core.ops import special as S
from ember.core.ops.elementwise import binary_dtype

__all__ = ["register"]


@cache
def _namespace() -> dict:
    from numba import cuda

    from ember.core.ops import special_math

    return special_math.compiled(cuda.jit(device=True))


def entry(fname: str):
    """The Python entry point of special_math's `fname`, its helpers bound to device functions."""
    return _namespace()[fname + "_py"]


def _f64():
    from numba import types

    return types.float64


def _unary(name: str, fname: str):
    def kernel(x, *, out=None):
        res = result(out, x._shape, S.float_dtype(x), x._storage.device, name, (x,))
        return launch(entry(fname), (x,), res, (_f64(),))
    return kernel


def _binary(name: str, fname: str):
    def kernel(a, b, *, out=None):
        res = result(out, _result_shape(name, a, b), binary_dtype("float", a, b), _device(a, b), name, (a, b))
        return launch(entry(fname), (a, b), res, (_f64(), _f64()))
    return kernel


def _polygamma(n, x, *, out=None):
    res = result(out, x._shape, S.float_dtype(x), x._storage.device, "polygamma", (x,))
    return launch(entry("polygamma"), (float(n), x), res, (_f64(), _f64()))


def _logit(x, eps=None, *, out=None):
    res = result(out, x._shape, S.float_dtype(x), x._storage.device, "logit", (x,))
    return launch(entry("logit"), (x, -1.0 if eps is None else float(eps)), res, (_f64(), _f64()))


def register() -> None:
    for name, fname, _ in S.UNARY:
        get_op(name).register("cuda")(_unary(name, fname))
    for name, fname, _ in S.BINARY:
        get_op(name).register("cuda")(_binary(name, fname))
    get_op("polygamma").register("cuda")(_polygamma)
    get_op("logit").register("cuda")(_logit)


def ptx_cases():
    """(label, Python kernel function, argument types) for `ptx_check`: every special function,
    float32 results through the strided template (float64 compute)."""
    from numba import types as T

    meta, f32, f64 = T.int64[:, ::1], T.float32[::1], T.float64
    for name, fname, _ in S.UNARY:
        yield (f"{name}[float32]", K.kernel_function(entry(fname), "t", (f64,), False),
               (T.int64, meta, f32, T.int64, f32, T.int64))
    for name, fname, _ in S.BINARY:
        yield (f"{name}[float32]", K.kernel_function(entry(fname), "tt", (f64, f64), False),
               (T.int64, meta, f32, T.int64, f32, T.int64, f32, T.int64))
    for name in ("polygamma", "logit"):
        kinds, args = ("st", (f64, f32, T.int64)) if name == "polygamma" else ("ts", (f32, T.int64, f64))
        yield (f"{name}[float32]", K.kernel_function(entry(name), kinds, (f64, f64), False),
               (T.int64, meta, f32, T.int64, *args))
