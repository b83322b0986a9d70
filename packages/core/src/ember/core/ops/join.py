"""Joining, splitting and rearranging: cat/stack, split/chunk (views), flip/roll, repeat/tile, tril/triu, diag.

Only `cat`, `flip`, `tril`, `triu`, `diag_embed` and `trace` are primitives with kernels; the rest
compose them with views (`narrow`, `unsqueeze`, `expand`) so they work on every device and need
no derivative of their own.
"""

from __future__ import annotations

import numbers
import operator
from collections.abc import Sequence

import numpy as np

from ember.core import dispatch as _dispatch
from ember.core import dtypes, storage
from ember.core.dispatch import OVERLAP_ANY, OVERLAP_INTERNAL, declare, node_name
from ember.core.opinfo_shape import info as _info
from ember.core.methods import attach, inplace, method, numpy_aliases
from ember.core.ops import elementwise as ew
from ember.core.ops import shape as S
from ember.core.ops import memfmt
from ember.core.ops.arguments import parsed
from ember.core.ops.parser_errors import int_like, int_tuple_error, overloads, sizes_function, sizes_method
from ember.core.ops._util import int_param, int_tuple_param, internally, tp_name, warn_once, wrap, write_out
from ember.core.settings import preserve_format
from ember.core.tensor import Tensor, describe

__all__ = ["cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack", "row_stack",
           "atleast_1d", "atleast_2d", "atleast_3d", "split", "chunk", "tensor_split", "hsplit", "vsplit", "dsplit",
           "flip", "fliplr", "flipud", "roll", "rot90", "tril_indices", "triu_indices", "repeat_interleave", "tile",
           "tril", "triu", "diag", "diagflat", "diag_embed", "meshgrid", "cartesian_prod", "combinations",
           "select_scatter", "slice_scatter", "diagonal_scatter", "block_diag", "trace", "where"]


def _tensor_list(op: str, tensors) -> list[Tensor]:
    if tensors.__class__ is not list and tensors.__class__ is not tuple and \
            (isinstance(tensors, Tensor | str | bytes) or not isinstance(tensors, Sequence)):
        raise TypeError(f"{op}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {tp_name(t)}")
    return list(tensors)


def _same_device(op: str, tensors: list[Tensor]) -> None:
    if storage.only_cpu:  # no tensor of this process lives elsewhere
        return
    devs = {t.device for t in tensors}
    if len(devs) > 1:
        if any(d.type == "meta" for d in devs):
            _dispatch._meta_device_error([tensors])
        a, b = sorted(str(d) for d in devs)[:2]
        raise RuntimeError(f"{op}: Expected all tensors to be on the same device, but found at least two devices, "
                           f"{a} and {b}!")


# --- cat / stack -------------------------------------------------------------------------
def _promoted(tensors) -> dtypes.dtype:
    dt = tensors[0]._dtype
    for t in tensors[1:]:
        if t._dtype is not dt:
            dt = dtypes.promote_types(dt, t._dtype)
    return dt


_cat = declare("cat", np.concatenate, overlap=OVERLAP_INTERNAL | OVERLAP_ANY, info=_info("cat"))


def _unwatched(tensors, out) -> bool:
    """Whether joining `tensors` may skip the dispatcher for numpy: no `out=`, nothing watching ops
    (`dispatch.bare`) and plain CPU tensors with no conj or neg bit, none of which requires grad or is complex32
    (numpy cannot compute on its records: complex_half's hook joins them)."""
    if out is not None or not _dispatch.bare:
        return False
    for t in tensors:
        if (t.__class__ is not Tensor or t._requires_grad or t._conj or t._neg or t._storage.device.type != "cpu"
                or t._dtype is dtypes.complex32 or t._dtype._category == dtypes._SHELL):  # a shell dtype's numpy
            return False  # array is its uint8/uint16 bytes: its guard joins them and keeps the dtype
    return True


def _recordable(tensors, out) -> bool:
    """Whether `stack` may compute at once and record PyTorch's one node: as `_unwatched`, but with autograd's hook
    the only one that would see the ops (`dispatch.untracked`) and tensors of classes that never take part in
    `__torch_function__` (Parameters) that may require grad."""
    if out is not None or not _dispatch.untracked:
        return False
    skip = _dispatch._SKIP
    for t in tensors:
        # a sparse tensor's `_np` raises: `stack` takes it to sparse_stack
        if (t.__class__ not in skip or t._conj or t._neg or t._storage.device.type != "cpu"
                or t._dtype is dtypes.complex32 or t._dtype._category == dtypes._SHELL):
            return False
    return True


@_cat.register("cpu")
def _cat_cpu(tensors, dim, *, out=None):
    arrays = [t._np() for t in tensors]
    perm = memfmt.cat_order(tensors) if out is None and tensors[0].ndim in (4, 5) else None
    if perm is not None:  # every input channels_last: so is the result, as PyTorch's
        shape = list(tensors[0]._shape)
        shape[dim] = sum(t._shape[dim] for t in tensors)
        buf = np.empty(memfmt.permuted_shape(shape, perm), _promoted(tensors).np).transpose(np.argsort(perm))
        return wrap(np.concatenate(arrays, axis=dim, out=buf, casting="unsafe"), True)
    r = np.concatenate(arrays, axis=dim, dtype=_promoted(tensors).np, casting="unsafe")
    if out is not None:  # a resized `out` takes the layout of a new result
        order = memfmt.cat_order(tensors) if tensors[0].ndim in (4, 5) else None
        return write_out(out, r, "cat", lambda shape: memfmt.strides_in(shape, order))
    return wrap(np.asarray(r, order="C"))  # else row-major


