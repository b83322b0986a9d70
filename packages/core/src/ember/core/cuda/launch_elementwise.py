"""CUDA kernels of the elementwise ops, generated from the UNARY/BINARY tables of
`ember.core.ops.elementwise`, plus where/clamp/lerp and the copies (copy_, fill_, clone, to_dtype).

Every launch queues on the current stream and returns at once.
"""

from __future__ import annotations

import math

import numpy as np

from ember.core import dtypes
from ember.core.cuda import launch_util as lu
from ember.core.cuda.kernels import elementwise as K
from ember.core.dispatch import get_op
from ember.core.opinfo import BOOL, FLOAT
from ember.core.ops import elementwise as ew
from ember.core.ops import memfmt
from ember.core.ops._util import shape_error
from ember.core.tensor import Tensor, describe

__all__ = ["launch", "register", "copy_into", "result", "targets", "finish"]


def _scalar(x):
    """A Python scalar operand, or a CPU 0-dim tensor read as one (no device sync)."""
    if isinstance(x, Tensor):
        return x._np().item()
    return x


def _is_device_tensor(x) -> bool:
    return isinstance(x, Tensor) and not (x._storage.device.type == "cpu" and x.ndim == 0)


def _bstrides(t: Tensor, shape: tuple[int, ...]) -> tuple[int, ...]:
    lead = len(shape) - t.ndim
    return (0,) * lead + tuple(0 if n == 1 else s for n, s in zip(t._shape, t._strides, strict=True))


def launch(fn, operands: tuple, out: Tensor, casts: tuple) -> Tensor:
    """Run `out[i] = fn(*(cast(op[i]) ...))` over `out`'s shape; operands broadcast to it."""
    shape = out._shape
    n = out.numel()
    if n == 0:
        return out
    tensors = [x for x in operands if _is_device_tensor(x)]
    if any(x._storage.device.type != "cuda" for x in tensors):
        bad = next(x for x in tensors if x._storage.device.type != "cuda")
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices; got "
                           f"{describe(bad)} and {describe(out)}")
    dense = all(lu.is_dense(t, shape) for t in (*tensors, out)) or _alike(tensors, out)
    kinds = "".join("t" if _is_device_tensor(x) else "s" for x in operands)
    if dense:
        m = lu.meta(((1,),))
    else:
        m = lu.meta((shape, out._strides, *(_bstrides(t, shape) for t in tensors)))
    args = [n, m, lu.typed(out), out._offset]
    for x in operands:
        if _is_device_tensor(x):
            args += [lu.typed(x), x._offset]
        else:
            args.append(_scalar(x))
    blocks, threads = lu.grid(n)
    K.kernel(fn, kinds, casts, dense)[blocks, threads, lu.stream()](*args)
    return out


def _alike(tensors: list, out: Tensor) -> bool:
    """Every operand dense in the same dim order as `out` (channels_last + channels_last): the flat index
    of the dense kernel then walks each one's storage in the same element order."""
    shape, strides = out._shape, out._strides
    return (all(t._shape == shape and t._strides == strides for t in tensors)
            and memfmt.dense_strides(shape, strides))


def _result_shape(name: str, *xs) -> tuple[int, ...]:
    shapes = [x._shape for x in xs if _is_device_tensor(x)]
    try:
        return tuple(np.broadcast_shapes(*shapes)) if shapes else ()
    except ValueError:
        raise shape_error(name, *xs) from None


def _device(*xs):
    for x in xs:
        if isinstance(x, Tensor) and x._storage.device.type == "cuda":
            return x._storage.device
    raise RuntimeError("no CUDA tensor among the operands")


def result(out, shape: tuple[int, ...], dt: dtypes.dtype, dev, name: str, operands: tuple,
            numbers: bool = True) -> Tensor:
    """`out`, checked, or a new result laid out as its operands are (NOTE [ Elementwise result layout ] in
    `ember.core.ops.memfmt`: `channels_last + 1` is channels_last), as the CPU kernels give it."""
    if out is None:
        strides = memfmt.elementwise_strides(shape, operands, numbers)
        if strides is not None:
            base = lu.empty((math.prod(shape),), dt, dev)
            return Tensor._make(base._storage, 0, tuple(shape), strides, dt)
    return lu.prepare_out(out, shape, dt, dev, name, ew.layout_of(operands, numbers))


def targets(out, shape: tuple[int, ...], dt: dtypes.dtype, dev, name: str, operands: tuple,
            numbers: bool = True) -> tuple[Tensor, Tensor | None]:
    """(the tensor a kernel writes, the `out=` to cast it into afterwards, or None). The op computes in its
    result dtype `dt`, as PyTorch's TensorIterator does: an `out` of another dtype gets the result cast
    (`add(bool, bool, out=int32)` is an `or`, so 1; a float16 result rounds before an `out` of float64
    widens it), through a temporary of `dt`. `out` is checked and resized first (`result`)."""
    res = result(out, shape, dt, dev, name, operands, numbers)
    if out is None or res._dtype is dt:
        return res, None
    return result(None, shape, dt, dev, name, operands, numbers), res


