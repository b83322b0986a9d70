"""Reductions: sum/mean/prod, max/min (values and indices), var/std, logsumexp, norms,
all/any, scans (cumsum, cumprod, logcumsumexp), diff, cov/corrcoef and closeness tests.

Every primitive takes its dims already normalised (a sorted tuple of non-negative ints, the
whole tensor when empty) so kernels and derivatives never re-parse `dim`. The public functions
parse PyTorch's signatures (`dim` int/tuple/None, `keepdim`, `dtype=`, `out=`) and call them.
Sorting, selection and `unique` live in `ember.core.ops.sorting`.
"""

from __future__ import annotations

import builtins
import contextvars
import functools
import math

import numpy as np
from ember.core import dtypes
from ember.core.dispatch import OVERLAP_INTERNAL, declare, node_name
from ember.core.methods import method, numpy_aliases
from ember.core.opinfo import FLOAT, FLOAT_DTYPES, INT64, PROMOTE, OpInfo
from ember.core.ops import elementwise as ew
from ember.core.ops import numba_rows
from ember.core.ops._util import (ERRSTATE, IGNORE_ALL, check_dtype_arg, check_out_dtype, cpp_type_name, index_arg,
                                  internally, normalize_dims, shape_error, silenced, warn_at_caller, wrap, write_out)
from ember.core.ops.arguments import parsed, refuse_out_with_grad
from ember.core.ops.parser_errors import int_like, overloads
from ember.core.ops.complex import ComplexNotSupported, view_as_complex, view_as_real
from ember.core.ops.structseq import return_type, return_types
from ember.core.tensor import Tensor

__all__ = [
    "return_types", "sum", "nansum", "mean", "nanmean", "prod", "amax", "amin", "max", "min", "aminmax",
    "argmax", "argmin", "var", "std", "var_mean", "std_mean", "logsumexp", "vector_norm", "all",
    "any", "count_nonzero", "cumsum", "cumprod", "logcumsumexp", "diff", "isclose", "allclose",
    "equal",
]


# `return_types.max(values, indices)` ... like `torch.return_types`, each with its `<name>_out` twin (the type
# PyTorch's `out=` calls return)
for _name in ("max", "min", "sort", "topk", "kthvalue", "median", "nanmedian", "mode", "cummax", "cummin"):
    for _variant in (_name, _name + "_out"):
        return_type(_variant, ["values", "indices"])
return_type("aminmax", ["min", "max"])
return_type("aminmax_out", ["min", "max"])



# --- helpers ------------------------------------------------------------------------------
def _dims(dim, x: Tensor, op: str) -> tuple[int, ...]:
    """`dim` as a sorted tuple of non-negative dims; None or () means every dim."""
    if not isinstance(x, Tensor):
        raise _not_a_tensor(op, x)
    if dim is None:
        return tuple(range(len(x._shape)))
    d = normalize_dims(dim, x.ndim, op)
    return d if d else tuple(range(x.ndim))


def _one_dim(dim, x: Tensor, op: str) -> int:
    """A single dim (0 for 0-dim tensors, which accept dim 0 and -1)."""
    if not isinstance(x, Tensor):
        raise _not_a_tensor(op, x)
    if dim.__class__ is int and -(n := len(x._shape) or 1) <= dim < n:  # one plain dim in range
        return dim % n
    d = normalize_dims(index_arg(dim, op, "dim"), x.ndim, op)
    return d[0] if d else 0


def _check_index_out(out) -> None:
    """An `out=` for indices (argmax, argmin) must be int64 already: PyTorch names the C++ types."""
    if out is not None and out._dtype is not dtypes.int64:
        from ember.core.ops.linalg import _c_name

        raise RuntimeError(f"Expected out tensor to have dtype long int, but got {_c_name(out)} instead")


def check_out_dtypes(out, wants) -> None:
    """Each `out=` tensor must have its dtype already (max/min's values and int64 indices, sort's, aminmax's):
    PyTorch names the C++ types of the first that does not."""
    from ember.core.ops._util import check_out_dtype

    for o, want in zip(out, wants):
        check_out_dtype(o, want)


def _check_keepdim(keepdim, op: str) -> None:
    """PyTorch's parser takes a bool keepdim only: `x.sum(0, 1)` is its TypeError, not keepdim=True."""
    if keepdim is not False and keepdim is not True:
        cls = type(keepdim)
        name = f"numpy.{cls.__name__}" if cls.__module__ == "numpy" else cls.__name__
        raise TypeError(f"{op}(): argument 'keepdim' (position 2) must be bool, not {name}")


def _not_a_tensor(op: str, x) -> TypeError:
    return TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")


def _accumulate_np(dt: dtypes.dtype):
    """numpy dtype to accumulate in: float16 and bfloat16 sum in float32, as PyTorch's CPU kernels do."""
    return np.float32 if dt is dtypes.float16 or dt is dtypes.bfloat16 else dt.np


def _finish(r, dt: dtypes.dtype, out, op: str) -> Tensor:
    """The tensor of the fresh numpy result `r` (wrap takes ownership), or `r` written into `out`."""
    if r.dtype != dt.np:
        r = r.astype(dt.np, order="C")
    if out is not None:
        return write_out(out, r, op)
    # numpy lays a reduction's result out as its input (a permuted input's result is permuted); PyTorch's reductions
    # write a fresh row-major tensor whatever the input's layout (inline: sum's path counts its calls)
    return wrap(r if r.flags.c_contiguous else np.asarray(r, order="C"))


def _numel_over(x: Tensor, dims: tuple[int, ...]) -> int:
    n = 1
    for d in dims:
        n *= x._shape[d]
    return n


def _int_to_long(x: Tensor, dtype) -> dtypes.dtype:
    """The result dtype of sum/prod/cumsum: `dtype=` if given, int64 for ints and bools."""
    if dtype is not None:
        return dtypes.as_dtype(dtype)
    return x._dtype if x._dtype.is_floating_point or x._dtype.is_complex else dtypes.int64


def _float_only(x: Tensor, dtype, op: str) -> dtypes.dtype:
    """mean's and nanmean's result dtype (`dtype=` or input's), refused with PyTorch's messages unless inexact."""
    if op == "nanmean" and not x._dtype.is_floating_point and not x._dtype.is_complex:
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but got "
                           f"{dtypes.TORCH_NAMES[x._dtype.name]}")
    dt = dtypes.as_dtype(dtype) if dtype is not None else x._dtype
    if not dt.is_floating_point and not dt.is_complex:
        raise RuntimeError(f"{op}(): could not infer output dtype. {'Input' if dtype is None else 'Optional'} dtype "
                           f"must be either a floating point or complex dtype. Got: {dtypes.TORCH_NAMES[dt.name]}")
    return dt


def _check_nonempty(x: Tensor, dims: tuple[int, ...], op: str, full: bool) -> None:
    """max/min/argmax have no identity: PyTorch's errors for reducing over nothing."""
    if x.numel():
        return
    if full:
        raise RuntimeError(f"{op}(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.")
    for d in dims:
        if x.ndim and x._shape[d] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")


def _check_nonempty_given(x: Tensor, dim, op: str) -> None:
    """amax/amin of an empty tensor over `dim` (an int or a tuple): PyTorch checks the dims in the order given, each
    as written (`-1`), an empty one raising before a later one out of range."""
    for d in (dim if isinstance(dim, tuple | list) else (dim,)):
        if isinstance(d, int) and x._shape[x._wrap_dim(d)] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")


def _check_nonempty_arg(x: Tensor, dim: int | None, op: str) -> None:
    """argmax/argmin of nothing: PyTorch raises IndexError even with no dim (max() raises RuntimeError)."""
    if dim is None and not x.numel():
        raise IndexError(f"{op}(): Expected reduction dim to be specified for input.numel() == 0.")
    _check_nonempty(x, () if dim is None else (dim,), op, full=False)


