"""CUDA kernels of the reductions (`ember.core.ops.reduce`): sum, mean, prod, nansum, nanmean,
amax/amin, max/min along a dim, argmax/argmin, var/std(_mean), logsumexp, vector_norm,
all/any, count_nonzero. Dtype rules and errors are the CPU kernels' (shared helpers)."""

from __future__ import annotations

import math
from functools import cache

import numpy as np
from numba import cuda

from ember.core import dtypes
from ember.core.cuda import launch_util as lu
from ember.core.cuda.kernels import reduce as KR
from ember.core.dispatch import get_op
from ember.core.ops import reduce as R
from ember.core.tensor import Tensor

__all__ = ["register", "fold"]


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _split(x: Tensor, dims: tuple[int, ...]):
    """(kept dims, reduced shape, reduced input strides) with the reduced dims permuted last."""
    kept = tuple(d for d in range(x.ndim) if d not in dims)
    return kept, tuple(x._shape[d] for d in dims), tuple(x._strides[d] for d in dims)


def _kept_strides(t: Tensor, kept: tuple[int, ...], keepdim: bool) -> tuple[int, ...]:
    return tuple(t._strides[d] for d in kept) if keepdim else t._strides


_T = lu.REDUCE_THREADS


@cache
def _dummy(np_dtype):
    return cuda.device_array(1, np_dtype)


def _grid(nout: int) -> int:
    return lu.grid(nout, 1)[0]


def fold(x: Tensor, dims, keepdim: bool, out, dt, name: str, pre: str, comb: str, post: str, init,
         p: float = 0.0, aux: Tensor | None = None, acc_dt=None) -> Tensor:
    """Reduce `x` over `dims` with the fold template; the result has dtype `dt`."""
    dims = tuple(dims)
    res = lu.prepare_out(out, R._reduced_shape(x._shape, dims, keepdim), dt, x._storage.device, name)
    kept, rshape, rstrides = _split(x, dims)
    kshape = tuple(x._shape[d] for d in kept)
    nout = _numel(kshape)
    if nout == 0:
        return res
    acc_t = lu.compute_type(acc_dt or dt)
    km = lu.meta((kshape, _kept_strides(res, kept, keepdim), tuple(x._strides[d] for d in kept)))
    rm = lu.meta((rshape, rstrides))
    a = lu.typed(aux) if aux is not None else _dummy(np.dtype(acc_t.name))
    k = KR.fold(pre, comb, post, acc_t, _T)
    k[_grid(nout), _T, lu.stream()](nout, _numel(rshape), km, rm, lu.typed(res), res._offset,
                                            lu.typed(x), x._offset, a, float(p), init)
    return res


def _sum(x, dims, keepdim=False, dtype=None, *, out=None):
    return fold(x, dims, keepdim, out, R._int_to_long(x, dtype), "sum", "x", "add", "keep", 0)


def _nansum(x, dims, keepdim=False, dtype=None, *, out=None):
    return fold(x, dims, keepdim, out, R._int_to_long(x, dtype), "nansum", "nan_to_zero", "add", "keep", 0)


def _mean(x, dims, keepdim=False, dtype=None, *, out=None):
    return fold(x, dims, keepdim, out, R._float_only(x, dtype, "mean"), "mean", "x", "add", "div_n", 0)


def _nanmean(x, dims, keepdim=False, dtype=None, *, out=None):
    dt = R._float_only(x, dtype, "nanmean")
    s = fold(x, dims, keepdim, None, dt, "nanmean", "nan_to_zero", "add", "keep", 0)
    n = fold(x, dims, keepdim, None, dt, "nanmean", "not_nan", "add", "keep", 0)
    return get_op("div")(s, n, out=out)


def _prod(x, dims, keepdim=False, dtype=None, *, out=None):
    return fold(x, dims, keepdim, out, R._int_to_long(x, dtype), "prod", "x", "mul", "keep", 1)


def _extreme_init(dt, largest: bool):
    if dt.is_floating_point:
        return -math.inf if largest else math.inf
    if dt is dtypes.bool:
        return 0 if largest else 1
    info = np.iinfo(dt.np)
    return int(info.min if largest else info.max)


def _make_extreme(name: str, largest: bool):
    def kernel(x, dims, keepdim=False, *, out=None):
        R._check_nonempty(x, dims, name, full=False)
        return fold(x, dims, keepdim, out, x._dtype, name, "x", "max" if largest else "min", "keep",
                    _extreme_init(x._dtype, largest))
    return kernel