@numpy_aliases
@parsed("cat", tensors="tuple of Tensors", dim="int")  # in PyTorch's order: the sequence first
def cat(tensors, dim: int = 0, *, out: Tensor | None = None) -> Tensor:
    """Concatenate `tensors` along the existing dimension `dim` (dtypes promote; 1-D empties are skipped).

    Example:
        >>> from ember.core import tensor
        >>> cat([tensor([1, 2]), tensor([3])]).tolist()
        [1, 2, 3]
    """
    ts = _tensor_list("cat", tensors)
    try:
        return _cat_dense(ts, dim, out)
    except (NotImplementedError, RuntimeError):  # a sparse tensor's refusal, or sizes checked in dense words
        # (NOTE [ Sparse tensors beside the dense path ]): the sparse join checks and words its own
        from ember.core.sparse import is_sparse_operand, sparse_cat

        if out is None and any(t.is_nested for t in ts):  # NOTE [ Nested tensors ] in ember.core.nested
            from ember.core.nested_ops import handle

            return handle(cat, (ts, dim), {})
        if out is not None or not is_sparse_operand(*ts):
            raise
        return sparse_cat(ts, dim)


def _cat_dense(ts: list, dim: int, out: Tensor | None) -> Tensor:
    if not ts:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    kept = []  # PyTorch's legacy rule: 1-D tensors of size 0 are skipped, whatever the others' shapes
    for i, t in enumerate(ts):
        shape = t._shape
        if not shape:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
        if shape != (0,):
            kept.append((i, t))
    _same_device("cat", ts)
    if out is not None and not dtypes.can_cast(dt := _promoted(ts), out._dtype):
        raise TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                        f"{dtypes.TORCH_NAMES[out._dtype.name]}")
    kept = kept or [(0, ts[0])]
    ref = kept[0][1]
    d = ref._wrap_dim(dim)
    before, after = ref._shape[:d], ref._shape[d + 1:]
    for i, t in kept:
        shape = t._shape
        if shape[:d] == before and shape[d + 1:] == after and len(shape) == len(ref._shape):
            continue
        if t.ndim != ref.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.ndim} and {t.ndim}")
        for k in range(ref.ndim):
            if k != d and t._shape[k] != ref._shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                   f"{ref._shape[k]} but got size {t._shape[k]} for tensor number {i} in the list.")
    parts = [t for _, t in kept]
    if len(parts) == len(ts):
        if ref.ndim < 4 and _unwatched(parts, out):  # row-major whatever the inputs' layouts, as _cat_cpu's
            return wrap(np.asarray(np.concatenate([t._np() for t in parts], axis=d, dtype=_promoted(parts).np,
                                                  casting="unsafe"), order="C"))
        return _cat(tuple(parts), d, out=out)
    dt = _promoted(ts)  # the skipped tensors still take part in the type promotion
    if parts[0]._dtype is not dt:
        parts[0] = parts[0].to(dt)
    r = _cat(tuple(parts), d, out=out)
    # ... and in the layout: a skipped (row-major) tensor makes the result row-major, as PyTorch's
    return r if out is not None or r.is_contiguous() else r.contiguous()


@numpy_aliases
@parsed("concat", dim="int")
def concat(tensors, dim: int = 0, *, out: Tensor | None = None) -> Tensor:
    """Alias of `cat`."""
    return cat(_tensor_list("concat", tensors), dim, out=out)


@numpy_aliases
@parsed("concatenate", dim="int")
def concatenate(tensors, dim: int = 0, *, out: Tensor | None = None) -> Tensor:
    """Alias of `cat` (numpy's `axis=` spelling too)."""
    return cat(_tensor_list("concatenate", tensors), dim, out=out)


@numpy_aliases
@parsed("stack", tensors="tuple of Tensors", dim="int")  # in PyTorch's order: the sequence first
def stack(tensors, dim: int = 0, *, out: Tensor | None = None) -> Tensor:
    """Join equal-shaped `tensors` along a new dimension `dim`.

    Example:
        >>> from ember.core import tensor
        >>> stack([tensor([1, 2]), tensor([3, 4])], dim=1).tolist()
        [[1, 3], [2, 4]]
    """
    ts = _tensor_list("stack", tensors)
    if not ts:
        raise RuntimeError("stack expects a non-empty TensorList")
    try:
        return _stack_dense(ts, dim, out)
    except NotImplementedError:  # as cat's
        from ember.core.sparse import is_sparse_operand, sparse_stack

        if out is not None or not is_sparse_operand(*ts):
            raise
        return sparse_stack(ts, dim)


def _stack_dense(ts: list, dim: int, out: Tensor | None) -> Tensor:
    n = ts[0].ndim + 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    for i, t in enumerate(ts[1:], 1):
        if t._shape != ts[0]._shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(ts[0]._shape)} at entry 0 "
                               f"and {list(t._shape)} at entry {i}")
    d = dim % n
    _same_device("stack", ts)
    if n < 4 and ((unwatched := _unwatched(ts, out)) or _recordable(ts, out)):
        # one concatenate of size-1-dim views, no op per tensor (result row-major); with grad, PyTorch's one
        # StackBackward0 (NOTE [ One node computed outside dispatch ] in ember.autograd.record)
        shape = ts[0]._shape
        shape = (*shape[:d], 1, *shape[d:])
        r = wrap(np.asarray(np.concatenate([t._np().reshape(shape) for t in ts], axis=d,
                                           dtype=_promoted(ts).np, casting="unsafe"), order="C"))
        return r if unwatched else _dispatch.record("stack", (ts, dim), r)
    if d < n - 1 and out is None:  # PyTorch's: cat along `d`, then split it (a channels_last result stays so)
        shape = ts[0]._shape
        return node_name(S.view(_cat(tuple(ts), d), (*shape[:d], len(ts), *shape[d:])), "ViewBackward0",
                         "StackBackward0")
    return node_name(_cat(tuple(S.unsqueeze(t, d) for t in ts), d, out=out), "CatBackward0", "StackBackward0")