def _reduced_shape(shape: tuple[int, ...], dims: tuple[int, ...], keepdim: bool) -> tuple[int, ...]:
    """The shape of a reduction of `shape` over `dims` (device launchers use it too)."""
    if keepdim:
        return tuple(1 if i in dims else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in dims)


# --- the op table's rows of the reductions (NOTE [ The op table ]) -------------------------------
def _reduction(ref, rule=PROMOTE, dtypes_=None, invalid=None) -> OpInfo:
    """The OpInfo of a reduction called as `op(input, dim, keepdim)`; `ref(x, axis, keepdims)`."""
    kw = {} if dtypes_ is None else {"dtypes": dtypes_}
    return OpInfo(rule=rule, kind="reduction", ref=ref, public=True, invalid=invalid, **kw)


def _empty_reduction(x, dim=None, keepdim=False):
    """amax/amin have no identity: PyTorch refuses to reduce over an empty dim."""
    if not isinstance(x, Tensor) or x.numel():
        return None
    dims = _dims(dim, x, "amax") if x.ndim else ()
    if not dims or builtins.any(x._shape[d] == 0 for d in dims):
        return "a reduction of an empty dim without an identity"
    return None


def _one_dim_only(x, dim=None, keepdim=False):
    return "a tuple of dims where PyTorch's signature takes one int" if isinstance(dim, tuple) else None


def _dim_required(x, dim=None, keepdim=False):
    return "no dim: PyTorch's logsumexp requires one" if dim is None else None


def _logsumexp_ref(x, axis=None, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True) if x.size else np.zeros(np.ones(x.ndim, int), x.dtype)
    m = np.where(np.isfinite(m), m, 0)
    r = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return r if keepdims else np.squeeze(r, axis=axis)


_FLOATS_ONLY = {"cpu": FLOAT_DTYPES, "cuda": FLOAT_DTYPES[:1] + FLOAT_DTYPES[2:]}


# --- sum, mean, prod -------------------------------------------------------------------------
_sum = declare("sum", lambda a, dims, keepdim=False, dtype=None: np.sum(a, dims, keepdims=keepdim),
               doc="sum(x, dims, keepdim, dtype) -> Tensor", info=_reduction(np.sum, INT64), overlap=0)


_quiet_add_reduce = silenced(np.add.reduce)  # inf + -inf: NaN without numpy's RuntimeWarning, as PyTorch


@_sum.register("cpu")
def _sum_cpu(x, dims, keepdim=False, dtype=None, *, out=None):
    """sum(x, dims: tuple[int, ...], keepdim: bool, dtype: dtype | None): the result dtype is
    `dtype`, else x's for floats and int64 for integers and bools."""
    xd = x._dtype
    if dtype is None and xd.is_floating_point and xd.itemsize > 2:  # 16-bit floats accumulate in float32
        # the common case, without helper calls; a full reduction writes into a 0-dim array, since
        # numpy would return a scalar that costs another conversion (0.9 us) to wrap
        c = x._npc  # Tensor._np's cache, read inline
        a = c[1] if c is not None and c[0] is x._storage._raw else x._np()
        full = out is None and not keepdim and len(dims) == len(x._shape)
        r = None
        if dims and dims[0] == 0 and len(dims) < len(x._shape) and not full and dims == tuple(range(len(dims))):
            r = numba_rows.leading_sum(a, len(dims))  # a bias's gradient: numpy's bits, a faster loop
            if r is not None and keepdim:
                r = r.reshape((1,) * len(dims) + r.shape)
        if r is None:
            token = ERRSTATE.set(IGNORE_ALL)  # inf + -inf: NaN without numpy's RuntimeWarning, as PyTorch (inline)
            try:
                r = np.add.reduce(a, dims, xd.np, np.empty((), xd.np) if full else None, keepdim)
            finally:
                ERRSTATE.reset(token)
        if out is not None:
            return write_out(out, r, "sum")
        return wrap(r if r.flags.c_contiguous else np.asarray(r, order="C"))  # row-major, as in _finish
    dt = _int_to_long(x, dtype)
    return _finish(_quiet_add_reduce(x._np(), dims, _accumulate_np(dt), None, keepdim), dt, out, "sum")


def sum_untracked(x: Tensor, dims: tuple) -> Tensor:
    """`x.sum(dims)` of a float32/float64 CPU tensor: the bits of `sum`, without dispatching it (for a backward that
    made sure nothing would see the op: NOTE [ Backward products computed at once ] in
    ember.autograd.untracked)."""
    return _sum_cpu(x, dims)


_nansum = declare("nansum", lambda a, dims, keepdim=False, dtype=None: np.nansum(a, dims, keepdims=keepdim),
                  doc="nansum(x, dims, keepdim, dtype) -> Tensor", info=_reduction(np.nansum, INT64), overlap=0)


@_nansum.register("cpu")
@silenced  # inf - inf or inf * 0 inside: NaN without numpy's RuntimeWarning, as PyTorch
def _nansum_cpu(x, dims, keepdim=False, dtype=None, *, out=None):
    """nansum(x, dims, keepdim, dtype): sum treating NaN as zero."""
    dt = _int_to_long(x, dtype)
    return _finish(np.nansum(_nan_visible(x._np()), axis=dims, keepdims=keepdim, dtype=_accumulate_np(dt)), dt, out,
                   "nansum")


def _nan_visible(a: np.ndarray) -> np.ndarray:
    """numpy's nan-reductions see NaN only in its own float dtypes: bfloat16 (ml_dtypes) goes as float32."""
    return a.astype(np.float32) if a.dtype.name == "bfloat16" else a


_mean = declare("mean", lambda a, dims, keepdim=False, dtype=None: np.mean(a, dims, keepdims=keepdim),
                doc="mean(x, dims, keepdim, dtype) -> Tensor", info=_reduction(np.mean, FLOAT, _FLOATS_ONLY),
               overlap=OVERLAP_INTERNAL)


@_mean.register("cpu")
@silenced  # inf - inf or inf * 0 inside: NaN without numpy's RuntimeWarning, as PyTorch
def _mean_cpu(x, dims, keepdim=False, dtype=None, *, out=None):
    """mean(x, dims, keepdim, dtype): float only; the mean over nothing is NaN."""
    dt = _float_only(x, dtype, "mean")
    s = np.add.reduce(x._np(), dims, _accumulate_np(dt), None, keepdim)
    n = _numel_over(x, dims)
    if n:
        r = np.true_divide(s, n)
    else:
        r = np.full(np.shape(s), np.nan, s.dtype)
    return _finish(r, dt, out, "mean")


_nanmean = declare("nanmean", lambda a, dims, keepdim=False, dtype=None: np.nanmean(a, dims, keepdims=keepdim),
                   doc="nanmean(x, dims, keepdim, dtype) -> Tensor", overlap=OVERLAP_INTERNAL)


@_nanmean.register("cpu")
@silenced  # inf - inf or inf * 0 inside: NaN without numpy's RuntimeWarning, as PyTorch
def _nanmean_cpu(x, dims, keepdim=False, dtype=None, *, out=None):
    """nanmean(x, dims, keepdim, dtype): the mean of the non-NaN elements."""
    dt = _float_only(x, dtype, "nanmean")
    a = _nan_visible(x._np())
    s = np.nansum(a, axis=dims, keepdims=keepdim, dtype=_accumulate_np(dt))
    if dt is dtypes.float16 or dt is dtypes.bfloat16:  # PyTorch's nansum(x) / count: the sum rounds first
        s = np.asarray(s).astype(dt.np).astype(_accumulate_np(dt))
    n = np.sum(~np.isnan(a), axis=dims, keepdims=keepdim)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.true_divide(s, n, dtype=_accumulate_np(dt))
    return _finish(r, dt, out, "nanmean")