def argfold(x: Tensor, dims: tuple[int, ...], keepdim: bool, want_values: bool, largest: bool, out, name: str):
    """(values, int64 indices) of the max/min over `dims` (indices count row-major over them)."""
    shape = R._reduced_shape(x._shape, dims, keepdim)
    dev = x._storage.device
    vals = lu.prepare_out(out[0] if want_values and out is not None else None, shape, x._dtype, dev, name) \
        if want_values else None
    idx = lu.prepare_out(out[1] if want_values and out is not None else out, shape, dtypes.int64, dev, name)
    kept, rshape, rstrides = _split(x, dims)
    kshape = tuple(x._shape[d] for d in kept)
    nout = _numel(kshape)
    if nout:
        v = vals if vals is not None else idx
        km = lu.meta((kshape, _kept_strides(v, kept, keepdim), tuple(x._strides[d] for d in kept),
                      _kept_strides(idx, kept, keepdim)))
        rm = lu.meta((rshape, rstrides))
        acc_t = lu.compute_type(x._dtype)
        va = lu.typed(vals) if vals is not None else _dummy(np.dtype(x._dtype.np))[:0]
        k = KR.argfold("max" if largest else "min", acc_t, _T)
        v_off = vals._offset if vals is not None else 0
        k[_grid(nout), _T, lu.stream()](nout, _numel(rshape), km, rm, va, v_off, lu.typed(idx), idx._offset,
                                        lu.typed(x), x._offset)
    return (vals, idx) if want_values else idx


def _make_dim_extreme(name: str, largest: bool):
    def kernel(x, dim, keepdim=False, *, out=None):
        R._check_nonempty(x, (dim,), name, full=False)
        return argfold(x, (dim,) if x.ndim else (), keepdim, True, largest, out, name)
    return kernel


def _make_arg(name: str, largest: bool):
    def kernel(x, dim=None, keepdim=False, *, out=None):
        R._check_nonempty_arg(x, dim, name)
        if dim is None:
            r = argfold(x, tuple(range(x.ndim)), keepdim, False, largest, out, name)
            return r
        return argfold(x, (dim,) if x.ndim else (), keepdim, False, largest, out, name)
    return kernel


def _make_moment(name: str, take_sqrt: bool, with_mean: bool):
    def kernel(x, dims, correction=1, keepdim=False, *, out=None):  # checked by the op's meta step
        dims = tuple(dims)
        kept, rshape, rstrides = _split(x, dims)
        shape = R._reduced_shape(x._shape, dims, keepdim)
        dev = x._storage.device
        var = lu.prepare_out(None if with_mean else out, shape, x._dtype, dev, name)
        mean = lu.empty(shape, x._dtype, dev) if with_mean else None
        kshape = tuple(x._shape[d] for d in kept)
        nout = _numel(kshape)
        if nout:
            m_strides = _kept_strides(mean, kept, keepdim) if with_mean else _kept_strides(var, kept, keepdim)
            km = lu.meta((kshape, _kept_strides(var, kept, keepdim), tuple(x._strides[d] for d in kept),
                          m_strides))
            rm = lu.meta((rshape, rstrides))
            acc_t = lu.compute_type(x._dtype)
            ma = lu.typed(mean) if with_mean else _dummy(np.dtype(x._dtype.np))[:0]
            k = KR.welford(acc_t, _T)
            k[_grid(nout), _T, lu.stream()](nout, _numel(rshape), km, rm, lu.typed(var), var._offset, ma,
                                                    mean._offset if with_mean else 0, lu.typed(x), x._offset,
                                                    float(correction), take_sqrt)
        return (var, mean) if with_mean else var
    return kernel


def _logsumexp(x, dims, keepdim=False, *, out=None):
    dt = x._dtype if x._dtype.is_floating_point else dtypes.get_default_dtype()
    dims = tuple(dims)
    if _numel(_split(x, dims)[1]) == 0:
        m = lu.empty(R._reduced_shape(x._shape, dims, False), dt, x._storage.device).fill_(0)
    else:
        m = fold(x, dims, False, None, dt, "logsumexp", "x", "max", "keep", -math.inf)
    return fold(x, dims, keepdim, out, dt, "logsumexp", "exp_shifted", "add", "log_shifted", 0, aux=m)


def _vector_norm(x, ord=2, dims=(), keepdim=False, dtype=None, *, out=None):  # noqa: A002 - PyTorch's name
    dt = dtypes.as_dtype(dtype) if dtype is not None else x._dtype  # checked by the op's meta step
    name = "linalg.vector_norm"
    if math.isinf(ord):
        return fold(x, dims, keepdim, out, dt, name, "abs", "max" if ord > 0 else "min", "keep",
                    -math.inf if ord > 0 else math.inf)
    if ord == 0:
        return fold(x, dims, keepdim, out, dt, name, "nonzero", "add", "keep", 0)
    if ord == 1 or (x.numel() and math.prod(x._shape[d] for d in dims) == 1):  # one element: |x|, as PyTorch
        return fold(x, dims, keepdim, out, dt, name, "abs", "add", "keep", 0)
    if ord == 2:
        return fold(x, dims, keepdim, out, dt, name, "sq", "add", "sqrt", 0)
    return fold(x, dims, keepdim, out, dt, name, "abs_pow", "add", "root", 0, p=ord)