def atleast_1d(*tensors):
    """Each tensor viewed with at least 1 dimension (one tensor in, one out)."""
    out = [S.view(t, (1,)) if t.ndim == 0 else t for t in _flatten_args(tensors)]
    return out[0] if len(out) == 1 else tuple(out)


def atleast_2d(*tensors):
    """Each tensor viewed with at least 2 dimensions (a 1-D tensor becomes a row)."""
    out = [S.view(t, (1,) * (2 - t.ndim) + t._shape) if t.ndim < 2 else t for t in _flatten_args(tensors)]
    return out[0] if len(out) == 1 else tuple(out)


def atleast_3d(*tensors):
    """Each tensor viewed with at least 3 dimensions ((n,) -> (1, n, 1), (m, n) -> (m, n, 1))."""
    def up(t):
        if t.ndim == 0:
            return S.view(t, (1, 1, 1))
        if t.ndim == 1:  # PyTorch's unsqueeze(0).unsqueeze(-1): the strides of a strided input as its own
            return S.unsqueeze(S.unsqueeze(t, 0), -1)
        return S.unsqueeze(t, -1) if t.ndim == 2 else t
    out = [up(t) for t in _flatten_args(tensors)]
    return out[0] if len(out) == 1 else tuple(out)


def _flatten_args(tensors) -> list[Tensor]:
    if len(tensors) == 1 and isinstance(tensors[0], list | tuple):
        return list(tensors[0])
    return list(tensors)


def hstack(tensors, *, out: Tensor | None = None) -> Tensor:
    """Concatenate column-wise (along dim 0 for 1-D tensors, else dim 1)."""
    ts = [t if t._shape else atleast_1d(t) for t in _tensor_list("hstack", tensors)]
    return cat(ts, 0 if ts and ts[0].ndim == 1 else 1, out=out)


def vstack(tensors, *, out: Tensor | None = None) -> Tensor:
    """Concatenate row-wise after making every tensor at least 2-D."""
    return cat([t if len(t._shape) > 1 else atleast_2d(t) for t in _tensor_list("vstack", tensors)], 0, out=out)


row_stack = vstack


def dstack(tensors, *, out: Tensor | None = None) -> Tensor:
    """Concatenate depth-wise (dim 2) after making every tensor at least 3-D."""
    return cat([atleast_3d(t) for t in _tensor_list("dstack", tensors)], 2, out=out)


def column_stack(tensors, *, out: Tensor | None = None) -> Tensor:
    """Stack 0/1-D tensors as columns (and 2-D ones as they are) into a matrix."""
    ts = [S.view(t, (t.numel(), 1)) if t.ndim <= 1 else t for t in _tensor_list("column_stack", tensors)]
    return cat(ts, 1, out=out)


# --- split / chunk (views) ------------------------------------------------------------------
_SEQUENCES, _INTS = (list, tuple), {int}  # split sizes that need no reading: a list or tuple of plain ints


def _split_method(fn):
    def split(self, split_size, dim=0):  # Tensor.split's own parameter name
        return fn(self, split_size, dim)
    split.__qualname__ = "Tensor.split"
    return split


@method(method_form=_split_method)
def split(tensor: Tensor, split_size_or_sections, dim: int = 0) -> tuple[Tensor, ...]:
    """Views of `tensor` along `dim`: pieces of `split_size` (the last may be smaller) or of the given sizes, made
    in one pass (one SplitBackward0 or SplitWithSizesBackward0 node for them all)."""
    v = split_size_or_sections
    if isinstance(v, Tensor) and v.numel() == 1:  # PyTorch's Tensor.split takes int() of a one-element tensor
        v = int(v)
    if isinstance(v, int):  # an int only: Tensor.split hands anything else, numpy ints too, to split_with_sizes
        return S.split(tensor, v, dim)
    if type(v) in _SEQUENCES and set(map(type, v)) <= _INTS and type(dim) is not bool:  # plain ints: as they are
        return S.split_with_sizes(tensor, list(v), dim)
    return S.split_with_sizes(tensor, split_sizes_arg(v, 2, dim), dim)


def split_sizes_arg(v, position: int, dim=0) -> list[int]:
    """split_with_sizes' `split_sizes` (at `position`, `dim` after it) read as PyTorch's parser reads an int list: a
    list or tuple of ints or of one-element integer tensors, a bool refused only as the first element. Anything else
    is named by its type ("must be tuple of ints, not Tensor"), a bad first element by its type and position, a
    later one as a failed unpack; a bool tensor fails the scalar's integral check."""
    head = "split_with_sizes(): argument 'split_sizes'"

    def name(e) -> str:
        t = type(e)
        return "Tensor" if isinstance(e, Tensor) else t.__name__ if t.__module__ == "builtins" else \
            f"{t.__module__}.{t.__name__}"

    def index(e) -> int | None:
        try:
            return operator.index(e)
        except TypeError:
            return None

    if not isinstance(v, list | tuple):
        raise TypeError(f"{head} (position {position}) must be tuple of ints, not {name(v)}")
    out = []
    for i, e in enumerate(v):
        if isinstance(e, Tensor) and e.numel() == 1 and e._dtype is dtypes.bool:
            raise RuntimeError("Expected scalar.isIntegral( false) to be true, but got false.  (Could this error "
                               "message be improved?  If so, please report an enhancement request to PyTorch.)")
        if isinstance(e, Tensor) and e.numel() == 1 and not (e._dtype.is_floating_point or e._dtype.is_complex):
            e = int(e)
        elif not isinstance(e, Tensor | bool) and index(e) is not None:  # numpy ints, 0-d integer arrays
            e = index(e)
        if not isinstance(e, numbers.Integral) or isinstance(e, bool) and not i:
            if i:
                raise TypeError(f"{head} failed to unpack the object at pos {i + 1} with error \"type must be tuple "
                                f"of ints,but got {name(e)}\"")
            raise TypeError(f"{head} (position {position}) must be tuple of ints, but found element of type "
                            f"{name(e)} at pos 0")
        out.append(int(e))
    if isinstance(dim, bool):
        raise TypeError(f"split_with_sizes(): argument 'dim' (position {position + 1}) must be int, not bool")
    return out