_prod = declare("prod", lambda a, dims, keepdim=False, dtype=None: np.prod(a, dims, keepdims=keepdim),
                doc="prod(x, dims, keepdim, dtype) -> Tensor",
                info=_reduction(np.prod, INT64, invalid=_one_dim_only), overlap=0)


@_prod.register("cpu")
@silenced  # inf - inf or inf * 0 inside: NaN without numpy's RuntimeWarning, as PyTorch
def _prod_cpu(x, dims, keepdim=False, dtype=None, *, out=None):
    """prod(x, dims, keepdim, dtype): dtype rule as sum."""
    dt = _int_to_long(x, dtype)
    a = x._np()
    if (dt is dtypes.float16 or dt is dtypes.bfloat16) and a.dtype == dt.np and 0 < _numel_over(x, dims) < 64:
        return _finish(_prod_rounding_each_step(a, dims, keepdim), dt, out, "prod")
    return _finish(np.multiply.reduce(a, dims, _accumulate_np(dt), None, keepdim), dt, out, "prod")


def _prod_rounding_each_step(a: np.ndarray, dims: tuple[int, ...], keepdim: bool) -> np.ndarray:
    """A float16/bfloat16 product in order, rounded to the dtype after every multiply: PyTorch's CPU prod
    accumulates in the tensor's own dtype (its vectorized lanes only start at 64 elements per output)."""
    kept = [d for d in range(a.ndim) if d not in dims]
    rows = np.transpose(a, kept + list(dims)).reshape(-1, math.prod(a.shape[d] for d in dims))
    acc = rows[:, 0]
    for j in range(1, rows.shape[1]):
        acc = (acc.astype(np.float32) * rows[:, j].astype(np.float32)).astype(a.dtype)
    shape = [1 if d in dims else n for d, n in enumerate(a.shape)] if keepdim else [a.shape[d] for d in kept]
    return np.array(acc.reshape(shape), order="C")


@method
def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:  # noqa: A001
    """The sum over `dim` (an int, a tuple, or None for all); ints and bools sum to int64.

    >>> from ember.core import tensor
    >>> x = tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> x.sum(), x.sum(dim=0), tensor([True, False, True]).sum()
    (tensor(10.), tensor([4., 6.]), tensor(2))
    """
    _check_keepdim(keepdim, "sum")
    if dtype is not None:
        check_dtype_arg("sum", dim, dtype)
    if out is None:
        try:
            dims = tuple(range(len(input._shape))) if dim is None else _dims(dim, input, "sum")
        except AttributeError:
            raise _not_a_tensor("sum", input) from None
        r = _sum(input, dims, keepdim, dtype)
        return r if dim is None else node_name(r, "SumBackward0", "SumBackward1")  # PyTorch's dim overload
    return _sum(input, _dims(dim, input, "sum"), keepdim, _out_dtype(dtype, out), out=out)


def _out_dtype(dtype, out):
    """sum/prod/cumsum/cumprod with `out=` and no `dtype`: PyTorch computes in out's dtype (the input cast
    to it first: a float sum into an int64 out truncates each element)."""
    return out._dtype if dtype is None and isinstance(out, Tensor) else dtype


@method
def nansum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """The sum over `dim`, treating NaN as zero."""
    check_dtype_arg("nansum", dim, dtype)
    return _nansum(input, _dims(dim, input, "nansum"), keepdim, dtype, out=out)


@method
def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """The mean over `dim`; integer inputs need `dtype=` (RuntimeError otherwise, as PyTorch).

    >>> from ember.core import tensor
    >>> tensor([[1.0, 2.0], [3.0, 4.0]]).mean(1, keepdim=True)
    tensor([[1.5000],
            [3.5000]])
    """
    _check_keepdim(keepdim, "mean")
    if dtype is not None:
        check_dtype_arg("mean", dim, dtype)
    r = _mean(input, _dims(dim, input, "mean"), keepdim, dtype, out=out)
    return r if dim is None else node_name(r, "MeanBackward0", "MeanBackward1")  # PyTorch's dim overload


@method
def nanmean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """The mean over `dim` of the elements that are not NaN."""
    check_dtype_arg("nanmean", dim, dtype)
    return _nanmean(input, _dims(dim, input, "nanmean"), keepdim, dtype, out=out)


