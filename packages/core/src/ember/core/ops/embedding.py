"""Embedding lookups: `embedding` (a row gather) and `embedding_bag` (sum/mean/max of bags), with
their backward ops as Numba scatter-adds into a dense `(num_weights, D)` gradient.

Indices are validated on the host first ("index out of range in self"), so the kernels never
read outside the weight.
"""

from __future__ import annotations

import operator

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import declare
from ember.core.opinfo_indexing import info as _info
from ember.core.ops import numba_nn
from ember.core.ops._util import legacy_type_name, wrap
from ember.core.tensor import Tensor, describe

__all__ = ["embedding", "embedding_bag", "embedding_backward", "embedding_bag_backward", "embedding_renorm_",
           "set_sparse_lookups"]

_MODES = {"sum": 0, "mean": 1, "max": 2}
# the lookups with a sparse weight gradient, installed by the autograd layer (`ember.autograd.sparse`); without
# it no gradient exists, and these are the dense ops
_SPARSE: dict = {}


def set_sparse_lookups(embedding_fn, embedding_bag_fn) -> None:
    """Install the differentiable `sparse=True` lookups (the autograd layer's functions)."""
    _SPARSE["embedding"], _SPARSE["embedding_bag"] = embedding_fn, embedding_bag_fn


def _sparse_lookup(name: str, weight: Tensor):
    """The `sparse=True` lookup for `weight`, or None when no gradient can be asked of it (the dense op serves)."""
    return _SPARSE.get(name) if weight.requires_grad else None


def _flat_indices(indices: Tensor, num_weights: int | None = None, bag: bool = False) -> np.ndarray:
    """Indices as flat int64, checked in [0, num_weights) when given (kernels write by them)."""
    idx = np.ascontiguousarray(indices._np(), dtype=np.int64).reshape(-1)
    if num_weights is not None:
        _check_values(idx, num_weights, bag)
    return idx


def _check_values(i: np.ndarray, rows: int, bag: bool) -> None:
    """Every index in [0, rows), or PyTorch's error (embedding_bag's names the position and value)."""
    if i.size and (numba_nn.first_out_of_range()(i, rows) >= 0 if i.dtype.kind in "iu" and i.ndim == 1
                   else i.min() < 0 or i.max() >= rows):
        if rows == 0 and not bag:  # PyTorch's index_select refuses an empty table before reading an index
            raise RuntimeError("index_select(): self indexing axis dim should be positive")
        if bag:
            k = int(np.flatnonzero((i.reshape(-1) < 0) | (i.reshape(-1) >= rows))[0])
            raise RuntimeError(f"Index {k} of input takes value {int(i.reshape(-1)[k])} which is not in the valid "
                               f"range [0, {rows})")
        raise IndexError("index out of range in self")


_FBGEMM_CHECK = ("Expected i < index_size to be true, but got false.  (Could this error message be improved?  If "
                 "so, please report an enhancement request to PyTorch.)")