def finish(res: Tensor, target: Tensor | None) -> Tensor:
    """The op's result: `res`, or `target` (an `out=` of another dtype) holding it cast (see `targets`)."""
    return res if target is None else copy_into(target, res)


def _make_unary(name: str, rule: str):
    f_float, f_int = K.UNARY[name]
    bool_refusal = ew.BOOL_REFUSALS.get(name)

    def kernel(x, *, out=None):  # checked by the op's meta step (neg of a bool tensor)
        if bool_refusal is not None and x._dtype is dtypes.bool:
            raise ew.BoolOperatorError(bool_refusal)
        dt = ew._unary_dtype(rule, x)
        # BOOL-rule ops compute in the input's type; the others in the result dtype
        ct = lu.compute_type(x._dtype if rule == BOOL else dt)
        fn = f_float if ct.name.startswith("float") else f_int
        res, target = targets(out, x._shape, dt, x._storage.device, name, (x,))
        return finish(launch(fn, (x,), res, (ct,)), target)

    return kernel


def _make_binary(row):
    name, rule = row.name, row.info.rule
    f_float, f_int = K.BINARY[name]
    refused = ew.refused_dtypes(row)

    def kernel(a, b, *, alpha=None, out=None):
        ew.check_operands(row, a, b)  # the CPU kernel's TypeError for `None`, a string, a list ...
        dt = ew.binary_dtype(rule, a, b)
        if alpha is not None:  # add's and sub's: `b * alpha` first (two roundings, where the CPU's fma has one)
            if name not in ("add", "sub"):
                raise TypeError(f"{name}() got an unexpected keyword argument 'alpha'")
            if isinstance(b, Tensor):
                b = get_op("mul")(b if b._dtype is dt else get_op("to_dtype")(b, dt), alpha)
            else:
                b = b * alpha
        if refused and dt in refused:  # the CPU kernel's error, type and message
            raise ew.dtype_not_supported(name, dt, "cuda")
        if type(b) is int and dt.np.kind in "iu":  # PyTorch wraps it into the dtype (uint8 > -3 is uint8 > 253)
            b = int(np.array(b).astype(dt.np))
        if type(a) is int and dt.np.kind in "iu":
            a = int(np.array(a).astype(dt.np))
        shape = _result_shape(name, a, b)
        ct = lu.compute_type(dt)
        fn = f_float if ct.name.startswith("float") else f_int
        res_dt = dtypes.bool if rule == BOOL else dt
        res, target = targets(out, shape, res_dt, _device(a, b), name, (a, b), name != "pow")
        return finish(launch(fn, (a, b), res, (ct, ct)), target)

    return kernel


def _where(condition, x, other, *, out=None):
    dt = dtypes.result_type(x, other)
    shape = _result_shape("where", condition, x, other)
    ct = lu.compute_type(dt)
    res, target = targets(out, shape, dt, _device(condition, x, other), "where", (condition, x, other))
    return finish(launch(K.OTHER["where"], (condition, x, other), res, (None, ct, ct)), target)


def _clamp(input, min=None, max=None, *, out=None):
    bounds = tuple(v for v in (min, max) if v is not None)
    dt = dtypes.result_type(input, *bounds)
    shape = _result_shape("clamp", input, *bounds)
    ct = lu.compute_type(dt)
    res, target = targets(out, shape, dt, input._storage.device, "clamp", (input, min, max), False)
    fn = "clamp" if len(bounds) == 2 else ("clamp_min" if max is None else "clamp_max")
    if dt.is_floating_point and any(isinstance(b, Tensor) for b in bounds):  # clamp.Tensor: a NaN is canonical
        fn += "_nan"
    fn = K.OTHER[fn]
    return finish(launch(fn, (input, *bounds), res, (ct,) * (1 + len(bounds))), target)


def _lerp(x, end, weight, *, out=None):
    dt = dtypes.result_type(x, end)
    shape = _result_shape("lerp", x, end, weight)
    ct = lu.compute_type(dt)
    res, target = targets(out, shape, dt, x._storage.device, "lerp", (x, end, weight), False)
    return finish(launch(K.OTHER["lerp"], (x, end, weight), res, (ct, ct, ct)), target)


def copy_into(dst: Tensor, src) -> Tensor:
    """dst[...] = src on the device: broadcast and cast (src a CUDA tensor or a scalar whose shape
    broadcasts to dst's: checked by copy_'s meta step, or true by construction)."""
    return launch(K.OTHER["identity"], (src,), dst, (None,))


def _copy(self, src, non_blocking=False):
    from ember.core.cuda import transfer

    if isinstance(src, Tensor) and src._storage.device.type == "cpu" and src.ndim:
        src = transfer.to_device(src, self._storage.device, non_blocking)
    return copy_into(self, src)


def _fill(self, value):
    return launch(K.OTHER["identity"], (value,), self, (None,))