@method
def prod(input: Tensor, dim: int | None = None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """The product over one `dim`, or over everything when `dim` is None."""
    if not isinstance(input, Tensor):
        raise _not_a_tensor("prod", input)
    _check_keepdim(keepdim, "prod")
    check_dtype_arg("prod", dim, dtype)
    dims = tuple(range(input.ndim)) if dim is None else (_one_dim(dim, input, "prod"),)
    r = _prod(input, dims if input.ndim else (), keepdim, _out_dtype(dtype, out), out=out)
    return r if dim is None else node_name(r, "ProdBackward0", "ProdBackward1")  # PyTorch's dim overload


# --- max, min, argmax ------------------------------------------------------------------------
_amax = declare("amax", lambda a, dims, keepdim=False: np.amax(a, dims, keepdims=keepdim),
                doc="amax(x, dims, keepdim) -> Tensor", info=_reduction(np.max, invalid=_empty_reduction), overlap=0)
_amin = declare("amin", lambda a, dims, keepdim=False: np.amin(a, dims, keepdims=keepdim),
                doc="amin(x, dims, keepdim) -> Tensor", info=_reduction(np.min, invalid=_empty_reduction), overlap=0)


def _make_extreme(op, fn, name):
    @op.register("cpu")
    def kernel(x, dims, keepdim=False, *, out=None):
        """amax/amin(x, dims, keepdim): NaN propagates; reducing over nothing raises."""
        _check_nonempty(x, dims, name, full=False)
        return _finish(fn(x._np(), dims, None, None, keepdim), x._dtype, out, name)

    return kernel


_make_extreme(_amax, np.maximum.reduce, "amax")
_make_extreme(_amin, np.minimum.reduce, "amin")

_max_dim = declare("max_dim", doc="max_dim(x, dim, keepdim) -> (values, indices)")
_min_dim = declare("min_dim", doc="min_dim(x, dim, keepdim) -> (values, indices)")
_argmax = declare("argmax", lambda a, dim=None, keepdim=False: np.argmax(a, dim, keepdims=keepdim),
                  differentiable=False, doc="argmax(x, dim, keepdim) -> Tensor", overlap=0)
_argmin = declare("argmin", lambda a, dim=None, keepdim=False: np.argmin(a, dim, keepdims=keepdim),
                  differentiable=False, doc="argmin(x, dim, keepdim) -> Tensor", overlap=0)


def _arg_extreme(a: np.ndarray, dim: int, fn) -> np.ndarray:
    """argmax/argmin over `dim` with keepdims (first occurrence; NaN counts as the extreme)."""
    if a.ndim == 0:
        return np.zeros((), np.int64)
    return fn(a, axis=dim, keepdims=True).astype(np.int64, copy=False)


def _make_dim_extreme(op, fn, name):
    @op.register("cpu")
    def kernel(x, dim, keepdim=False, *, out=None):
        """max_dim/min_dim(x, dim: int, keepdim) -> (values, indices int64); the index of the first
        extreme (or first NaN) along `dim`."""
        _check_nonempty(x, (dim,), name, full=False)
        a = x._np()
        if a.ndim == 0:
            idx, vals = np.zeros((), np.int64), a.copy()
        else:  # the ndarray methods and, for a matrix, one fancy index: numpy's wrappers cost more on small inputs
            idx = fn(a, dim, None, keepdims=True).astype(np.int64, copy=False)
            if a.ndim != 2:
                vals = np.take_along_axis(a, idx, dim)
            elif dim:
                vals = a[np.arange(a.shape[0]).reshape(-1, 1), idx]
            else:
                vals = a[idx, np.arange(a.shape[1])]
            if not keepdim:
                idx, vals = idx.squeeze(dim), vals.squeeze(dim)
        if out is not None:
            return write_out(out[0], vals, name), write_out(out[1], idx, name)
        # asarray(order='C'), not ascontiguousarray: that makes a 0-dim result (a 1-D input's max) 1-D
        return wrap(np.asarray(vals, order="C")), wrap(np.asarray(idx, order="C"))

    return kernel


_make_dim_extreme(_max_dim, np.ndarray.argmax, "max")
_make_dim_extreme(_min_dim, np.ndarray.argmin, "min")


def _make_arg(op, fn, name):
    @op.register("cpu")
    def kernel(x, dim=None, keepdim=False, *, out=None):
        """argmax/argmin(x, dim: int | None, keepdim): int64 indices; dim None indexes the flattened tensor."""
        a = x._np()
        if not a.size:
            _check_nonempty_arg(x, dim, name)
        if dim is None:
            r = np.asarray(fn(a), np.int64)
            if keepdim:
                r = r.reshape((1,) * a.ndim)
        else:
            r = _arg_extreme(a, dim, fn)
            if not keepdim and a.ndim:
                r = r.squeeze(dim)
        return _finish(r, dtypes.int64, out, name)

    return kernel


_make_arg(_argmax, np.ndarray.argmax, "argmax")  # the methods: np.argmax's wrappers cost more on small inputs
_make_arg(_argmin, np.ndarray.argmin, "argmin")


def _check_same_out_dtype(input, out) -> None:
    """amax/amin's `out=` has the input's dtype (their structured meta checks it before anything else)."""
    if out is not None and isinstance(input, Tensor) and out._dtype is not input._dtype:
        names = dtypes.TORCH_NAMES
        raise RuntimeError(f"Expected the dtype for input and out to match, but got {names[input._dtype.name]} for "
                           f"input's dtype and {names[out._dtype.name]} for out's dtype.")


@method
def amax(input: Tensor, dim=(), keepdim: bool = False, *, out=None) -> Tensor:
    """The maximum over `dim` (int or tuple; () for all); NaN propagates."""
    _check_same_out_dtype(input, out)
    if (dim == () or dim is None) and isinstance(input, Tensor):  # all dims: RuntimeError, as PyTorch
        _check_nonempty(input, (), "amax", full=True)
    elif isinstance(input, Tensor) and not input.numel():
        _check_nonempty_given(input, dim, "amax")
    _check_keepdim(keepdim, "amax")
    return _amax(input, _dims(dim, input, "amax"), keepdim, out=out)


@method
def amin(input: Tensor, dim=(), keepdim: bool = False, *, out=None) -> Tensor:
    """The minimum over `dim` (int or tuple; () for all); NaN propagates."""
    _check_same_out_dtype(input, out)
    if (dim == () or dim is None) and isinstance(input, Tensor):  # all dims: RuntimeError, as PyTorch
        _check_nonempty(input, (), "amin", full=True)
    elif isinstance(input, Tensor) and not input.numel():
        _check_nonempty_given(input, dim, "amin")
    _check_keepdim(keepdim, "amin")
    return _amin(input, _dims(dim, input, "amin"), keepdim, out=out)


def _extreme(name, full_op, dim_op, binary_op, input, dim, keepdim, out):
    if isinstance(dim, Tensor):
        return binary_op(input, dim, out=out)
    if dim is None:
        if input._dtype.is_complex or input._dtype in dtypes.UNSIGNED_WIDE:  # the all-reduce kernel names it
            raise ComplexNotSupported(f"\"{name}_all\" not implemented for '{dtypes.TORCH_NAMES[input._dtype.name]}'")
        _check_nonempty(input, (), name, full=True)
        r = full_op(input, tuple(range(input.ndim)), False, out=out)
        return node_name(r, f"A{name}Backward0", f"{name.capitalize()}Backward1")  # PyTorch's max()/min()
    d = _one_dim(dim, input, name)
    _check_keepdim(keepdim, name)
    rt = getattr(return_types, name if out is None else name + "_out")
    if out is not None:
        check_out_dtypes(out, (input._dtype, dtypes.int64))
    return rt(*dim_op(input, d, keepdim, out=None if out is None else tuple(out)))


def _bad_extreme_dim(op: str, shift: int, method: bool):
    """Whether max/min's `dim` (positional after `shift` arguments, or by keyword) fits none of their overloads: not
    a Tensor (`other`), an int or a name (an explicit None neither). A method given `keepdim` too fits only its
    `(int dim, bool keepdim)` overload, whose own words name the bad `dim` (`x.max(True, True)`), by its position
    where it came positionally (raised here: "argument 'dim' (position 1) must be int, not tuple")."""
    def invalid(args: tuple, kwargs: dict) -> bool:
        if len(args) <= shift and "dim" not in kwargs:
            return False
        if method and (len(args) > shift + 1 or "keepdim" in kwargs):
            if len(args) > shift and not isinstance(dim := args[shift], Tensor | str) and not int_like(dim):
                from ember.core.ops._util import tp_name as _type_name

                raise TypeError(f"{op}(): argument 'dim' (position {shift}) must be int, not {_type_name(dim)}")
            return False
        dim = args[shift] if len(args) > shift else kwargs["dim"]
        return not isinstance(dim, Tensor | str) and not int_like(dim)
    return invalid


def _extreme_overloads(op: str, as_method: bool):
    """PyTorch's parser refusal of a `dim` of the wrong type (`x.max(dim=(0, 1))`), worded for the method or the
    function."""
    if as_method:
        return overloads(op, ["()", "(Tensor other)", "(int dim, bool keepdim = False)"], _bad_extreme_dim(op, 1, True),
                         method=True)
    return overloads(op, ["(Tensor input, *, Tensor out = None)", "(Tensor input, Tensor other, *, Tensor out = None)",
                          "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)"],
                     _bad_extreme_dim(op, 1, False))


@method(function_form=_extreme_overloads("max", False), method_form=_extreme_overloads("max", True))
def max(input: Tensor, dim=None, keepdim: bool = False, *, out=None):  # noqa: A001
    """`max(x)`: the largest element; `max(x, dim)`: `(values, indices)`; `max(x, other)`: maximum.

    >>> from ember.core import tensor
    >>> x = tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> x.max()
    tensor(4.)
    >>> x.max(dim=1)
    torch.return_types.max(
    values=tensor([2., 4.]),
    indices=tensor([1, 1]))
    """
    return _extreme("max", _amax, _max_dim, ew.maximum, input, dim, keepdim, out)


@method(function_form=_extreme_overloads("min", False), method_form=_extreme_overloads("min", True))
def min(input: Tensor, dim=None, keepdim: bool = False, *, out=None):  # noqa: A001
    """`min(x)`: the smallest element; `min(x, dim)`: `(values, indices)`; `min(x, other)`: minimum."""
    return _extreme("min", _amin, _min_dim, ew.minimum, input, dim, keepdim, out)


@method
def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False, out=None):
    """`(min, max)` over `dim` (or everything); with `out=(min, max)`, written there."""
    if input._dtype.is_complex or input._dtype in dtypes.UNSIGNED_WIDE:  # no kernel for either in PyTorch's build
        raise ComplexNotSupported(f"\"aminmax_cpu\" not implemented for '{dtypes.TORCH_NAMES[input._dtype.name]}'")
    dims = tuple(range(input.ndim)) if dim is None else (_one_dim(dim, input, "aminmax"),)
    if not input.numel():  # PyTorch's own words for aminmax, not amin's
        if dim is None:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
        if input.ndim and input._shape[dims[0]] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {dims[0]} to have non-zero size.")
    dims = dims if input.ndim else ()  # a 0-d tensor's dim 0 (or -1) is itself
    if out is not None:
        mn, mx = out
        check_out_dtypes(out, (input._dtype, input._dtype))
        return return_types.aminmax_out(_amin(input, dims, keepdim, out=mn), _amax(input, dims, keepdim, out=mx))
    # PyTorch records one AminmaxBackward0 for both results; here each has its own node of that name
    return return_types.aminmax(node_name(_amin(input, dims, keepdim), "AminBackward0", "AminmaxBackward0"),
                                node_name(_amax(input, dims, keepdim), "AmaxBackward0", "AminmaxBackward0"))