def _check_bag_values(idx: np.ndarray, offsets: np.ndarray, rows: int, fast: bool, include_last_offset: bool) -> None:
    """A bag's indices in [0, rows), else PyTorch's CPU error, which its kernel words. The plain loop names the
    first bad value. FBGEMM's fast path (float32 or 16-bit rows of unit stride, sum or mean, no padding_idx)
    reports per parallel chunk of bags, reading a chunk's indices at their absolute positions from the chunk's
    start: past the first chunk it names a shifted value, or fails its `i < index_size` check."""
    bad = (idx < 0) | (idx >= rows)
    if not bad.any():
        return
    if not fast:
        raise RuntimeError("embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be "
                           f"{int(idx[np.argmax(bad)])}")
    from ember.core.parallel import get_num_threads

    o = [int(v) for v in (offsets if include_last_offset else np.append(offsets, idx.size))]
    n_bags = len(o) - 1
    chunk = -(-n_bags // max(1, min(get_num_threads(), n_bags))) if n_bags > 0 else 1
    for start in range(0, n_bags, chunk):  # at::parallel_for's chunks; the first failing one reported
        end = min(start + chunk, n_bags)
        base, size = o[start], o[end] - o[start]
        if not bad[base:base + size].any():  # the kernel succeeded on this chunk
            continue
        for m in range(start, end):
            for i in range(o[m], o[m + 1]):
                if not i < size:
                    raise RuntimeError(_FBGEMM_CHECK)
                if not 0 <= idx[base + i] < rows:
                    raise RuntimeError(f"Index {i} of input takes value {int(idx[base + i])} which is not in the "
                                       f"valid range [0, {rows})")
        raise RuntimeError(_LAST_OFFSET)


_LAST_OFFSET = ("Your input appears to be incorrect: the last offset value should be the size of the indices tensor, "
                "but it seems not to be the case.")


def _refuse_decreasing(offsets: Tensor, o: np.ndarray, n: int, weight, mode, padding_idx, include_last: bool):
    """Decreasing offsets: FBGEMM's fast path (float32 or 16-bit rows, sum or mean, no padding_idx) fails them with
    its own words, as PyTorch's CPU kernel reports; ember refuses them on every path (PyTorch's other paths read
    bags out of order)."""
    if weight.dtype in (dtypes.float32, dtypes.float16, dtypes.bfloat16) and mode != "max" and padding_idx is None:
        raise RuntimeError(_LAST_OFFSET if include_last and o[-1] != n else _FBGEMM_CHECK)
    raise RuntimeError(f"embedding_bag: offsets must be non-decreasing; got {describe(offsets)}")


def _check_device_values(indices: Tensor, rows: int, bag: bool = False) -> None:
    """The meta step's check of device indices (read to the host: a synchronization, as PyTorch's
    device-side assert), so CUDA raises the CPU's error instead of its kernels skipping the index."""
    if indices._storage.device.type != "cpu":
        _check_values(np.asarray(indices._host_array()), rows, bag)


embedding_op = declare("embedding", doc="""Rows of `weight` at `indices` (PyTorch's aten::embedding).

Positional signature: `embedding(weight, indices, padding_idx, scale_grad_by_freq)`, weight
`(V, D)`, integer indices of any shape (validated in [0, V)), padding_idx any int, compared with
the indices as it is (-1, or any other value no index takes, for none) -> `indices.shape + (D,)`.
Backward (weight only): `embedding_backward(grad, indices, V, padding_idx,
scale_grad_by_freq)`.""", info=_info("embedding"), mixed_devices="meta")


def _check_all_values(indices: Tensor, rows: int) -> None:
    """The meta step's check of indices on any device: a compiled plan (ember.jit) replays meta steps,
    so an index out of range raises eager's error at every replay, not only at the capturing call."""
    _check_values(np.asarray(indices._host_array()).reshape(-1), rows, False)


@embedding_op.meta
def _embedding_meta(weight, indices, padding_idx=-1, scale_grad_by_freq=False):
    _check_all_values(indices, weight._shape[0])


@embedding_op.register("cpu")
def _embedding_cpu(weight, indices, padding_idx=-1, scale_grad_by_freq=False):
    w = weight._np()
    if w.ndim == 2 and w.dtype.kind == "f" and w.dtype.itemsize >= 4 and w.flags.c_contiguous:
        # one Numba pass that checks each index as it copies its row (np.take after a min and a max: 2x)
        idx = _flat_indices(indices)
        out = np.empty((idx.size, w.shape[1]), w.dtype)
        if numba_nn.rows_gather()(w, idx, out, 0) >= 0:
            _check_values(idx, w.shape[0], False)
        return wrap(out.reshape(indices._shape + w.shape[1:]))
    # np.take copies whole rows (3x faster than w[idx] on NCF's 1024 x 64 lookups); the indices are in range
    return wrap(np.take(w, _flat_indices(indices, w.shape[0]), axis=0).reshape(indices._shape + w.shape[1:]))


embedding_backward = declare("embedding_backward", doc="""The gradient of embedding wrt its weight.

Positional signature: `embedding_backward(grad, indices, num_weights, padding_idx,
scale_grad_by_freq=False)`, grad `indices.shape + (D,)` -> `(num_weights, D)`: each gradient
row added to its index's row (a Numba scatter-add); rows of padding_idx stay zero; with
scale_grad_by_freq each row is divided by its index's count in `indices`. Linear in grad; its
backward is `embedding(gg, indices, -1, False)`.""")


@embedding_backward.register("cpu")
def _embedding_backward_cpu(grad, indices, num_weights, padding_idx=-1, scale_grad_by_freq=False):
    if not scale_grad_by_freq:
        idx = _flat_indices(indices)
        out = np.empty((num_weights, grad._shape[-1] if grad._shape else 1), dtype=_kernel_dtype(grad._dtype.np))
        g, rs = _rows(grad, idx.size, out.shape[1])
        if numba_nn.rows_scatter_into()(g, rs, idx, out, int(padding_idx)) >= 0:
            _check_values(idx, num_weights, False)
        if out.dtype != grad._dtype.np:  # half and bfloat16: PyTorch's loop rounds after every row it adds
            return wrap(_rows_added_stepwise(grad, idx, num_weights, out.shape[1], int(padding_idx)))
        return wrap(out)
    idx = _flat_indices(indices, num_weights)
    g = np.ascontiguousarray(numba_nn.kernel_array(grad._np())).reshape(idx.size, grad._shape[-1])
    scale = 1.0 / np.bincount(idx, minlength=num_weights)[idx]
    if g.dtype != grad._dtype.np:  # half and bfloat16: PyTorch's loop adds each row with alpha `scale` in the dtype
        return wrap(_rows_added_stepwise(grad, idx, num_weights, g.shape[1], int(padding_idx), scale))
    scale = scale.astype(g.dtype)
    out = np.zeros((num_weights, g.shape[1]), dtype=g.dtype)
    numba_nn.rows_scatter_add()(g, idx, scale, out, int(padding_idx))
    return wrap(out.astype(grad._dtype.np, copy=False))


def _rows_added_stepwise(grad: Tensor, idx: np.ndarray, num_weights: int, d: int, skip: int,
                         scale: np.ndarray | None = None) -> np.ndarray:
    """The rows of a 16-bit `grad` (each times its `scale`, if given: scale and product rounded to the dtype) summed
    into their (checked) `idx` rows in order, rounding after each add."""
    from ember.core.ops.scatter_cpu import ADD, apply_stepwise

    vals = np.ascontiguousarray(grad._np()).reshape(idx.size, d)
    if scale is not None:
        dt = vals.dtype
        vals = (vals.astype(np.float32) * scale.astype(dt).astype(np.float32)[:, None]).astype(dt)
    keep = idx != skip
    out = np.zeros((num_weights, d), grad._dtype.np)
    offs = idx[keep, None] * d + np.arange(d)
    if offs.size:
        apply_stepwise(out.reshape(-1), offs.reshape(-1), vals[keep].reshape(-1), ADD)
    return out


def _kernel_dtype(dt: np.dtype) -> np.dtype:
    return np.dtype(np.float32) if dt.itemsize == 2 and (dt.kind == "f" or dt.name == "bfloat16") else dt


def _rows(grad: Tensor, m: int, d: int) -> tuple[np.ndarray, int]:
    """`grad`'s `m` rows of `d` as a flat C-contiguous array and its row stride: a gradient whose rows are
    each contiguous (a `narrow` of `cat`'s gradient) is read in place, anything else copied once."""
    g = grad._np()
    isz = g.dtype.itemsize
    if (g.ndim == 2 and m > 0 and g.strides[1] == isz and g.strides[0] >= d * isz and g.strides[0] % isz == 0
            and g.dtype == _kernel_dtype(g.dtype)):
        rs = g.strides[0] // isz
        return np.ndarray(((m - 1) * rs + d,), g.dtype, grad._storage._raw, grad._offset * isz), rs
    return np.ascontiguousarray(numba_nn.kernel_array(g)).reshape(-1), d


embedding_renorm_ = declare("embedding_renorm_", mutates=(0,), overlap=0, differentiable=False,
                            doc="""Rescale referenced rows in place.

Positional signature: `embedding_renorm_(weight, indices, max_norm, norm_type)`: every row of
`weight` named in `indices` whose `norm_type`-norm exceeds max_norm is scaled down to it. PyTorch picks the rows
with `select`, so a negative index counts from the end and one out of [-rows, rows) raises select()'s IndexError;
on the CPU the rows of the sorted indices before the first bad one are rescaled first, as PyTorch's loop does.""")


def _renorm_index_error(bad: int, weight: Tensor) -> IndexError:
    return IndexError(f"select(): index {bad} out of range for tensor of size {list(weight._shape)} at dimension 0")


@embedding_renorm_.meta
def _embedding_renorm_meta(weight, indices, max_norm, norm_type):
    if weight._storage.device.type == "cpu":  # the kernel rescales the rows before the bad index, then raises
        return
    idx = np.unique(np.asarray(indices._host_array()).reshape(-1))  # sorted: PyTorch names the smallest bad one
    rows = weight._shape[0]
    bad = idx[(idx < -rows) | (idx >= rows)]
    if bad.size:
        raise _renorm_index_error(int(bad[0]), weight)


@embedding_renorm_.register("cpu")
def _embedding_renorm_cpu(weight, indices, max_norm, norm_type):
    w = weight._np()
    idx = np.unique(_flat_indices(indices))  # PyTorch walks the sorted unique indices and stops at a bad one
    bad = np.flatnonzero((idx < -w.shape[0]) | (idx >= w.shape[0]))
    rows = np.unique(idx[:bad[0] if bad.size else idx.size] % max(w.shape[0], 1))
    # PyTorch's row norm is a tensor of the weight's dtype (accumulated wider, then rounded) read out as a double
    norms = np.linalg.norm(w[rows].astype(np.float64), ord=norm_type, axis=1).astype(w.dtype).astype(np.float64)
    big = norms > max_norm
    w[rows[big]] *= (max_norm / (norms[big] + 1e-7)).astype(w.dtype)[:, None]
    if bad.size:
        raise _renorm_index_error(int(idx[bad[0]]), weight)
    return weight


def _bags(indices: np.ndarray, offsets: np.ndarray, include_last_offset: bool):
    """(starts, ends) of the bags, checked so that no kernel reads past `indices`. With include_last_offset the
    last bag still runs to the end of `indices` (PyTorch's CPU kernels size it from there, whatever offsets[-1]
    says; only FBGEMM's fast-path sum stops at offsets[-1], `_embedding_bag_cpu`)."""
    if offsets.size and (offsets[0] < 0 or (np.diff(offsets) < 0).any() or offsets[-1] > indices.size):
        raise RuntimeError(f"embedding_bag: offsets must be non-decreasing and within [0, {indices.size}]; got "
                           f"{offsets.tolist()}")
    if include_last_offset:
        return offsets[:-1].copy(), np.append(offsets[1:-1], indices.size).astype(np.int64)[:max(offsets.size - 1, 0)]
    return offsets.copy(), np.append(offsets[1:], indices.size).astype(np.int64)


embedding_bag_op = declare("embedding_bag", doc="""Sums, means or maxima of bags of embedding rows.

Positional signature: `embedding_bag(weight, indices, offsets, mode, per_sample_weights,
include_last_offset, padding_idx, scale_grad_by_freq=False)` with 1-D indices, 1-D int64 offsets (bag starts), mode
'sum' | 'mean' | 'max', per_sample_weights `(len(indices),)` or None (sum only), padding_idx an
int or -1 (its entries are left out of their bag). Returns `(output (B, D), bag_size (B,),
max_indices (B, D))`; empty bags give zeros. Backward (weight only): `embedding_bag_backward(grad,
indices, offsets, bag_size, max_indices, num_weights, mode, per_sample_weights,
include_last_offset, padding_idx)`; scale_grad_by_freq only scales that gradient (its derivative rule).""",
    mixed_devices="meta")


def _meta_bags(op: str, weight_rows: int | None, indices: Tensor, offsets: Tensor, per_sample_weights) -> None:
    """The operands every bag kernel walks together: 1-D indices and offsets, one weight per index."""
    if indices.ndim != 1 or offsets.ndim != 1:
        raise ValueError(f"{op}: indices and offsets must be 1-D; got {describe(indices)} and {describe(offsets)}")
    if per_sample_weights is not None and (per_sample_weights.ndim != 1
                                           or per_sample_weights.numel() != indices.numel()):
        raise RuntimeError(f"{op}: expected per_sample_weights.numel() ({per_sample_weights.numel()}) to be the same "
                           f"as indices.numel() ({indices.numel()})")
    if weight_rows is not None and weight_rows < 0:
        raise RuntimeError(f"{op}: num_weights must be non-negative; got {weight_rows}")


@embedding_bag_op.meta
def _embedding_bag_meta(weight, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx,
                        scale_grad_by_freq=False):
    if weight.ndim != 2:
        raise RuntimeError(f"embedding_bag: 'weight' must be 2-D; got {describe(weight)}")
    _meta_bags("embedding_bag", None, indices, offsets, per_sample_weights)
    _check_device_values(indices, weight._shape[0], bag=True)


@embedding_bag_op.register("cpu")
def _embedding_bag_cpu(weight, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx,
                       scale_grad_by_freq=False):
    w = np.ascontiguousarray(numba_nn.kernel_array(weight._np()))
    idx = _flat_indices(indices)
    o = _flat_indices(offsets)
    starts, ends = _bags(idx, o, include_last_offset)
    # FBGEMM's fast path (16/32-bit float rows of unit stride, sum or mean, no padding_idx) reads a short last bag
    # to offsets[-1] only, but a mean still divides by its size to the end of the indices
    short = bool(include_last_offset and starts.size and o[-1] < idx.size and mode != "max" and int(padding_idx) < 0
                 and weight._dtype.np.itemsize <= 4 and weight._strides[1] == 1)
    read = np.append(ends[:-1], o[-1]) if short else ends
    _check_values(idx[:read.max(initial=0)], w.shape[0], True)  # the kernel reads the bags' indices only
    psw = per_sample_weights._np().astype(w.dtype) if per_sample_weights is not None else np.ones(idx.size, w.dtype)
    out = np.zeros((starts.size, w.shape[1]), dtype=w.dtype)
    argmax = np.full(out.shape, -1, dtype=np.int64)
    count = np.zeros(starts.size, dtype=np.int64)
    reduced = w.dtype != weight._dtype.np  # half and bfloat16 rows, summed in float32
    numba_nn.embedding_bag()(w, idx, starts, read, np.ascontiguousarray(psw), out, argmax, count,
                             0 if short or (reduced and mode == "mean") else _MODES[mode], int(padding_idx))
    if short:
        count = ends - starts
    if reduced and mode != "max":
        out = _round_bag_sums(out, weight, int(padding_idx))
    if mode == "mean" and (short or reduced):
        out = (out.astype(np.float32) / np.maximum(count, 1)[:, None]).astype(out.dtype)
    return wrap(out.astype(weight._dtype.np, copy=False)), wrap(count), wrap(argmax)


def _round_bag_sums(out: np.ndarray, weight: Tensor, padding_idx: int) -> np.ndarray:
    """float32 bag sums rounded to the weight's 16-bit dtype as PyTorch does: a mean divides the rounded sum, and
    FBGEMM's bfloat16 path (unit-stride rows, no padding_idx) rounds half up rather than to even."""
    if weight._dtype is dtypes.bfloat16 and weight._strides[1] == 1 and padding_idx < 0:
        bits = np.ascontiguousarray(out, dtype=np.float32).view(np.uint32)
        out = ((bits + np.uint32(0x8000)) & np.uint32(0xFFFF0000)).view(np.float32)
    return out.astype(weight._dtype.np)


embedding_bag_backward = declare("embedding_bag_backward", doc="""The gradient of embedding_bag wrt its weight.

Positional signature: `embedding_bag_backward(grad, indices, offsets, bag_size, max_indices,
num_weights, mode, per_sample_weights, include_last_offset, padding_idx)` with bag_size and
max_indices embedding_bag's 2nd and 3rd results -> `(num_weights, D)`.""")


@embedding_bag_backward.meta
def _embedding_bag_backward_meta(grad, indices, offsets, bag_size, max_indices, num_weights, mode,
                                 per_sample_weights, include_last_offset, padding_idx):
    """grad, bag_size and max_indices are embedding_bag's shapes for these offsets: one row per bag."""
    _meta_bags("embedding_bag_backward", num_weights, indices, offsets, per_sample_weights)
    nbags = max(offsets.numel() - 1, 0) if include_last_offset else offsets.numel()
    if grad.ndim != 2 or grad._shape[0] != nbags or tuple(bag_size._shape) != (nbags,) \
            or tuple(max_indices._shape) != tuple(grad._shape):
        raise RuntimeError(f"embedding_bag_backward: expected grad and max_indices of shape ({nbags}, D) and bag_size "
                           f"of shape ({nbags},) for {offsets.numel()} offsets; got {describe(grad)}, "
                           f"{describe(max_indices)} and {describe(bag_size)}")


@embedding_bag_backward.register("cpu")
def _embedding_bag_backward_cpu(grad, indices, offsets, bag_size, max_indices, num_weights, mode,
                                per_sample_weights, include_last_offset, padding_idx):
    g = np.ascontiguousarray(numba_nn.kernel_array(grad._np()))
    idx = _flat_indices(indices)
    starts, ends = _bags(idx, _flat_indices(offsets), include_last_offset)
    _check_values(idx[:ends[:starts.size].max(initial=0)], num_weights, False)  # the bags' indices only, as the forward
    if g.dtype != grad._dtype.np and mode == "max":  # PyTorch's index_add_ of each bag's row, rounding each step
        from ember.core.ops.scatter_cpu import ADD, apply_stepwise

        argmax, d = max_indices._np(), grad._shape[1]
        hit = (argmax >= 0) & (bag_size._np() > 0)[:, None]
        out = np.zeros((num_weights, d), grad._dtype.np)
        offs = (argmax * d + np.arange(d))[hit]
        if offs.size:
            apply_stepwise(out.reshape(-1), offs, np.ascontiguousarray(grad._np())[hit], ADD)
        return wrap(out)
    if g.dtype != grad._dtype.np:
        return wrap(_bag_rows_added_stepwise(grad._np(), idx, starts, ends, bag_size._np(), num_weights, mode,
                                             per_sample_weights, int(padding_idx)))
    psw = per_sample_weights._np().astype(g.dtype) if per_sample_weights is not None else np.ones(idx.size, g.dtype)
    out = np.zeros((num_weights, g.shape[1]), dtype=g.dtype)
    numba_nn.embedding_bag_backward()(g, idx, starts, ends, np.ascontiguousarray(psw),
                                      np.ascontiguousarray(max_indices._np()), bag_size._np(), out, _MODES[mode],
                                      int(padding_idx))
    return wrap(out.astype(grad._dtype.np, copy=False))


def _bag_rows_added_stepwise(grad: np.ndarray, idx: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                             bag_size: np.ndarray, num_weights: int, mode: str, per_sample_weights, skip: int):
    """A 16-bit sum/mean bag gradient as PyTorch's CPU loop makes it: the indices visited in its (unstable) sort
    order, each adding its bag's gradient row times `scale` (its per-sample weight, over the bag size for a mean;
    scale and product rounded to the dtype) into its row, rounding after each add."""
    from ember.core.ops.scatter_cpu import ADD, apply_stepwise
    from ember.core.ops.sorting import _sort_cpu

    lengths = ends - starts
    bag_of = np.repeat(np.arange(starts.size), lengths)
    pos = np.arange(bag_of.size) + np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
    order = _sort_cpu(wrap(idx[pos]), 0)[1]._np()
    bag_of, pos = bag_of[order], pos[order]
    scale = per_sample_weights._np()[pos].astype(np.float64) if per_sample_weights is not None else np.ones(pos.size)
    if mode == "mean":
        scale = scale / np.maximum(bag_size[bag_of], 1)
    vals = (grad[bag_of].astype(np.float32) * scale.astype(grad.dtype).astype(np.float32)[:, None]).astype(grad.dtype)
    rows = idx[pos]
    keep = rows != skip
    out = np.zeros((num_weights, grad.shape[1]), grad.dtype)
    offs = rows[keep, None] * grad.shape[1] + np.arange(grad.shape[1])
    if offs.size:
        apply_stepwise(out.reshape(-1), offs.reshape(-1), vals[keep].reshape(-1), ADD)
    return out


# --- validation and the public functions ------------------------------------------------
def _check_indices(op: str, t: Tensor) -> None:
    if t.dtype.name not in ("int64", "int32"):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {legacy_type_name(t)} instead (while checking arguments for {op})")


def _check(op: str, input, weight, *, bag: bool = False) -> None:
    """ATen's checks, in its order: embedding's weight rank, the indices' dtype; a bag's weight dtype (its values
    after the offsets, `_check_bag_values`; embedding's in its op's meta step)."""
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):  # torch.embedding(weight, indices)'s order
        name, pos, bad = ("weight", 1, input) if not isinstance(input, Tensor) else ("indices", 2, weight)
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be Tensor, not {type(bad).__name__}")
    if not bag and weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_indices(op, input)
    if bag and not weight.dtype.is_floating_point:
        raise RuntimeError(f"Expected tensor for argument #1 'weight' to have one of the following scalar types: "
                           f"Half, BFloat16, Float, Double; but got {legacy_type_name(weight)} instead (while checking "
                           f"arguments for {op})")