def _clone(x, *, memory_format=None):
    perm = None if memory_format is None else memfmt.dim_order(x, memory_format, "clone")
    if perm is None:
        return copy_into(lu.empty(x._shape, x._dtype, x._storage.device), x)
    out = memfmt.restride(lu.empty(memfmt.permuted_shape(x._shape, perm), x._dtype, x._storage.device), perm,
                           memory_format, x)
    copy_into(out, x)
    return out


def _to_dtype(x, dtype):
    return copy_into(lu.empty(x._shape, dtype, x._storage.device), x)


def register() -> None:
    """Register the CUDA kernels of every elementwise op against the CPU ops' declarations."""
    for row in ew.UNARY:
        get_op(row.name).register("cuda")(_make_unary(row.name, row.info.rule))
    for row in ew.BINARY:
        get_op(row.name).register("cuda")(_make_binary(row))
    for name, fn in (("where", _where), ("clamp", _clamp), ("lerp", _lerp), ("copy_", _copy), ("fill_", _fill),
                     ("clone", _clone), ("to_dtype", _to_dtype)):
        get_op(name).register("cuda")(fn)


def ptx_cases():
    """(label, Python kernel function, argument types) for `ptx_check`: every op of the family."""
    from numba import types as T

    meta = T.int64[:, ::1]
    f16, f32, f64, i64, b1 = T.float16[::1], T.float32[::1], T.float64[::1], T.int64[::1], T.boolean[::1]
    arrays = {"float16": (f16, T.float32), "float32": (f32, T.float32), "float64": (f64, T.float64),
              "int64": (i64, T.int64)}
    for row in ew.UNARY:
        name, rule = row.name, row.info.rule
        for dname, (arr, ct) in arrays.items():
            if rule == FLOAT and dname == "int64":
                continue
            out = b1 if rule == BOOL else arr
            fn = K.UNARY[name][0 if ct is not T.int64 else 1]
            # every dtype through the strided template; the dense one (same body) for float32 only
            for dense in (False, True) if dname == "float32" else (False,):
                yield (f"{name}[{dname}{', dense' if dense else ''}]", K.kernel_function(fn, "t", (ct,), dense),
                       (T.int64, meta, out, T.int64, arr, T.int64))
    for row in ew.BINARY:
        name, rule = row.name, row.info.rule
        integer_only = not any(d.is_floating_point for d in row.info.dtypes_for("cpu"))
        for dname, (arr, ct) in arrays.items():
            if (rule == FLOAT and dname == "int64") or (integer_only and dname != "int64"):
                continue
            out = b1 if rule == BOOL else arr
            fn = K.BINARY[name][0 if ct is not T.int64 else 1]
            yield (f"{name}[{dname}]", K.kernel_function(fn, "tt", (ct, ct), False),
                   (T.int64, meta, out, T.int64, arr, T.int64, arr, T.int64))
            if dname not in ("float32", "int64"):
                continue
            yield (f"{name}[{dname}, scalar, dense]", K.kernel_function(fn, "ts", (ct, ct), True),
                   (T.int64, meta, out, T.int64, arr, T.int64, T.float64 if ct is not T.int64 else T.int64))
    yield ("where[float32]", K.kernel_function(K.OTHER["where"], "ttt", (None, T.float32, T.float32), False),
           (T.int64, meta, f32, T.int64, b1, T.int64, f32, T.int64, f32, T.int64))
    yield ("clamp[float32]", K.kernel_function(K.OTHER["clamp"], "tss", (T.float32,) * 3, False),
           (T.int64, meta, f32, T.int64, f32, T.int64, T.float64, T.float64))
    yield ("clamp_nan[float32]", K.kernel_function(K.OTHER["clamp_nan"], "ttt", (T.float32,) * 3, False),
           (T.int64, meta, f32, T.int64, f32, T.int64, f32, T.int64, f32, T.int64))
    for name in ("clamp_min_nan", "clamp_max_nan"):
        yield (f"{name}[float32]", K.kernel_function(K.OTHER[name], "tt", (T.float32,) * 2, False),
               (T.int64, meta, f32, T.int64, f32, T.int64, f32, T.int64))
    yield ("clamp_min[int64]", K.kernel_function(K.OTHER["clamp_min"], "tt", (T.int64,) * 2, True),
           (T.int64, meta, i64, T.int64, i64, T.int64, i64, T.int64))
    yield ("lerp[float32]", K.kernel_function(K.OTHER["lerp"], "tts", (T.float32,) * 3, False),
           (T.int64, meta, f32, T.int64, f32, T.int64, f32, T.int64, T.float64))
    for src, dst in ((f32, f16), (f64, i64), (f32, b1), (b1, f32), (i64, f16), (f16, f64)):
        yield (f"copy[{src.dtype}->{dst.dtype}]", K.kernel_function(K.OTHER["identity"], "t", (None,), False),
               (T.int64, meta, dst, T.int64, src, T.int64))
    yield ("fill[float32]", K.kernel_function(K.OTHER["identity"], "s", (None,), True),
           (T.int64, meta, f32, T.int64, T.float64))