@method
def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False, *, out=None) -> Tensor:
    """The index of the largest element over `dim`, or in the flattened tensor when `dim` is None."""
    if input._dtype is dtypes.bool:
        if dim is not None:
            index_arg(dim, "argmax", "dim")  # the parser's TypeError for a tuple comes first
        raise RuntimeError("argmax(): does not support bool input")
    d = None if dim is None else _one_dim(dim, input, "argmax")
    if keepdim is not False and keepdim is not True:
        _check_keepdim(keepdim, "argmax")
    if out is not None:
        _check_index_out(out)
        return _argmax(input, d, keepdim, out=out)
    return _argmax(input, d, keepdim)


@method
def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False, *, out=None) -> Tensor:
    """The index of the smallest element over `dim`, or in the flattened tensor when `dim` is None."""
    if input._dtype is dtypes.bool:
        if dim is not None:
            index_arg(dim, "argmin", "dim")  # the parser's TypeError for a tuple comes first
        raise RuntimeError("argmin(): does not support bool input")
    d = None if dim is None else _one_dim(dim, input, "argmin")
    if keepdim is not False and keepdim is not True:
        _check_keepdim(keepdim, "argmin")
    if out is not None:
        _check_index_out(out)
        return _argmin(input, d, keepdim, out=out)
    return _argmin(input, d, keepdim)


# --- var, std --------------------------------------------------------------------------------
_var = declare("var", lambda a, dims, correction=1, keepdim=False: np.var(a, dims, ddof=correction, keepdims=keepdim),
               doc="var(x, dims, correction, keepdim) -> Tensor", overlap=0)
_std = declare("std", lambda a, dims, correction=1, keepdim=False: np.std(a, dims, ddof=correction, keepdims=keepdim),
               doc="std(x, dims, correction, keepdim) -> Tensor", overlap=0)
_var_mean = declare("var_mean", doc="var_mean(x, dims, correction, keepdim) -> (var, mean)", overlap=0)
_std_mean = declare("std_mean", doc="std_mean(x, dims, correction, keepdim) -> (std, mean)", overlap=0)


def _moments(x: Tensor, dims, correction, keepdim):
    """(variance, mean) dividing by max(0, N - correction) like PyTorch, two passes accumulated in
    float64 (as PyTorch's CPU kernels): a float32 mean of 1e4 +- 1e-2 is off by 5e-4, which the
    squares of the second pass would carry into the variance."""
    acc = np.float64
    a = x._np()
    n = _numel_over(x, dims)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = np.true_divide(np.sum(a, axis=dims, keepdims=True, dtype=acc), n)
        d = np.subtract(a, m, dtype=acc)
        ss = np.sum(np.multiply(d, d), axis=dims, keepdims=keepdim)
        v = np.true_divide(ss, builtins.max(n - correction, 0))
    m = _welford_infinite_mean(a, dims, m)
    if not keepdim:
        m = np.squeeze(m, dims) if dims else m
    return v, m


def _welford_infinite_mean(a: np.ndarray, dims, m: np.ndarray) -> np.ndarray:
    """The mean (kept dims) as PyTorch's Welford update leaves it: once the running mean is infinite, the next
    element makes it inf + (x - inf) / n = NaN, so an infinite mean survives only where the slice's one
    infinity is its last element (var_mean/std_mean of [1, inf, 2] give mean NaN; of [1, 2, inf], inf)."""
    if not np.isinf(m).any():
        return m
    axes = tuple(d % a.ndim for d in dims) if dims else tuple(range(a.ndim))
    last = a[tuple(slice(-1, None) if i in axes else slice(None) for i in range(a.ndim))]
    lone = (np.sum(np.isinf(a), axis=axes, keepdims=True) == 1) & np.isinf(last)
    return np.where(lone, m, np.where(np.isinf(m), np.nan, m))


# the complex op (`std_mean` ...) whose real and imaginary parts a moment op is computing: its warning names it
_part_of: contextvars.ContextVar[str | None] = contextvars.ContextVar("ember_moment_part_of", default=None)


def _make_moment(op, name, sqrt, with_mean):
    @op.meta
    def check(x, dims, correction=1, keepdim=False, *, out=None) -> None:
        """A floating input (complex ones arrive as their parts) and PyTorch's warning for no
        degrees of freedom, once for every device."""
        if not x._dtype.is_floating_point:  # PyTorch's words: "std and var", or "var_mean"/"std_mean"
            raise RuntimeError(f"{name if with_mean else 'std and var'} only support floating point and complex "
                               "dtypes")
        if _numel_over(x, tuple(dims)) - correction <= 0:
            warn_at_caller(internally(f"{_part_of.get() or name}(): degrees of freedom is <= 0. Correction should be "
                                      "strictly less than the reduction factor (input numel divided by output numel).",
                                      "aten/src/ATen/native/ReduceOps.cpp:1861"))

    @op.register("cpu")
    def kernel(x, dims, correction=1, keepdim=False, *, out=None):
        """var/std/var_mean/std_mean(x, dims, correction: float, keepdim); the *_mean ops return
        (var or std, mean)."""
        v, m = _moments(x, dims, correction, keepdim)
        if sqrt:
            v = np.sqrt(v)
        if with_mean:
            dt = x._dtype.np
            return wrap(np.asarray(v).astype(dt, order="C")), wrap(np.asarray(m).astype(dt, order="C"))
        return _finish(v, x._dtype, out, name)

    return kernel


_make_moment(_var, "var", False, False)
_make_moment(_std, "std", True, False)
_make_moment(_var_mean, "var_mean", False, True)
_make_moment(_std_mean, "std_mean", True, True)


def _moment_args(input, dim, unbiased, keepdim, correction, op):
    """PyTorch's overloads: (dim, unbiased, keepdim), (unbiased) and (dim, *, correction)."""
    if isinstance(dim, builtins.bool):
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{op}() received an invalid combination of arguments - got both unbiased and correction, "
                        "but expected one of them")  # PyTorch's argument parser refuses the pair
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return _dims(dim, input, op), correction, keepdim


@method
def var(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *,
        correction: float | None = None, out=None) -> Tensor:
    """The variance over `dim` with Bessel's `correction` (default 1; `unbiased=False` means 0).

    >>> from ember.core import tensor
    >>> tensor([1.0, 2.0, 3.0, 4.0]).var()
    tensor(1.6667)
    """
    if not isinstance(input, Tensor):
        raise _not_a_tensor("var", input)
    if input._dtype.is_complex:  # a real result: the variances of the two parts add
        return _complex_moment(input, dim, unbiased, keepdim, correction, "var", out)
    return _var(input, *_moment_args(input, dim, unbiased, keepdim, correction, "var"), out=out)