@method
def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """At most `chunks` views of equal size (ceil(n / chunks)) along `dim`; the last may be smaller."""
    chunks, dim = int_param(chunks, "chunk", "chunks", 1), int_param(dim, "chunk", "dim", 2)
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = input._shape[input._wrap_dim(dim)]
    return S.split(input, -(-n // chunks), dim) if n else \
        tuple(S.narrow(input, input._wrap_dim(dim), 0, 0) for _ in range(chunks))


def _sections_arg(indices_or_sections, as_method: bool) -> int | list[int]:
    """`tensor_split`'s second argument as a section count or a list of indices, refused as PyTorch's parser
    refuses it: a type no overload takes (a float, a bool, a list whose first element is no int) lists the
    overloads, a later non-int element fails to unpack, an index tensor must be long and at most 1-D."""
    v = indices_or_sections
    if isinstance(v, Tensor):
        if v._dtype != dtypes.int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{dtypes.TORCH_NAMES.get(v._dtype.name, v._dtype.name)}")
        if v.ndim > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {v.ndim} dims")
        return int(v) if v.ndim == 0 else v.tolist()
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return int(v)
    if isinstance(v, (list, tuple)):
        out = []
        for i, e in enumerate(v):
            if isinstance(e, Tensor) and e.ndim == 0 and not e._dtype.is_floating_point:
                e = int(e)
            if not isinstance(e, numbers.Integral) or isinstance(e, bool):
                if i:
                    raise TypeError(f"tensor_split(): argument 'indices' failed to unpack the object at pos {i + 1} "
                                    f"with error \"type must be tuple of ints,but got {type(e).__name__}\"")
                break
            out.append(int(e))
        else:
            return out
    first = "" if as_method else "Tensor input, "
    got = type(v).__name__ if as_method else f"Tensor, {type(v).__name__}"
    raise TypeError(f"tensor_split() received an invalid combination of arguments - got ({got}), but expected one "
                    f"of:\n * ({first}tuple of ints indices, int dim = 0)\n"
                    f" * ({first}Tensor tensor_indices_or_sections, int dim = 0)\n"
                    f" * ({first}int sections, int dim = 0)\n")


def tensor_split(input: Tensor, indices_or_sections, dim: int = 0) -> tuple[Tensor, ...]:
    """Views split into `sections` near-equal parts, or at the given indices along `dim`."""
    return _tensor_split(input, _sections_arg(indices_or_sections, False), dim)


def _tensor_split(input: Tensor, sections: int | list[int], dim: int) -> tuple[Tensor, ...]:
    d = input._wrap_dim(dim)
    n = input._shape[d]
    if isinstance(sections, int):
        k = sections
        if k <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {k}")
        q, r = divmod(n, k)
        bounds, acc = [], 0
        for i in range(k - 1):
            acc += q + (1 if i < r else 0)
            bounds.append(acc)
    else:
        bounds = sections
    ends = [min(max(b if b >= 0 else b + n, 0), n) for b in bounds] + [n]
    if not input._requires_grad and all(a <= b for a, b in zip(ends, ends[1:])):
        # nothing records a node (PyTorch's would be a SliceBackward0 per piece): the pieces in one pass
        return S.split_with_sizes(input, [b - a for a, b in zip([0, *ends], ends)], d)
    out, prev = [], 0
    for b in ends:
        out.append(node_name(S.narrow(input, d, prev, max(b - prev, 0)), "NarrowBackward0", "SliceBackward0"))
        prev = b
    return tuple(out)


attach("tensor_split", lambda self, indices_or_sections, dim=0: _tensor_split(
    self, _sections_arg(indices_or_sections, True), dim))


def _split_dim(op: str, input: Tensor, sections, dim: int, min_dims: int) -> tuple[Tensor, ...]:
    if input.ndim < min_dims:
        raise RuntimeError(f"torch.{op} requires a tensor with at least {min_dims} dimension, but got a tensor with "
                           f"{input.ndim} dimensions!")
    if isinstance(sections, numbers.Integral) and (sections == 0 or input._shape[dim] % sections):
        raise RuntimeError(f"torch.{op} attempted to split along dimension {dim}, but the size of the dimension "
                           f"{input._shape[dim]} is not divisible by the split_size {sections}!")
    return tensor_split(input, sections, dim)


@method
def hsplit(input: Tensor, indices_or_sections) -> tuple[Tensor, ...]:
    """`tensor_split` along dim 1 (dim 0 for 1-D tensors); an int must divide the size."""
    return _split_dim("hsplit", input, indices_or_sections, 0 if input.ndim == 1 else 1, 1)


@method
def vsplit(input: Tensor, indices_or_sections) -> tuple[Tensor, ...]:
    """`tensor_split` along dim 0 of a tensor of at least 2 dims; an int must divide the size."""
    return _split_dim("vsplit", input, indices_or_sections, 0, 2)


@method
def dsplit(input: Tensor, indices_or_sections) -> tuple[Tensor, ...]:
    """`tensor_split` along dim 2 of a tensor of at least 3 dims; an int must divide the size."""
    return _split_dim("dsplit", input, indices_or_sections, 2, 3)


# --- flip / roll --------------------------------------------------------------------------
_flip = declare("flip", np.flip, info=_info("flip"))


@_flip.register("cpu")
def _flip_cpu(input, dims):
    return memfmt.preserved(np.flip(input._np(), axis=dims).copy(order="K"), input)  # laid out as `input`


def _dims(input: Tensor, dims, op: str) -> tuple[int, ...]:
    dims = int_tuple_param(dims, op, "dims", 1)
    wrapped = tuple(input._wrap_dim(d) % max(input.ndim, 1) for d in dims)
    for i, d in enumerate(wrapped):
        if d in wrapped[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return wrapped


@method(function_form=sizes_function("flip", "dims"), method_form=sizes_method("flip", "dims"))
def flip(input: Tensor, *args, dims=None) -> Tensor:
    """A copy with the order of elements reversed along each of `dims` (`x.flip(0, 1)` works too)."""
    if dims is None:
        if not args:
            raise TypeError("flip() missing 1 required positional arguments: \"dims\"")
        dims = args[0] if len(args) == 1 else args
    elif args:
        raise TypeError("flip() got multiple values for argument 'dims'")
    dims = _dims(input, dims, "flip")
    return _flip(input, dims if input.ndim else ())


@method
def fliplr(input: Tensor) -> Tensor:
    """Reverse the columns (dim 1) of a tensor of at least 2 dims."""
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _flip(input, (1,))


@method
def flipud(input: Tensor) -> Tensor:
    """Reverse the rows (dim 0) of a tensor of at least 1 dim."""
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _flip(input, (0,))


@method
def roll(input: Tensor, shifts, dims=None) -> Tensor:
    """Rotate elements by `shifts` along `dims` (the flattened tensor when `dims` is None)."""
    shifts = tuple(shifts) if isinstance(shifts, tuple | list) else (operator.index(shifts),)  # an int tensor too
    if not shifts:
        raise RuntimeError("`shifts` required")
    if dims is None or (not isinstance(dims, numbers.Integral) and not len(dims)):  # no dims: the flat tensor
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        flat = S.clone(input) if not input.is_contiguous() else input
        r = S._unsafe_view(roll(S.view(flat, (input.numel(),)), shifts, 0), input._shape)  # a new tensor, no view
        return node_name(r, "UnsafeViewBackward0", "RollBackward0")
    dims = (dims,) if isinstance(dims, numbers.Integral) else tuple(dims)
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dims[0] if dims else 0} but tensor has no dimensions")
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    out = input
    for s, d in zip(shifts, dims, strict=True):
        d = input._wrap_dim(d)
        n = input._shape[d]
        k = int(s) % n if n else 0
        if k:
            out = _cat((S.narrow(out, d, n - k, k), S.narrow(out, d, 0, n - k)), d)
    return S.clone(out) if out is input else node_name(out, "CatBackward0", "RollBackward0")


@method
def rot90(input: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    """Rotate by 90 degrees `k` times in the plane of `dims`, from the first towards the second."""
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = input._wrap_dim(dims[0]), input._wrap_dim(dims[1])
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    k %= 4
    # PyTorch transposes its flipped copy in place: a new tensor of transposed strides, which the flip of the
    # transposed view is (the copy keeps its input's layout), not a view of that copy
    if k == 1:
        return node_name(_flip(S.transpose(input, d0, d1), (d0,)), "FlipBackward0", "Rot90Backward0")
    if k == 2:
        return node_name(_flip(input, (d0, d1)), "FlipBackward0", "Rot90Backward0")
    if k == 3:
        return node_name(_flip(S.transpose(input, d0, d1), (d1,)), "FlipBackward0", "Rot90Backward0")
    return node_name(S.clone(input), "CloneBackward0", "Rot90Backward0")


# --- repeat / tile / repeat_interleave ------------------------------------------------------
def _repeat(input: Tensor, *sizes) -> Tensor:
    """Tile `input` `sizes[i]` times along each dim (a copy; `sizes` may add leading dims)."""
    reps = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], tuple | list) else tuple(sizes)
    if not all(type(r) is int for r in reps):
        from ember.core.creation import size_error

        if (err := size_error("repeat", sizes, None, "repeats")) is not None:
            raise err
    reps = tuple(int(r) for r in reps)
    if len(reps) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    shape = (1,) * (len(reps) - input.ndim) + input._shape
    if any(r < 0 for r in reps):  # PyTorch checks the result's sizes: a negative repeat of an empty dim is 0
        sizes = [r * n for r, n in zip(reps, shape, strict=True)]
        if any(n < 0 for n in sizes):
            raise RuntimeError(f"Trying to create tensor with negative dimension {next(n for n in sizes if n < 0)}: "
                               f"{sizes}")
        reps = tuple(max(r, 0) for r in reps)
    x = S.view(input, shape) if input.is_contiguous() else S.view(S.clone(input), shape)
    pairs, expanded = [], []
    for r, n in zip(reps, shape, strict=True):
        pairs += [1, n]
        expanded += [r, n]
    grid = S.expand(S.view(x, tuple(pairs)), tuple(expanded))
    r = S._unsafe_view(S.clone(grid), tuple(r * n for r, n in zip(reps, shape, strict=True)))  # a new tensor, no view
    return node_name(r, "UnsafeViewBackward0", "RepeatBackward0")


attach("repeat", _repeat)


def _tile(input: Tensor, dims) -> Tensor:
    """Repeat `input` along each dim by `dims` (padded with leading 1s when shorter than `input.ndim`)."""
    dims = tuple(dims)
    return _repeat(input, (1,) * (input.ndim - len(dims)) + dims)


tile = sizes_function("tile", "dims")(_tile)


@sizes_method("tile", "dims")
def _tile_method(self: Tensor, *args, dims=None) -> Tensor:
    """`x.tile(2, 1)`, `x.tile((2, 1))` or `x.tile(dims=(2, 1))`, refused in the words of PyTorch's parser."""
    if dims is None:
        if not args:
            raise TypeError('tile() missing 1 required positional arguments: "dims"')
        if len(args) == 1:  # one int, one sequence, or a wrong type
            dims = (args[0],) if int_like(args[0]) else args[0]
        elif not int_like(args[0]):
            raise TypeError(f"tile() takes 1 positional argument but {len(args)} were given")
        else:
            dims = args
        if (err := int_tuple_error("tile", "dims", " (position 1)", dims)) is not None:
            raise err
    return _tile(self, dims)


attach("tile", _tile_method)


def _check_repeats(repeats: Tensor) -> None:
    """PyTorch's repeat_interleave kernel counts in int32 or int64 only."""
    if repeats._dtype not in (dtypes.int32, dtypes.int64):
        from ember.core.ops.numeric import DtypeNotImplemented

        raise DtypeNotImplemented(f"\"repeat_interleave_{repeats.device.type}\" not implemented for "
                                  f"'{dtypes.TORCH_NAMES[repeats._dtype.name]}'")


def _check_output_size(output_size: int | None, total: int) -> None:
    """PyTorch's check of a given `output_size` against the counts' sum: the index it allocates is that long."""
    if output_size is None:
        return
    if output_size < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {output_size}: [{output_size}]")
    if output_size != total:
        raise RuntimeError("allocated size does not match required size")


def repeat_interleave(input: Tensor, repeats=None, dim: int | None = None, *, output_size: int | None = None) -> Tensor:
    """Repeat each element (or slice along `dim`) `repeats` times (an int or one count per element).

    Example:
        >>> from ember.core import tensor
        >>> repeat_interleave(tensor([1, 2]), 2).tolist()
        [1, 1, 2, 2]
    """
    from ember.core.creation import tensor as make
    from ember.core.ops.indexing import index_select

    if repeats is None:  # the indices, in the counts' dtype
        if input.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        _check_repeats(input)
        counts = np.asarray(input._host_array()).astype(np.int64)
        if (counts < 0).any():
            raise RuntimeError("repeats can not be negative")
        _check_output_size(output_size, int(counts.sum()))
        return make(np.repeat(np.arange(counts.size), counts), dtype=input.dtype, device=input.device)
    x = input
    if dim is None:
        x = S.view(x if x.is_contiguous() else S.clone(x), (x.numel(),))
        dim = 0
    d = x._wrap_dim(dim) if x.ndim else 0
    if x.ndim == 0:
        x = S.view(x, (1,))
    counted = isinstance(repeats, Tensor)  # a tensor of counts, even of one, takes output_size as an allocation
    if counted:
        _check_repeats(repeats)
    if isinstance(repeats, Tensor) and repeats.numel() == 1 and repeats.ndim <= 1:
        repeats = int(repeats.reshape(()).item())
    if isinstance(repeats, numbers.Integral):
        r = int(repeats)
        if r < 0:
            raise RuntimeError("repeats can not be negative")
        if counted:
            _check_output_size(output_size, x._shape[d] * r)
        elif output_size is not None and output_size != x._shape[d] * r:
            raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {x._shape[d] * r} but got "
                               f"{output_size}")
        u = S.unsqueeze(x, d + 1)
        shape = list(u._shape)
        shape[d + 1] = r
        merged = x._shape[:d] + (x._shape[d] * r,) + x._shape[d + 1:]
        return S.view(S.clone(S.expand(u, tuple(shape))), merged)
    counts = np.asarray(repeats._host_array() if isinstance(repeats, Tensor) else repeats).astype(np.int64)
    if counts.ndim != 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if counts.size != x._shape[d]:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                           f"{counts.size} and input.size({d}) = {x._shape[d]}")
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    _check_output_size(output_size, int(counts.sum()))
    idx = make(np.repeat(np.arange(counts.size), counts), device=x.device)
    return index_select(x, d, idx)