def _make_logical(name: str, every: bool):
    def kernel(x, dims, keepdim=False, *, out=None):
        dt = dtypes.uint8 if x._dtype is dtypes.uint8 else dtypes.bool
        return fold(x, dims, keepdim, out, dt, name, "nonzero", "and" if every else "or", "keep", int(every),
                    acc_dt=dtypes.int64)
    return kernel


def _count_nonzero(x, dims):
    return fold(x, dims, False, None, dtypes.int64, "count_nonzero", "nonzero", "add", "keep", 0)


def register() -> None:
    table = {
        "sum": _sum, "nansum": _nansum, "mean": _mean, "nanmean": _nanmean, "prod": _prod,
        "amax": _make_extreme("amax", True), "amin": _make_extreme("amin", False),
        "max_dim": _make_dim_extreme("max", True), "min_dim": _make_dim_extreme("min", False),
        "argmax": _make_arg("argmax", True), "argmin": _make_arg("argmin", False),
        "var": _make_moment("var", False, False), "std": _make_moment("std", True, False),
        "var_mean": _make_moment("var_mean", False, True), "std_mean": _make_moment("std_mean", True, True),
        "logsumexp": _logsumexp, "vector_norm": _vector_norm, "all": _make_logical("all", True),
        "any": _make_logical("any", False), "count_nonzero": _count_nonzero,
    }
    for name, fn in table.items():
        get_op(name).register("cuda")(fn)


def ptx_cases():
    """Every reduction template with the compute types the launchers use."""
    from numba import types as T

    m = T.int64[:, ::1]
    f16, f32, f64, i32, i64, b1 = (T.float16[::1], T.float32[::1], T.float64[::1], T.int32[::1], T.int64[::1],
                                   T.boolean[::1])
    th = _T
    folds = [("sum", "x", "add", "keep", f32, f32, T.float32), ("sum_half", "x", "add", "keep", f16, f16, T.float32),
             ("sum_int", "x", "add", "keep", i32, i64, T.int64), ("mean", "x", "add", "div_n", f64, f64, T.float64),
             ("prod", "x", "mul", "keep", i64, i64, T.int64), ("amax", "x", "max", "keep", f32, f32, T.float32),
             ("amin_int", "x", "min", "keep", i32, i32, T.int64),
             ("all", "nonzero", "and", "keep", f32, b1, T.int64), ("any", "nonzero", "or", "keep", b1, b1, T.int64),
             ("nansum", "nan_to_zero", "add", "keep", f32, f32, T.float32),
             ("nanmean_count", "not_nan", "add", "keep", f32, f32, T.float32),
             ("logsumexp", "exp_shifted", "add", "log_shifted", f32, f32, T.float32),
             ("norm_p", "abs_pow", "add", "root", f32, f32, T.float32), ("norm2", "sq", "add", "sqrt", f64, f64,
                                                                        T.float64),
             ("norm_inf", "abs", "max", "keep", f32, f32, T.float32),
             ("count_nonzero", "nonzero", "add", "keep", i64, i64, T.int64)]
    for label, pre, comb, post, xa, oa, acc in folds:
        fn = KR.fold_function(KR._dev(KR.PRE[pre]), KR._dev(KR.COMB[comb]), KR._dev(KR.POST[post]), acc, th)
        aux = T.Array(acc, 1, "C")
        yield (f"fold:{label}", fn, (T.int64, T.int64, m, m, oa, T.int64, xa, T.int64, aux, T.float64, T.int64))
    for label, better, xa, acc in (("max_dim", "max", f32, T.float32), ("min_dim_int", "min", i64, T.int64),
                                   ("argmax_half", "max", f16, T.float32)):
        yield (f"argfold:{label}", KR.argfold_function(KR._dev(KR.BETTER[better]), acc, th),
               (T.int64, T.int64, m, m, xa, T.int64, i64, T.int64, xa, T.int64))
    for label, xa, acc in (("var", f32, T.float32), ("var_f64", f64, T.float64)):
        yield (f"welford:{label}", KR.welford_function(th, acc),
               (T.int64, T.int64, m, m, xa, T.int64, xa, T.int64, xa, T.int64, T.float64, T.boolean))