@method
def std(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *,
        correction: float | None = None, out=None) -> Tensor:
    """The standard deviation over `dim` with Bessel's `correction` (default 1)."""
    if not isinstance(input, Tensor):
        raise _not_a_tensor("std", input)
    if input._dtype.is_complex:
        return _complex_moment(input, dim, unbiased, keepdim, correction, "std", out)
    return _std(input, *_moment_args(input, dim, unbiased, keepdim, correction, "std"), out=out)


def _complex_moment(input: Tensor, dim, unbiased, keepdim, correction, op: str, out) -> Tensor:
    """var (or std) of a complex tensor, as PyTorch: E|z - mean|^2 = var(real) + var(imag), a real tensor."""
    args = _moment_args(input, dim, unbiased, keepdim, correction, op)
    token = _part_of.set(op)  # PyTorch warns of no degrees of freedom once for each part, naming `op`
    try:
        v = _var(input.real, *args) + _var(input.imag, *args)
    finally:
        _part_of.reset(token)
    r = node_name(v.sqrt(), "SqrtBackward0", "StdBackward0") if op.startswith("std") else node_name(
        v, "AddBackward0", "VarBackward0")
    return r if out is None else out.copy_(r)


def _complex_moment_mean(input: Tensor, dim, keepdim: bool) -> Tensor:
    """The mean of var_mean/std_mean of a complex tensor. complex32's own `mean` is refused (as PyTorch's),
    but its var_mean averages the float16 parts (float32 accumulation, one rounding), as PyTorch's does."""
    if input._dtype is not dtypes.complex32:
        return mean(input, dim, keepdim)
    pairs = view_as_real(input)
    if not input.ndim:
        return view_as_complex(pairs.clone())
    return view_as_complex(_mean(pairs, _dims(dim, input, "mean"), keepdim, None))


@functools.partial(numpy_aliases, name="var_mean")
def var_mean(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *,
             correction: float | None = None) -> tuple[Tensor, Tensor]:
    """`(var, mean)` over `dim` in one pass over the data."""
    if input._dtype.is_complex:
        return (_complex_moment(input, dim, unbiased, keepdim, correction, "var_mean", None),
                _complex_moment_mean(input, dim, keepdim))
    return _var_mean(input, *_moment_args(input, dim, unbiased, keepdim, correction, "var_mean"))


@functools.partial(numpy_aliases, name="std_mean")
def std_mean(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *,
             correction: float | None = None) -> tuple[Tensor, Tensor]:
    """`(std, mean)` over `dim` in one pass over the data."""
    if input._dtype.is_complex:
        return (_complex_moment(input, dim, unbiased, keepdim, correction, "std_mean", None),
                _complex_moment_mean(input, dim, keepdim))
    return _std_mean(input, *_moment_args(input, dim, unbiased, keepdim, correction, "std_mean"))


# --- logsumexp, norms ------------------------------------------------------------------------
_logsumexp = declare("logsumexp", lambda a, dims, keepdim=False: np.log(np.sum(np.exp(a), dims, keepdims=keepdim)),
                     doc="logsumexp(x, dims, keepdim) -> Tensor",
                     info=_reduction(_logsumexp_ref, FLOAT, invalid=_dim_required), overlap=OVERLAP_INTERNAL)


@_logsumexp.register("cpu")
def _logsumexp_cpu(x, dims, keepdim=False, *, out=None):
    """logsumexp(x, dims, keepdim): log(sum(exp(x))) shifted by the max for stability; integers
    compute in the default float dtype; over nothing it is -inf. A complex x is shifted by the max
    of its real parts (an infinite max by 0), as PyTorch: the principal log of the shifted sum plus
    that real shift, so the imaginary part lies in (-pi, pi]."""
    dt = x._dtype if x._dtype.is_floating_point or x._dtype.is_complex else dtypes.get_default_dtype()
    a = x._np().astype(_accumulate_np(dt), copy=False)
    if a.size:
        m = np.amax(a.real, axis=dims, keepdims=True)
        m = np.where(np.isinf(m), 0, m)
    else:
        m = np.zeros(_reduced_shape(a.shape, dims, True), a.real.dtype)
    if dt is dtypes.float16 or dt is dtypes.bfloat16:  # PyTorch's steps are ops of x's dtype, each rounded
        def rnd(v):
            return v.astype(dt.np).astype(a.dtype)
    else:
        def rnd(v):
            return v
    with np.errstate(divide="ignore", invalid="ignore"):
        r = rnd(np.log(rnd(np.sum(rnd(np.exp(rnd(a - m))), axis=dims, keepdims=True)))) + m
    if not keepdim and dims:
        r = np.squeeze(r, dims)
    return _finish(r, dt, out, "logsumexp")