attach("repeat_interleave", repeat_interleave)  # the method; the function's refusal lists its own overloads
repeat_interleave = numpy_aliases(repeat_interleave, "repeat_interleave", function=True)


# --- triangles and diagonals ----------------------------------------------------------------
def _make_tri(name: str, fn):
    op = declare(name, fn, overlap=0, info=_info(name))

    @op.meta
    def meta(input, diagonal=0, *, out=None) -> None:
        if input.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")

    @op.register("cpu")
    def kernel(input, diagonal=0, *, out=None):
        r = fn(input._np(), int(diagonal))
        if out is input:
            np.copyto(input._np(), r)
            return input
        return write_out(out, r, name) if out is not None else wrap(r)

    return op


_tril = _make_tri("tril", np.tril)
_triu = _make_tri("triu", np.triu)


@method
def tril(input: Tensor, diagonal: int = 0, *, out: Tensor | None = None) -> Tensor:
    """The lower triangle (on and below `diagonal`) of the last two dims; the rest is zero."""
    return _tril(input, diagonal, out=out)


@method
def triu(input: Tensor, diagonal: int = 0, *, out: Tensor | None = None) -> Tensor:
    """The upper triangle (on and above `diagonal`) of the last two dims; the rest is zero."""
    return _triu(input, diagonal, out=out)


