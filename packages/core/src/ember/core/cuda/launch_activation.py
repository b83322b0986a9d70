"""CUDA kernels of the activations and their backward ops, on the elementwise template: the
tensor operands are strided and broadcast like any elementwise op, the attributes are scalars."""

from __future__ import annotations

from ember.core.cuda import launch_util as lu
from ember.core.cuda.kernels import activation as KA
from ember.core.cuda.launch_elementwise import finish, launch, result, targets
from ember.core.dispatch import get_op
from ember.core.ops.activation import ROW_MAJOR_RESULTS

__all__ = ["register"]


def _attrs(name: str, args: tuple) -> tuple:
    # gelu's `approximate` is a string on the host and a flag on the device
    return (args[0] == "tanh",) if name == "gelu" else tuple(float(a) for a in args)


def _make(name: str, fwd, bwd):
    row_major = name in ROW_MAJOR_RESULTS

    def forward(x, *args, out=None):  # a floating tensor, checked by the op's meta step
        ct = lu.compute_type(x._dtype)
        res, target = targets(out, x._shape, x._dtype, x._storage.device, name, () if row_major else (x,))
        attrs = _attrs(name, args)
        return finish(launch(fwd, (x, *attrs), res, (ct,) * (1 + len(attrs))), target)

    def backward(grad, x, *args):
        ct = lu.compute_type(x._dtype)
        res = result(None, x._shape, x._dtype, x._storage.device, name, (grad, x))
        attrs = _attrs(name, args)
        return launch(bwd, (grad, x, *attrs), res, (ct,) * (2 + len(attrs)))

    return forward, backward


def _fused(fn):
    def backward(grad, saved):
        ct = lu.compute_type(saved._dtype)
        res = result(None, saved._shape, saved._dtype, saved._storage.device, "", (grad, saved))
        return launch(fn, (grad, saved), res, (ct, ct))
    return backward


def register() -> None:
    for name, (fwd, bwd, _, _) in KA.ACTIVATIONS.items():
        f, b = _make(name, fwd, bwd)
        get_op(name).register("cuda")(f)
        get_op("threshold_backward" if name == "threshold" else f"{name}_backward").register("cuda")(b)
    for name, fn in KA.FUSED_BACKWARD.items():
        get_op(name).register("cuda")(_fused(fn))


def ptx_cases():
    from numba import types as T

    from ember.core.cuda.kernels import elementwise as K

    m, f32, i = T.int64[:, ::1], T.float32[::1], T.int64
    for name, (fwd, bwd, nf, nb) in KA.ACTIVATIONS.items():
        fa = (T.boolean,) if name == "gelu" else (T.float64,) * nf
        ba = (T.boolean,) if name == "gelu" else (T.float64,) * nb
        yield (f"{name}[float32]", K.kernel_function(fwd, "t" + "s" * nf, (T.float32,) * (1 + nf), False),
               (i, m, f32, i, f32, i, *fa))
        yield (f"{name}_backward[float32]",
               K.kernel_function(bwd, "tt" + "s" * nb, (T.float32,) * (2 + nb), True),
               (i, m, f32, i, f32, i, f32, i, *ba))
    for name, fn in KA.FUSED_BACKWARD.items():
        yield (f"{name}[float64]", K.kernel_function(fn, "tt", (T.float64, T.float64), False),
               (i, m, T.float64[::1], i, T.float64[::1], i, T.float64[::1], i))