@method
def logsumexp(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:
    """`log(sum(exp(input), dim))`, computed without overflow; `dim` is required, as in PyTorch."""
    if dim is None:
        raise TypeError("logsumexp() missing 1 required positional arguments: \"dim\"")
    if out is not None and not (out._dtype.is_floating_point or out._dtype.is_complex):
        raise RuntimeError(f"logsumexp(): Expected floating point type for result tensor, but got: "
                           f"{dtypes.TORCH_NAMES[out._dtype.name]}")
    if isinstance(dim, tuple | list) and not dim and not keepdim and isinstance(input, Tensor) and input.ndim \
            and input.numel():  # PyTorch's kernel: an all-dims sum keeps (1, ..., 1), then fails to write a 0-dim
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape [{', '.join(['1'] * input.ndim)}]")
    return _logsumexp(input, _dims(dim, input, "logsumexp"), keepdim, out=out)


_vector_norm = declare("vector_norm", doc="vector_norm(x, ord, dims, keepdim, dtype) -> Tensor", overlap=0)


@_vector_norm.meta
def _vector_norm_meta(x, ord=2, dims=(), keepdim=False, dtype=None, *, out=None) -> None:  # noqa: A002
    """A floating input and result dtype, which `out=` must have (no cast, as PyTorch); an inf norm needs elements
    to reduce. For every device."""
    dt = dtypes.as_dtype(dtype) if dtype is not None else x._dtype
    if not x._dtype.is_floating_point or not dt.is_floating_point:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {dtypes.TORCH_NAMES[x._dtype.name]}")
    check_out_dtype(out, dt)
    if math.isinf(ord) and (builtins.any(x._shape[d] == 0 for d in dims) if dims else x.numel() == 0):
        raise RuntimeError("linalg.vector_norm cannot compute the inf norm on an empty tensor because the "
                           "operation does not have an identity")


@_vector_norm.register("cpu")
def _vector_norm_cpu(x, ord=2, dims=(), keepdim=False, dtype=None, *, out=None):  # noqa: A002
    """vector_norm(x, ord: float, dims, keepdim, dtype): (sum |x|^ord)^(1/ord); ord inf/-inf is
    max/min |x|, ord 0 counts nonzeros."""
    dt = dtypes.as_dtype(dtype) if dtype is not None else x._dtype
    a = np.abs(x._np().astype(_accumulate_np(dt), copy=False))
    if ord != 0 and a.size and math.prod(a.shape[d] for d in dims) == 1:  # one element: |x| exactly, as PyTorch
        r = np.sum(a, axis=dims, keepdims=keepdim)  # (no square to overflow: pairwise_distance of 1-D inputs)
    elif math.isinf(ord):
        r = (np.amax if ord > 0 else np.amin)(a, axis=dims, keepdims=keepdim)
    elif ord == 0:
        r = np.sum(a != 0, axis=dims, keepdims=keepdim, dtype=a.dtype)
    elif ord == 1:
        r = np.sum(a, axis=dims, keepdims=keepdim)
    elif ord == 2:
        with np.errstate(over="ignore"):  # squares past the dtype's range are inf, silently as in PyTorch
            r = np.sqrt(np.sum(a * a, axis=dims, keepdims=keepdim))
    else:
        with np.errstate(divide="ignore", over="ignore"):
            r = np.power(np.sum(np.power(a, ord), axis=dims, keepdims=keepdim), 1.0 / ord)
    return _finish(r, dt, out, "linalg.vector_norm")


@numpy_aliases
@parsed("linalg_vector_norm", x=("input", "Tensor"), ord="Number", dim="tuple of ints?", keepdim="bool",
        dtype="torch.dtype?")
def vector_norm(x: Tensor, ord: float = 2, dim=None, keepdim: bool = False, *, dtype=None,  # noqa: A002
                out=None) -> Tensor:
    """The vector `ord`-norm of `x` over `dim` (all elements when None), as `torch.linalg.vector_norm`."""
    if out is not None:
        refuse_out_with_grad("linalg_vector_norm", x)
    if x._dtype is dtypes.complex32 and dtype is None and out is None:  # moduli in float32, rounded once (PyTorch)
        return vector_norm(x.to(dtypes.complex64), ord, dim, keepdim).to(dtypes.float16)
    if x._dtype.is_complex:  # the norm of the moduli, a real tensor
        x = x.abs()
    return _vector_norm(x, float(ord), _dims(dim, x, "linalg.vector_norm"), keepdim, dtype, out=out)


# --- all, any, count_nonzero -------------------------------------------------------------------
_all = declare("all", lambda a, dims, keepdim=False: np.all(a, dims, keepdims=keepdim), differentiable=False,
               doc="all(x, dims, keepdim) -> Tensor", overlap=0)
_any = declare("any", lambda a, dims, keepdim=False: np.any(a, dims, keepdims=keepdim), differentiable=False,
               doc="any(x, dims, keepdim) -> Tensor", overlap=0)


def _make_logical(op, fn, name):
    @op.register("cpu")
    def kernel(x, dims, keepdim=False, *, out=None):
        """all/any(x, dims, keepdim): bool, or uint8 for uint8 inputs as PyTorch."""
        dt = dtypes.uint8 if x._dtype is dtypes.uint8 else dtypes.bool
        a = x._np()
        if tuple(dims) == (a.ndim - 1,) and (r := numba_rows.last_dim_all_any(a, fn is np.all, keepdim)) is not None:
            return _finish(r, dt, out, name)
        return _finish(fn(a, axis=dims, keepdims=keepdim), dt, out, name)

    return kernel


_make_logical(_all, np.all, "all")
_make_logical(_any, np.any, "any")


@method
def all(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:  # noqa: A001
    """Whether every element over `dim` is nonzero."""
    return _all(input, _dims(dim, input, "all"), keepdim, out=out)


@method
def any(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:  # noqa: A001
    """Whether any element over `dim` is nonzero."""
    return _any(input, _dims(dim, input, "any"), keepdim, out=out)


_count_nonzero = declare("count_nonzero", lambda a, dims: np.count_nonzero(a, dims), differentiable=False,
                         doc="count_nonzero(x, dims) -> Tensor")


@_count_nonzero.register("cpu")
def _count_nonzero_cpu(x, dims):
    """count_nonzero(x, dims): int64 counts."""
    return wrap(np.asarray(np.count_nonzero(x._np(), axis=dims), np.int64, order="C"))


def _count_nonzero_overloads(as_method: bool):
    """PyTorch's parser refusal of a keyword other than `dim` (or numpy's `axis`), e.g. `keepdim=`, worded for the
    method or the function."""
    options = ["(int dim = None)", "(tuple of ints dim)"]
    return overloads("count_nonzero", options if as_method else ["(Tensor input, " + o[1:] for o in options],
                     lambda args, kwargs: bool(kwargs.keys() - {"dim", "axis", "input"}), method=as_method)


@method(function_form=_count_nonzero_overloads(False), method_form=_count_nonzero_overloads(True))
def count_nonzero(input: Tensor, dim=None) -> Tensor:
    """The number of nonzero elements over `dim` (int, tuple or None)."""
    return _count_nonzero(input, _dims(dim, input, "count_nonzero"))


# --- cumulative --------------------------------------------------------------------------------
_cumsum = declare("cumsum", lambda a, dim, dtype=None: np.cumsum(a, dim), doc="cumsum(x, dim, dtype) -> Tensor")
_cumprod = declare("cumprod", lambda a, dim, dtype=None: np.cumprod(a, dim), doc="cumprod(x, dim, dtype) -> Tensor")


def _make_cumulative(op, fn, name):
    @op.meta
    def check(x, dim, dtype=None, *, out=None) -> None:
        """PyTorch's refusals of a scan's result dtype, once for every device: a `dtype=` that differs from
        the in-place self or from `out=`, and Bool (there is no Bool scan kernel; a 0-dim or empty input is
        only copied, so it passes)."""
        dt = _int_to_long(x, dtype) if dtype is not None or out is None else out._dtype
        if out is not None and out._dtype is not dt:
            if out is x:
                raise RuntimeError(f"Bad in-place call: input tensor dtype {cpp_type_name(x._dtype)} and output "
                                   f"tensor dtype {cpp_type_name(dt)} should match")
            raise RuntimeError(f"Expected out tensor to have dtype {cpp_type_name(dt)}, but got "
                               f"{cpp_type_name(out._dtype)} instead")
        if dt is dtypes.bool and x._shape and 0 not in x._shape:
            raise NotImplementedError(f"\"{name}_out_cpu\" not implemented for 'Bool'")

    @op.register("cpu")
    @silenced
    def kernel(x, dim, dtype=None, *, out=None):
        """cumsum/cumprod(x, dim: int, dtype): ints and bools accumulate in int64, float32 and complex64 in double
        precision (PyTorch's CPU scan: a float32 cumsum's last element is then its float64 sum rounded)."""
        dt = _int_to_long(x, dtype)
        a = x._np()
        acc = {np.float32: np.float64, np.complex64: np.complex128}.get(np.dtype(_accumulate_np(dt)).type,
                                                                        _accumulate_np(dt))
        r = fn(a.reshape(1), axis=0, dtype=acc).reshape(()) if a.ndim == 0 else fn(a, axis=dim, dtype=acc)
        return _finish(np.asarray(r, order="C"), dt, out, name)  # row-major whatever the input's layout, as PyTorch

    return kernel


_make_cumulative(_cumsum, np.cumsum, "cumsum")
_make_cumulative(_cumprod, np.cumprod, "cumprod")


NO_DIM = object()  # a scan's `dim` left out: PyTorch's parser names it missing


def required_dim(op: str, dim) -> None:
    """PyTorch's TypeError for a scan (cumsum, cummax ...) called without its `dim`."""
    if dim is NO_DIM:
        raise TypeError(f'{op}() missing 1 required positional arguments: "dim"')


@method
def cumsum(input: Tensor, dim: int = NO_DIM, *, dtype=None, out=None) -> Tensor:
    """The running sum along `dim`.

    >>> from ember.core import cumsum, tensor
    >>> cumsum(tensor([1, 2, 3]), 0)
    tensor([1, 3, 6])
    """
    required_dim("cumsum", dim)
    check_dtype_arg("cumsum", dim, dtype)
    return _cumsum(input, _one_dim(dim, input, "cumsum"), _out_dtype(dtype, out), out=out)


@method
def cumprod(input: Tensor, dim: int = NO_DIM, *, dtype=None, out=None) -> Tensor:
    """The running product along `dim`."""
    required_dim("cumprod", dim)
    check_dtype_arg("cumprod", dim, dtype)
    return _cumprod(input, _one_dim(dim, input, "cumprod"), _out_dtype(dtype, out), out=out)


@method
def cumsum_(input: Tensor, dim: int = NO_DIM, *, dtype=None) -> Tensor:
    """In-place running sum along `dim`."""
    required_dim("cumsum_", dim)
    # an in-place scan computes in self's dtype; a different `dtype=` is refused
    return _cumsum(input, _one_dim(dim, input, "cumsum_"), input._dtype if dtype is None else dtype, out=input)


@method
def cumprod_(input: Tensor, dim: int = NO_DIM, *, dtype=None) -> Tensor:
    """In-place running product along `dim`."""
    required_dim("cumprod_", dim)
    # an in-place scan computes in self's dtype; a different `dtype=` is refused
    return _cumprod(input, _one_dim(dim, input, "cumprod_"), input._dtype if dtype is None else dtype, out=input)


_logcumsumexp = declare("logcumsumexp", lambda a, dim: np.logaddexp.accumulate(a, dim),
                        doc="logcumsumexp(x, dim) -> Tensor")


@_logcumsumexp.register("cpu")
def _logcumsumexp_cpu(x, dim, *, out=None):
    """logcumsumexp(x, dim: int): log of the running sum of exp along `dim`, without overflow (floats and
    complex)."""
    if x._dtype.is_complex:
        return _finish(_logcumsumexp_complex(x._np(), dim), x._dtype, out, "logcumsumexp")
    if not x._dtype.is_floating_point:
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{dtypes.TORCH_NAMES[x._dtype.name]}'")
    a = x._np()
    acc = _accumulate_np(x._dtype)
    with np.errstate(invalid="ignore"):  # inf + -inf steps give PyTorch's silent NaN
        r = np.logaddexp.accumulate(a.reshape(1) if a.ndim == 0 else a, dim, dtype=acc).reshape(a.shape)
    return _finish(np.asarray(r, order="C"), x._dtype, out, "logcumsumexp")  # row-major, as PyTorch's


def _log_add_exp_complex(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """PyTorch's complex log(exp(x) + exp(y)) step: log1p(exp(min - max)) + max with min and max by real part;
    equal infinite real parts give the -inf operand itself or log(exp(x) + exp(y)); a NaN part gives nan+nanj."""
    x_min = x.real < y.real
    mn, mx = np.where(x_min, x, y), np.where(x_min, y, x)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        r = np.log1p(np.exp(mn - mx)) + mx
        same_inf = np.isinf(mn.real) & (mn.real == mx.real)
        r = np.where(same_inf, np.where(mn.real < 0, mn, np.log(np.exp(mn) + np.exp(mx))), r)
    return np.where(np.isnan(x) | np.isnan(y), complex(np.nan, np.nan), r)


def _logcumsumexp_complex(a: np.ndarray, dim: int) -> np.ndarray:
    """The running complex log-sum-exp along `dim`, one step of PyTorch's rule per position."""
    if a.ndim == 0:
        return a.copy()
    w = np.moveaxis(a, dim, 0)
    r = np.empty_like(w)
    if w.shape[0]:
        r[0] = w[0]
        for i in range(1, w.shape[0]):
            r[i] = _log_add_exp_complex(r[i - 1], w[i])
    return np.moveaxis(r, 0, dim)


@method
def logcumsumexp(input: Tensor, dim: int = NO_DIM, *, out=None) -> Tensor:
    """`log(cumsum(exp(input), dim))`, computed without overflow."""
    required_dim("logcumsumexp", dim)
    if out is not None:
        from ember.core.ops.sorting import scan_out_dtypes

        scan_out_dtypes(input, (out,))
    return _logcumsumexp(input, _one_dim(dim, input, "logcumsumexp"), out=out)


@method
def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """The `n`-th forward difference along `dim` (`!=` for bools), after joining `prepend`/`append`."""
    from ember.core.ops.join import cat
    from ember.core.ops.shape import narrow

    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _one_dim(dim, input, "diff")
    x = input
    if builtins.any(t is not None and t.ndim != input.ndim for t in (prepend, append)):
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    if prepend is not None or append is not None:
        x = cat([t for t in (prepend, input, append) if t is not None], d)
    for _ in range(n):
        m = builtins.max(x._shape[d] - 1, 0)
        hi, lo = narrow(x, d, builtins.min(1, x._shape[d]), m), narrow(x, d, 0, m)
        x = ew.ne(hi, lo) if x._dtype is dtypes.bool else ew.sub(hi, lo)
    return x


# --- closeness -----------------------------------------------------------------------------------
_isclose = declare("isclose", np.isclose, differentiable=False, doc="isclose(a, b, rtol, atol, equal_nan) -> Tensor")


@_isclose.meta
def _isclose_meta(a, b, rtol=1e-05, atol=1e-08, equal_nan=False) -> None:
    """One dtype, broadcastable shapes: checked once for every device."""
    if a._dtype is not b._dtype:
        raise RuntimeError(f"{dtypes.TORCH_NAMES[a._dtype.name]} did not match {dtypes.TORCH_NAMES[b._dtype.name]}")
    try:
        np.broadcast_shapes(a._shape, b._shape)
    except ValueError:
        raise shape_error("isclose", a, b) from None


@_isclose.register("cpu")
def _isclose_cpu(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """isclose(a, b, rtol, atol, equal_nan): |a - b| <= atol + rtol * |b|, elementwise, bool."""
    x, y = a._np(), b._np()
    if a._dtype is dtypes.bool or (not a._dtype.is_floating_point and rtol == 0 and atol == 0):
        r = np.equal(x, y)
    else:
        with np.errstate(invalid="ignore", over="ignore"):
            r = np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return ew.laid_out(wrap(r), r, (a, b))  # the layout of an elementwise result (a channels_last one stays so)


@method
def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """Elementwise `|input - other| <= atol + rtol * |other|` (inf equals inf of the same sign).

    >>> from ember.core import tensor
    >>> tensor([1.0, 2.0]).isclose(tensor([1.0, 2.1]))
    tensor([ True, False])
    """
    _check_tolerances(rtol, atol)
    return _isclose(input, other, rtol, atol, equal_nan)


def _check_tolerances(rtol: float, atol: float) -> None:
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if tol < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {tol:g}")


@method
def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> builtins.bool:
    """Whether every element of `input` is close to `other` (see `isclose`)."""
    _check_tolerances(rtol, atol)
    return builtins.bool(_isclose(input, other, rtol, atol, equal_nan)._host_array().all())


def _equal_method(fn):
    """`x.equal(other)`: PyTorch's method counts `other` as position 1."""
    def equal(self, other) -> builtins.bool:
        if not isinstance(other, Tensor):
            raise ew.not_a_tensor("equal", "other", 1, other)
        return fn(self, other)

    return equal


@method(method_form=_equal_method)
def equal(input: Tensor, other: Tensor) -> builtins.bool:
    """True when both tensors have the same shape and the same values (NaN is never equal)."""
    ew.check_tensors("equal", input, other)
    if (input.__class__ is not Tensor or other.__class__ is not Tensor) and (input.is_nested or other.is_nested):
        # NOTE [ Nested tensors ] in ember.core.nested
        from ember.core.nested_ops import handle

        return handle(equal, (input, other), {})
    if dtypes.complex32 in (input._dtype, other._dtype):
        from ember.core.ops.numeric import DtypeNotImplemented

        raise DtypeNotImplemented("\"equal_notnan_cpu\" not implemented for 'ComplexHalf'")
    if input._shape != other._shape:
        return False
    return builtins.bool(np.array_equal(input._host_array(), other._host_array()))