inplace(tril)
inplace(triu)

_diag_embed = declare("diag_embed")


@_diag_embed.register("cpu")
def _diag_embed_cpu(input, offset=0, dim1=-2, dim2=-1):
    a = input._np()
    n = a.shape[-1]
    m = n + abs(offset)
    out = np.zeros(a.shape[:-1] + (m, m), a.dtype)
    i = np.arange(n)
    out[..., i + max(-offset, 0), i + max(offset, 0)] = a
    nd = out.ndim
    d1, d2 = dim1 % nd, dim2 % nd
    return wrap(np.ascontiguousarray(np.moveaxis(out, (-2, -1), (d1, d2))))


@method
def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices (in dims `dim1`, `dim2`) whose `offset` diagonals hold the last dim of `input`."""
    nd = input.ndim + 1
    for d in (dim1, dim2):
        if not -nd <= d < nd:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {d})")
    if dim1 % nd == dim2 % nd:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if input.ndim == 0:
        raise RuntimeError("diag_embed: input must have at least 1 dimension")
    return _diag_embed(input, offset, dim1, dim2)


@method
def diag(input: Tensor, diagonal: int = 0, *, out: Tensor | None = None) -> Tensor:
    """A square matrix with the 1-D `input` on a diagonal, or the diagonal (a copy) of a matrix."""
    if input.ndim == 1:
        r = _diag_embed(input, diagonal, 0, 1)
    elif input.ndim == 2:
        r = node_name(S.clone(S.diagonal(input, diagonal, 0, 1)), "CloneBackward0", "DiagonalBackward0_copy")
    else:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")
    return r if out is None else out.resize_(r._shape).copy_(r)


@method
def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A square matrix with the flattened `input` on diagonal `offset`."""
    flat = S.view(input if input.is_contiguous() else S.clone(input), (input.numel(),))
    return _diag_embed(flat, offset, 0, 1)