def _int_arg(op: str, value, position: str) -> int:
    """A Python int (or anything with `__index__` but a bool), else PyTorch's argument parser's TypeError."""
    if not isinstance(value, bool):
        try:
            return operator.index(value)
        except TypeError:
            pass
    raise TypeError(f"{op}(): argument 'padding_idx'{position} must be int, not {type(value).__name__}")


def _functional_padding(padding_idx, num: int) -> int:
    """`F.embedding`'s padding_idx as PyTorch's Python checks it (an explicit AssertionError, as PyTorch's `assert`:
    a positive index must be a row, a negative one counts from the end; 0 is never checked, so an empty table
    takes it), then its argument parser's type check; -1 for none."""
    if padding_idx is None:
        return -1
    if padding_idx > 0 and padding_idx >= num or padding_idx < 0 and padding_idx < -num:
        raise AssertionError("Padding_idx must be within num_embeddings")
    padding_idx = _int_arg("embedding", padding_idx, " (position 3)")
    return padding_idx + num if padding_idx < 0 else padding_idx


def _bag_padding(padding_idx, num: int) -> int:
    """`F.embedding_bag`'s padding_idx, checked as PyTorch's kernel does (RuntimeError), -1 for none."""
    if padding_idx is None:
        return -1
    padding_idx = _int_arg("embedding_bag", padding_idx, " (position 9)")
    if not -num <= padding_idx < num:
        raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num} through {num - 1}, "
                           f"but got {padding_idx}")
    return padding_idx + num if padding_idx < 0 else padding_idx


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Look up rows of `weight` `(V, D)` at integer `input`, as `torch.nn.functional.embedding`.

    Args:
        padding_idx: a row that receives no gradient.
        max_norm: renormalize looked-up rows to at most this norm first (in place, no gradient).
        scale_grad_by_freq: divide each row's gradient by its index's frequency in the batch.
    Raises:
        IndexError: an index outside [0, V).

    `torch.embedding(weight, indices, padding_idx=-1, ...)` passes the weight first; a floating
    point first argument with integer second one is read that way (there -1 means no padding_idx).

    >>> import ember.core as ec
    >>> ec.embedding(ec.tensor([1]), ec.tensor([[0.0, 1.0], [2.0, 3.0]])).tolist()
    [[2.0, 3.0]]
    """
    if isinstance(input, Tensor) and isinstance(weight, Tensor) and input.dtype.is_floating_point \
            and not weight.dtype.is_floating_point:
        input, weight = weight, input
        # aten's padding_idx: any int, compared with the indices as it is (-1, -3 or 7 of 4 rows: no padding row)
        padding_idx = -1 if padding_idx is None else _int_arg("embedding", padding_idx, "")
        # and its positional flags (scale_grad_by_freq, sparse) land in max_norm and norm_type: a bool there is one
        if isinstance(max_norm, bool):
            scale_grad_by_freq, max_norm = max_norm, None
        if isinstance(norm_type, bool):
            sparse, norm_type = norm_type, 2.0
    else:
        _check("embedding", input, weight)
        padding_idx = _functional_padding(padding_idx, weight.shape[0])
    _check("embedding", input, weight)
    if max_norm is not None:
        embedding_renorm_(weight, input, float(max_norm), float(norm_type))
    lookup = _sparse_lookup("embedding", weight) if sparse else None
    if lookup is not None:
        return lookup(weight, input, padding_idx, bool(scale_grad_by_freq))
    return embedding_op(weight, input, padding_idx, bool(scale_grad_by_freq))


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Reduce bags of embedding rows, as `torch.nn.functional.embedding_bag`.

    Args:
        input: `(B, L)` (each row a bag, offsets None) or 1-D with `offsets` (bag starts).
        mode: 'sum', 'mean' or 'max'. per_sample_weights: multiply each row first ('sum' only).

    >>> import ember.core as ec
    >>> w = ec.tensor([[0.0, 1.0], [2.0, 3.0]])
    >>> ec.embedding_bag(ec.tensor([0, 1, 1]), w, ec.tensor([0, 1]), mode="sum").tolist()
    [[0.0, 1.0], [4.0, 6.0]]
    """
    from ember.core import creation
    from ember.core.ops.layout import reshape

    # checked in PyTorch's order: its Python function's checks, then ATen's (dtypes, index and offset values)
    if not isinstance(weight, Tensor):  # PyTorch's Python function reads weight.dtype first, then input's methods
        raise AttributeError(f"'{type(weight).__name__}' object has no attribute 'dtype'")
    if not isinstance(input, Tensor):
        attr = "is_floating_point" if weight.dtype == dtypes.int64 else "size" if per_sample_weights is not None \
            else "dim"
        raise AttributeError(f"'{type(input).__name__}' object has no attribute '{attr}'")
    if per_sample_weights is not None and tuple(per_sample_weights.shape) != tuple(input.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if input.ndim == 2:
        if offsets is not None:
            kind = "<class 'torch.Tensor'>" if isinstance(offsets, Tensor) else str(type(offsets))
            raise ValueError(f"if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {kind}")
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                      f"supported for mode='sum' (got mode='{mode}'). Please open a feature "
                                      f"request on GitHub.")
        per_sample_weights = reshape(per_sample_weights, (-1,))
    if input.ndim == 1:  # ATen promotes indices and offsets to one type (bool indices become int64) first
        common = dtypes.promote_types(input.dtype, offsets.dtype)
        if common.name not in ("int64", "int32"):
            _check_indices("embedding_bag", input if input.dtype == common else offsets.to(common))
        if input.dtype != common:
            input = input.to(common)
    _check("embedding_bag", input, weight, bag=True)
    if per_sample_weights is not None and per_sample_weights.dtype != weight.dtype:
        raise RuntimeError(f"Expected tensor for argument #1 'weight' to have the same type as tensor for argument "
                           f"#1 'per_sample_weights'; but type {legacy_type_name(weight)} does not equal "
                           f"{legacy_type_name(per_sample_weights)} (while checking arguments for embedding_bag)")
    if input.ndim == 2:
        b, length = input.shape
        if length == 0:  # PyTorch builds the offsets with arange(0, numel, length)
            raise RuntimeError("step must be nonzero")
        offsets = creation.from_numpy(np.arange(b, dtype=np.int64) * length).to(input.device)
        input = reshape(input, (-1,))
        include_last_offset = False
    else:
        # the values on the host only: reading device offsets would synchronize (the CUDA kernels
        # clamp each bag to the indices instead)
        o = offsets._np() if offsets.device.type == "cpu" else np.zeros(0, np.int64)
        if o.size and o[0] != 0:  # (PyTorch prints the 0-d offsets[0] after, in its C++ form)
            both_int = offsets.dtype == dtypes.int32 and input.dtype == dtypes.int32
            raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
                               f"from position 0. However, got {o[0]}\n[ torch.{'Int' if both_int else 'Long'}"
                               f"Tensor{{}} ]")
        if o.size and o[-1] > input.shape[0]:
            raise RuntimeError(f"offsets[-1] can not be greater than input's length {input.shape[0]} but got "
                               f"offsets[-1] of {o[-1]}")
        if o.size and (np.diff(o) < 0).any():
            _refuse_decreasing(offsets, o, input.shape[0], weight, mode, padding_idx, include_last_offset)
    padding = _bag_padding(padding_idx, weight.shape[0])
    if input.device.type == "cpu":
        fast = (weight.dtype in (dtypes.float32, dtypes.float16, dtypes.bfloat16) and weight.stride()[1] == 1
                and mode != "max" and padding < 0)
        _check_bag_values(input._np().reshape(-1), offsets._np(), weight.shape[0], fast, bool(include_last_offset))
    if max_norm is not None:
        embedding_renorm_(weight, input, float(max_norm), float(norm_type))
    lookup = _sparse_lookup("embedding_bag", weight) if sparse else None
    if lookup is not None:
        return lookup(weight, input, offsets, mode, per_sample_weights, bool(include_last_offset), padding,
                      bool(scale_grad_by_freq))
    return embedding_bag_op(weight, input, offsets, mode, per_sample_weights, bool(include_last_offset), padding,
                            bool(scale_grad_by_freq))[0]