_trace = declare("trace", np.trace)


@_trace.meta
def _trace_meta(input) -> None:
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    if input._dtype is dtypes.bool:
        from ember.core.ops.numeric import not_implemented_for

        raise not_implemented_for("trace", input._dtype)


@_trace.register("cpu")
def _trace_cpu(input):
    a = input._np()
    dt = a.dtype if input._dtype.is_floating_point or input._dtype.is_complex else np.int64
    return wrap(np.asarray(np.trace(a, dtype=dt)))


@method
def trace(input: Tensor) -> Tensor:
    """The sum of the main diagonal of a matrix (int64 for integer and bool inputs; complex stays complex)."""
    return _trace(input)


def _tri_indices(fn, row: int, col: int, offset: int, dtype, device) -> Tensor:
    from ember.core.creation import tensor
    from ember.core.ops.numeric import not_implemented_for

    for name, n in (("row", row), ("col", col)):
        if n < 0:
            raise RuntimeError(f"{name} must be non-negative, got{n}")  # (sic: PyTorch's message has no space)
    if dtype is not None and dtype not in (dtypes.int32, dtypes.int64):
        raise not_implemented_for(fn.__name__, dtype)
    r, c = fn(row, offset, col)
    return tensor(np.stack([r, c]) if row and col else np.zeros((2, 0)), dtype=dtype or dtypes.int64, device=device)


@parsed("tril_indices", row="int", col="int", offset="int")
def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None) -> Tensor:
    """The (2, N) coordinates of the lower triangle of a `row` x `col` matrix, row by row."""
    return _tri_indices(np.tril_indices, row, col, offset, dtype, device)


@parsed("triu_indices", row="int", col="int", offset="int")
def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None) -> Tensor:
    """The (2, N) coordinates of the upper triangle of a `row` x `col` matrix, row by row."""
    return _tri_indices(np.triu_indices, row, col, offset, dtype, device)


def meshgrid(*tensors, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Coordinate grids (expanded views) from 1-D tensors, in "ij" (matrix) or "xy" (Cartesian) indexing."""
    ts = _flatten_args(tensors)
    if indexing is None:
        warn_once(internally("torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
                             "argument.", "aten/src/ATen/native/TensorShape.cpp:4215"))  # once, as PyTorch's
        indexing = "ij"
    if not ts:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for a, b in zip(ts, ts[1:]):
        if a._dtype is not b._dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if a.device != b.device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in ts:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {describe(t)}")
    sizes = [t.numel() for t in ts]
    pos = list(range(len(ts)))
    if indexing == "xy" and len(ts) >= 2:
        pos[0], pos[1] = 1, 0
    grid = [0] * len(ts)
    for i, p in enumerate(pos):
        grid[p] = sizes[i]
    out = []
    for i, t in enumerate(ts):
        shape = [1] * len(ts)
        shape[pos[i]] = sizes[i]
        out.append(S.expand(S.view(t, tuple(shape)), tuple(grid)))
    return tuple(out)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of the elements of the 1-D `tensors`, one per row (itertools.product order)."""
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([S.view(S.clone(g), (g.numel(),)) for g in grids], dim=1)


@parsed("combinations", input="Tensor", r="int", with_replacement="bool")
def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-`r` combinations of the elements of a 1-D tensor, one per row (itertools' order)."""
    import itertools

    from ember.core.creation import empty, tensor

    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input._shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:  # PyTorch's empty 1-D result, outside the graph (numpy cannot reshape the empty combination to (-1, 0))
        return empty((0,), dtype=input._dtype, device=input.device)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(pick(range(input._shape[0]), r)), dtype=np.int64).reshape(-1, r)
    from ember.core.ops.indexing import index_select

    # one column per position, stacked: a new tensor (StackBackward0), as PyTorch's
    return stack([index_select(input, 0, tensor(np.ascontiguousarray(idx[:, j]), device=input.device))
                  for j in range(r)], dim=1)


def _scatter_into_view(input: Tensor, src: Tensor, view_fn) -> Tensor:
    out = S.clone(input, memory_format=preserve_format)  # laid out as `input`, as PyTorch's
    target = view_fn(out)
    if tuple(src._shape) != tuple(target._shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src._shape)}, "
                           f"slice size = {list(target._shape)}")
    S.copy_(target, src)
    return out


@method
def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of `input` with `src` written at `index` along `dim` (the out-of-place `x.select(...).copy_`)."""
    return _scatter_into_view(input, src, lambda t: S.select(t, dim, int(index)))


@method
def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
                  step: int = 1) -> Tensor:
    """A copy of `input` with `src` written into the slice `start:end:step` along `dim`."""
    return _scatter_into_view(input, src, lambda t: S.slice(t, dim, start, end, step))


@method
def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """A copy of `input` with `src` written onto the diagonal `offset` of dims `dim1`, `dim2`."""
    return _scatter_into_view(input, src, lambda t: S.diagonal(t, offset, dim1, dim2))


def block_diag(*tensors: Tensor) -> Tensor:
    """A block-diagonal matrix of the given 0/1/2-D tensors (dtypes promote)."""
    from ember.core.creation import zeros

    blocks = [S.view(t, (1, max(t.numel(), 1) if t.ndim == 0 else t._shape[0])) if t.ndim < 2 else t
              for t in tensors]
    for i, b in enumerate(blocks):
        if b.ndim != 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{b.ndim} dimensions")
    if not blocks:
        return zeros((1, 0))
    dt = _promoted(blocks)
    ncols = sum(b._shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        r, c = b._shape
        parts = [zeros((r, left), dtype=dt, device=b.device), b if b._dtype is dt else b.to(dt),
                 zeros((r, ncols - left - c), dtype=dt, device=b.device)]
        rows.append(_cat(tuple(parts), 1))
        left += c
    return node_name(_cat(tuple(rows), 0), "CatBackward0", "BlockDiagBackward0")


_WHERE_OVERLOADS = ["(Tensor condition)", "(Tensor condition, Tensor input, Tensor other, *, Tensor out = None)",
                    "(Tensor condition, Number self, Tensor other)", "(Tensor condition, Tensor input, Number other)",
                    "(Tensor condition, Number self, Number other)"]


def _where_invalid(args: tuple, kwargs: dict) -> bool:
    """A Tensor condition with only one of `input`/`other`, or an explicit None for either: PyTorch's parser
    matches no overload (a non-Tensor condition has its own wording, `_where_refuse`)."""
    given = list(args[1:3]) + [kwargs[k] for k in ("input", "other") if k in kwargs]
    cond = args[0] if args else kwargs.get("condition")
    return isinstance(cond, Tensor) and (len(given) == 1 or any(v is None for v in given)
                                         or not all(_tensor_or_number(v) for v in given))


def _tensor_or_number(v) -> bool:
    """What where's `input`/`other` overloads take (a str or a list matches none; numpy's scalars are numbers, and
    PyTorch's parser hands an object with `__torch_function__`, a MaskedTensor, to that first)."""
    return isinstance(v, (Tensor, numbers.Number, np.bool_, np.number)) or hasattr(type(v), "__torch_function__")


@overloads("where", _WHERE_OVERLOADS, _where_invalid)
def where(condition: Tensor, input=None, other=None, *, out: Tensor | None = None):
    """Elements of `input` where `condition`, else of `other`; with only `condition`, `nonzero(as_tuple=True)`."""
    if not isinstance(condition, Tensor):
        _where_refuse(condition, input, other)
    if input is None and other is None:
        from ember.core.ops.indexing import nonzero

        return nonzero(condition, as_tuple=True)
    return ew.where(condition, input, other, out=out)


def _type_name(v) -> str:
    """A value's type as PyTorch's argument parser spells it in its messages."""
    if isinstance(v, Tensor):
        return "Tensor"
    t = type(v)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _where_refuse(condition, input, other):  # noqa: A002
    """PyTorch's TypeError for a condition that is not a Tensor (a numpy array, a list, a bool)."""
    if input is None and other is None:
        raise TypeError(f"where(): argument 'condition' (position 1) must be Tensor, not {_type_name(condition)}")
    args = (condition, input, other)
    names = [_type_name(v) for v in args]
    shown = [f"list of [{', '.join(dict.fromkeys(_type_name(e) for e in v))}]" if isinstance(v, list) else n
             for v, n in zip(args, names)]

    def marked(kinds):  # PyTorch leaves unmarked only a Tensor given for a Tensor parameter
        return ", ".join(s if k == "T" and isinstance(v, Tensor) else f"!{s}!" for k, v, s in zip(kinds, args, shown))

    raise TypeError(
        f"where() received an invalid combination of arguments - got ({', '.join(names)}), but expected one of:\n"
        " * (Tensor condition)\n"
        " * (Tensor condition, Tensor input, Tensor other, *, Tensor out = None)\n"
        " * (Tensor condition, Number self, Tensor other)\n"
        f"      didn't match because some of the arguments have invalid types: ({marked('TNT')})\n"
        " * (Tensor condition, Tensor input, Number other)\n"
        f"      didn't match because some of the arguments have invalid types: ({marked('TTN')})\n"
        " * (Tensor condition, Number self, Number other)\n"
        f"      didn't match because some of the arguments have invalid types: ({marked('TNN')})\n")


@overloads("where", ["(Tensor condition, Tensor other)", "(Tensor condition, Number other)"],
           lambda args, kwargs: len(args) + len(kwargs) != 3
           or not all(_tensor_or_number(v) for v in (*args[2:], *kwargs.values())), method=True)
def _where_method(self: Tensor, condition: Tensor, other) -> Tensor:
    """`self.where(condition, other)`: `torch.where(condition, self, other)`."""
    return ew.where(condition, self, other)


attach("where", _where_method)
