"""Advanced indexing and the gather/scatter family: `x[idx]`, `index_put_`, `gather`, `scatter`, masks.

The CPU kernels write through storage offsets (NOTE [ Indexing by storage offsets ] in
`ember.core.ops.scatter_cpu`); every index is validated on the host before a kernel runs.
"""

from __future__ import annotations

import numbers
import operator
import warnings

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import OVERLAP_ANY, OVERLAP_INTERNAL, OVERLAP_SOURCES, declare, node_name
from ember.core.methods import attach, inplace, method, method_positions
from ember.core.ops.arguments import parsed
from ember.core.opinfo_indexing import info as _info
from ember.core.ops import shape as S
from ember.core.ops.memfmt import iterator_strides
from ember.core.ops._util import (
    arr, broadcast_shapes, check_out_dtype, int_param, int_value, internally, real_value, tp_name, warn_at_caller,
    warn_once, wrap,
    write_out,
)
from ember.core.ops.scatter_cpu import (
    ADD, MAX, MIN, MUL, SET, accumulate_rows, dim_offsets, fancy_offsets, flat_storage, gather_dim, index_array,
    scatter_apply, scatter_dim, scatter_kernel,
)
from ember.core.settings import preserve_format
from ember.core.tensor import Tensor, describe

__all__ = ["advanced_index", "advanced_index_put_", "index_put_", "index_put", "gather", "scatter", "scatter_add",
           "scatter_reduce", "take_along_dim", "index_select", "index_add", "index_copy", "index_fill", "masked_fill",
           "masked_select", "masked_scatter", "nonzero", "argwhere", "take", "put", "one_hot"]



# --- index validation --------------------------------------------------------------------
def _check_long(op: str, index: Tensor) -> None:
    if not isinstance(index, Tensor):
        raise TypeError(f"{op}(): index must be a tensor; got {describe(index)}")
    if index._dtype not in (dtypes.int64, dtypes.int32):  # PyTorch words it three ways
        if op == "index_select":
            raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
        if op in ("index_add_", "index_reduce_"):
            raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index but got: {_scalar_type(index)}")
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index")


def _check_int64(op: str, index: Tensor) -> None:
    """take, put_, index_copy_ take int64 indices only, as PyTorch."""
    if not isinstance(index, Tensor):
        raise TypeError(f"{op}(): index must be a tensor; got {describe(index)}")
    if index._dtype is not dtypes.int64:
        raise RuntimeError(f"{op}(): Expected a long tensor for index, but got {_scalar_type(index)}")


def _scalar_type(t: Tensor) -> str:
    """PyTorch's name of `t`'s dtype (`Float`), as its error messages print it."""
    return dtypes.TORCH_NAMES.get(t._dtype.name, t._dtype.name)


def _sizes(t: Tensor) -> str:
    return "[" + ", ".join(str(n) for n in t._shape) + "]"


def _size(t: Tensor, d: int) -> int:
    """`t.size(d)`, a 0-dim tensor counting as one element of one dim (PyTorch's ensure_nonempty_size)."""
    return t._shape[d] if t.ndim else 1


def _target(input: Tensor, out: Tensor | None, preserve: bool = False) -> Tensor:
    """What a kernel writes into: `input` itself for the in-place form, else a fresh copy, row-major or, with
    `preserve`, laid out as `input` (a channels_last or transposed one stays so), as PyTorch's op clones it."""
    if out is input:
        return input
    if preserve:
        return S.clone(input, memory_format=preserve_format)
    return wrap(np.array(input._np(), copy=True, order="C"))


def _finish(target: Tensor, out: Tensor | None, op: str) -> Tensor:
    if out is None or out is target:
        return target
    return write_out(out, target._np(), op)


def _wrap_dim(x: Tensor, dim: int) -> int:
    """`dim` wrapped into x's dims; a 0-dim tensor has the one dim -1 or 0, as in PyTorch."""
    if x.ndim:
        return x._wrap_dim(dim)
    if dim not in (-1, 0):
        raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], but got {dim})")
    return 0


def _check_device_values(index: Tensor, size: int, dim: int, *, allow_negative: bool = False,
                         prefix: str = "", message: str | None = None) -> None:
    """The meta step's check of a device index's values against its dim (NOTE [ The meta step ]): it
    reads them to the host (a synchronization, as PyTorch's device-side assert is one) so that a CUDA
    call raises the CPU's error instead of skipping the index. CPU indices are checked by the kernel as
    it reads them (`index_array`), once."""
    if index._storage.device.type != "cpu" and index.numel():
        index_array(index, size, dim, allow_negative=allow_negative, prefix=prefix, message=message)


# --- index / index_put_ (the primitives behind x[idx] and x[idx] = v) ---------------------
_index = declare("index", mixed_devices=True,
                 ref=lambda a, idx: a[tuple(slice(None) if i is None else i for i in idx)], info=_info("index"))


def _index_result_shape(x: Tensor, indices) -> tuple[int, ...]:
    """The shape of `x[indices]` (numpy's placement: adjacent index tensors stay in place, split ones go
    first), checking the number, dtypes and broadcast of the index tensors on the way."""
    if len(indices) > x.ndim:
        raise IndexError(f"too many indices for tensor of dimension {x.ndim} (got {len(indices)})")
    adv = [d for d, t in enumerate(indices) if t is not None]
    if len(adv) == 1:  # one index tensor: its dims replace the one it indexes
        d = adv[0]
        if indices[d]._dtype not in _INDEX_DTYPES:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        return x._shape[:d] + indices[d]._shape + x._shape[d + 1:]
    entries = list(indices) + [None] * (x.ndim - len(indices))
    if not adv:
        return tuple(x._shape)
    if any(entries[d]._dtype not in _INDEX_DTYPES for d in adv):
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    shapes = [entries[d]._shape for d in adv]
    try:
        b = shapes[0] if shapes.count(shapes[0]) == len(shapes) else tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join(str(list(sh)) for sh in shapes)) from None
    rest = [d for d in range(x.ndim) if entries[d] is None]
    first = adv[0] if adv == list(range(adv[0], adv[-1] + 1)) else 0
    before = [d for d in rest if d < first]
    after = [d for d in rest if d not in before]
    return tuple(x._shape[d] for d in before) + b + tuple(x._shape[d] for d in after)


def _advanced(indices) -> list[tuple[int, int, Tensor]]:
    """(dim, ordinal, index tensor) of each advanced index: PyTorch's out-of-bounds message names the ordinal
    among the index tensors as the dimension (`x[:, [0, 3]]`: "for dimension 0 with size 3")."""
    return [(d, n, t) for n, (d, t) in enumerate((d, t) for d, t in enumerate(indices) if t is not None)]


def _check_device_key(x: Tensor, indices) -> None:
    for d, n, t in _advanced(indices):
        _check_device_values(t, x._shape[d], n, allow_negative=True)


@_index.meta
def _meta_index(x, indices) -> None:
    _index_result_shape(x, indices)
    _check_device_key(x, indices)


def _checked_key(x: Tensor, indices, copy: bool = True) -> list:
    """Host copies (views for a reader, without `copy`) of the index tensors, their values checked against
    their dims (the meta step checked their number and shapes)."""
    key = [None] * x.ndim
    for d, n, t in _advanced(indices):
        key[d] = index_array(t, x._shape[d], n, copy=copy)
    return key


@_index.register("cpu")
def _index_cpu(x, indices):
    key = _checked_key(x, indices, copy=False)
    a = x._np()
    adv = [d for d, k in enumerate(key) if k is not None]
    if len(adv) == 1:  # one index tensor: numpy's take, row-major, without the fancy-indexing machinery
        r = wrap(a.take(key[adv[0]], axis=adv[0]))
    elif not adv:
        r = wrap(a.copy())
    else:
        r = a[tuple(slice(None) if k is None else k for k in key)]  # a copy: numpy's advanced indexing makes one
        r = wrap(np.ascontiguousarray(r) if r.ndim else r)
    return r if a.flags.c_contiguous else _laid_out_as_pytorchs(r, x, key)  # a row-major source: a row-major result


def _laid_out_as_pytorchs(r: Tensor, x: Tensor, key: list) -> Tensor:
    """The index result `r` (row-major) in the layout PyTorch's index kernel gives it when `x` is not row-major:
    TensorIterator's over `x` restrided (the index dims in place of the indexed ones, stride 0; indexed dims that
    are not adjacent moved to the front first) and the index tensors broadcast over the result's dims."""
    adv = [d for d, k in enumerate(key) if k is not None]
    if r.ndim < 2 or not r.numel() or not adv or x.is_contiguous():
        return r
    adjacent = adv == list(range(adv[0], adv[-1] + 1))
    order = list(range(x.ndim)) if adjacent else adv + [d for d in range(x.ndim) if key[d] is None]
    before = adv[0] if adjacent else 0
    rest = [d for d in order if key[d] is None]
    b = tuple(np.broadcast_shapes(*(np.shape(key[d]) for d in adv)))
    after = len(rest) - before
    src = (tuple(x._shape[d] for d in rest[:before]) + b + tuple(x._shape[d] for d in rest[before:]),
           tuple(x._strides[d] for d in rest[:before]) + (0,) * len(b) + tuple(x._strides[d] for d in rest[before:]))
    geometries = [src]
    for d in adv:
        a = np.broadcast_to(key[d], b)
        geometries.append(((1,) * before + b + (1,) * after,
                           (0,) * before + tuple(s // a.itemsize for s in a.strides) + (0,) * after))
    strides = iterator_strides(r._shape, geometries)
    if strides is None:
        return r
    flat = np.empty(r.numel(), r._dtype.np)
    np.copyto(np.ndarray(r._shape, r._dtype.np, flat, 0, tuple(s * flat.itemsize for s in strides)), r._np())
    return Tensor._make(wrap(flat)._storage, 0, tuple(r._shape), strides, r._dtype)


_index_put = declare("index_put_", mutates=(0,), overlap=OVERLAP_SOURCES, mixed_devices=True, info=_info("index_put_"))


@_index_put.meta
def _meta_index_put(x, indices, values, accumulate=False) -> None:
    """The values broadcast to the indexing result, as PyTorch requires (no extra leading dims)."""
    shape = _index_result_shape(x, indices)
    v = values._shape if isinstance(values, Tensor) else np.shape(values)
    try:
        ok = v == shape or tuple(np.broadcast_shapes(v, shape)) == shape
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(v)} cannot be broadcast to indexing result "
                           f"of shape {list(shape)}")
    _check_device_key(x, indices)


@_index_put.register("cpu")
def _index_put_cpu(x, indices, values, accumulate=False):
    key = _checked_key(x, indices)
    v = arr(values)
    if accumulate:
        if all(k is None for k in key[1:]) and accumulate_rows(x, key[0], v):
            return x
        offs = fancy_offsets(x, key)
        scatter_apply(x, offs, np.broadcast_to(np.asarray(v, dtype=x._dtype.np), offs.shape), ADD, stepwise=True)
        return x
    x._np()[tuple(slice(None) if i is None else i for i in key)] = np.asarray(v).astype(x._dtype.np, copy=False)
    return x


_INDEX_DTYPES = (dtypes.int64, dtypes.int32, dtypes.uint8, dtypes.bool)


def _leaves(seq):
    for v in seq:
        if isinstance(v, list | tuple):
            yield from _leaves(v)
        else:
            yield v


def _index_array_of(k) -> np.ndarray:
    """A list or array used as an index, as PyTorch converts it: bool (or uint8) stays a mask, anything else
    becomes int64. A Python float in a list is truncated (PyTorch's unpackIntegral keeps that leniency, with an
    overflow check), any other non-integer refused with Python's TypeError; an array is cast as numpy casts."""
    a = np.asarray(k)
    if a.dtype == np.bool_ or a.dtype == np.uint8 or a.dtype == np.int64:
        return a
    if not isinstance(k, np.ndarray) and a.dtype.kind != "i":
        for v in _leaves(k):
            if isinstance(v, float):
                if not -2.0**63 <= v < 2.0**63:  # nan too
                    raise RuntimeError("value cannot be converted to type int64 without overflow")
            elif not isinstance(v, Tensor) and not -(1 << 63) <= operator.index(v) < 1 << 63:
                raise ValueError("Overflow when unpacking long long")  # operator.index: Python's TypeError
        if a.dtype == object:
            return a
    with np.errstate(invalid="ignore"):  # numpy's cast of a float array past int64, as PyTorch's
        return a.astype(np.int64)


def _as_index_tensor(k, dev, byte_as_bool: bool = True) -> Tensor:
    """`k` as an index tensor on `dev`; a uint8 one becomes a bool mask unless the caller converts it later."""
    from ember.core.creation import tensor

    if isinstance(k, Tensor):
        t = k
    else:
        t = tensor(_index_array_of(k))
    if t._dtype not in _INDEX_DTYPES:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if byte_as_bool:
        t = _byte_as_bool(t)
    return t if t.device == dev else t.to(dev)


def _byte_as_bool(t):
    """A uint8 index as the bool mask it means, with PyTorch's deprecation warning; anything else unchanged."""
    if not isinstance(t, Tensor) or t._dtype is not dtypes.uint8:
        return t
    warn_at_caller(internally("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
                              "instead.", "aten/src/ATen/native/IndexingUtils.h:37"))
    return t.to(dtypes.bool)


def _expand_masks(x: Tensor, indices) -> list:
    """Replace each bool mask in `indices` by the int index tensors of its nonzero elements."""
    out = []
    for t in indices:
        if t is not None:  # a byte mask is a bool one (with PyTorch's deprecation warning)
            t = _as_index_tensor(t, x.device)
        if t is not None and t._dtype is dtypes.bool:
            out.extend(_nonzero(t).unbind(1))
        else:
            out.append(t)
    return out


def _parse_key(x: Tensor, key: tuple) -> tuple[Tensor, list]:
    """Apply the basic parts of `key` as views; return the view and one index entry per its dims."""
    items = []
    for k in key:
        if k is None or k is Ellipsis or isinstance(k, slice):
            items.append(k)
        elif isinstance(k, bool):  # a numpy bool is refused below, as PyTorch
            items.append(_as_index_tensor(k, x.device))
        elif isinstance(k, numbers.Integral):
            items.append(int(k))
        elif isinstance(k, Tensor | list | tuple | np.ndarray):  # a byte mask warns once the count is checked
            items.append(_as_index_tensor(k, x.device, byte_as_bool=False))
        elif isinstance(k, range):  # PyTorch indexes with a range as with the list of its values
            items.append(_as_index_tensor(list(k), x.device))
        elif isinstance(k, str):  # PyTorch reads a string as a sequence of indices, and refuses its items
            raise TypeError("new(): invalid data type 'str'")
        else:
            cls = type(k)  # numpy's C types print their module, as Python's tp_name does
            name = f"numpy.{cls.__name__}" if cls.__module__ == "numpy" else cls.__name__
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                             f"valid indices (got {name})")
    consumed = sum(k.ndim if isinstance(k, Tensor) and k._dtype in (dtypes.bool, dtypes.uint8) else
                   0 if k is None or k is Ellipsis else 1 for k in items)
    if consumed > x.ndim:  # before a byte mask's deprecation warning, as PyTorch
        raise IndexError(f"too many indices for tensor of dimension {x.ndim}")
    items = [_byte_as_bool(k) for k in items]
    v, entries, dim = x, [], 0
    for i, k in enumerate(items):
        if k is Ellipsis:  # NOTE [ Several ellipses ] in ember.core.ops.layout
            entries.extend([None] * (x.ndim - consumed))
            dim += x.ndim - consumed
        elif k is None:
            v = S.unsqueeze(v, dim)
            entries.append(None)
            dim += 1
        elif isinstance(k, slice):
            from ember.core.ops.layout import slice_step

            step = slice_step(k)
            v = S.slice(v, dim, None if k.start is None else int(k.start), None if k.stop is None else int(k.stop),
                        step)
            entries.append(None)
            dim += 1
        elif isinstance(k, int):
            size = v._shape[dim] if dim < v.ndim else 0  # past the last dim (NOTE [ Several ellipses ])
            if not -size <= k < size:  # PyTorch names the item's position in the key as its dimension
                raise IndexError(f"index {k} is out of bounds for dimension {i} with size {size}")
            v = S.select(v, dim, k)
        elif k._dtype is dtypes.bool:
            if k.ndim == 0:
                v = S.unsqueeze(v, dim)
                k = S.unsqueeze(k, 0)
            for j, n in enumerate(k._shape):
                if v._shape[dim + j] != n:
                    raise IndexError(f"The shape of the mask {list(k._shape)} at index {j} does not match the shape "
                                     f"of the indexed tensor {list(v._shape)} at index {dim + j}")
            entries.extend(_nonzero(k).unbind(1))
            dim += k.ndim
        else:
            entries.append(k)
            dim += 1
    while entries and entries[-1] is None:
        entries.pop()
    return v, entries


def _full_mask(x: Tensor, key: tuple) -> Tensor | None:
    """The mask of `x[mask]` when it covers every dim of x (the fast masked_select/masked_fill_ path)."""
    if len(key) == 1 and isinstance(key[0], Tensor) and key[0]._dtype is dtypes.bool and key[0]._shape == x._shape \
            and x.ndim and key[0].device == x.device:
        return key[0]
    return None


def advanced_index(x: Tensor, key: tuple) -> Tensor:
    """x[key] where `key` holds int lists/arrays/tensors or bool masks next to slices/None/Ellipsis/ints."""
    mask = _full_mask(x, key)
    if mask is not None:  # PyTorch's x[mask] is index(), not masked_select
        return node_name(_masked_select(x, mask), "MaskedSelectBackward0", "IndexBackward0")
    entries = _plain_entries(x, key)
    if entries is not None:
        return _index(x, entries)
    v, entries = _parse_key(x, key)
    if not entries:
        return S.view(v, v._shape)
    return _index(v, tuple(entries))


def _plain_entries(x: Tensor, key: tuple) -> tuple | None:
    """The index entries of a key of only int64/int32 tensors on x's device and full slices (`x[idx]`,
    `x[:, idx]`, `x[i, j]`), which need none of `_parse_key`'s views; None for any other key."""
    if len(key) > x.ndim:
        return None
    dev = x._storage.device
    entries = []
    for k in key:
        if k.__class__ is slice and k == _ALL:
            entries.append(None)
        elif isinstance(k, Tensor) and (k._dtype is dtypes.int64 or k._dtype is dtypes.int32) \
                and k._storage.device == dev:
            entries.append(k)
        else:
            return None
    while entries and entries[-1] is None:
        entries.pop()
    return tuple(entries) if entries else None


_ALL = slice(None)


def advanced_index_put_(x: Tensor, key: tuple, value) -> Tensor:
    """x[key] = value for an advanced `key`; `value` broadcasts. A number is cast to x's dtype, a tensor
    must have x's dtype unless it fills a single mask (PyTorch's masked_fill path, which casts). Its
    leading size-1 dims are dropped first, as PyTorch's `__setitem__` does (`index_put_` keeps them)."""
    tensors = _key_tensors(key)
    if isinstance(value, Tensor) and not _fills_one_mask(tensors, value, setitem=True):
        _check_put_dtype(x, value)
    if (value.__class__ is float or value.__class__ is int) and x._dtype.is_floating_point \
            and x._storage.device.type == "cpu":  # setitem checked the number: numpy's cast is tensor()'s
        value = wrap(np.array(value, x._dtype.np))
    value = _value_tensor(value, x)
    _refuse_byte_fill(tensors, value, setitem=True)
    while value.ndim and value._shape[0] == 1:
        value = S.select(value, 0, 0)
    mask = _full_mask(x, key)
    if mask is not None and value.numel() == 1:  # recorded as PyTorch's setitem records it, an index_put_
        return node_name(_masked_fill(x, mask, value if not value._shape else S.view(value, ()), out=x),
                         "MaskedFillBackward0", "IndexPutBackward0")
    entries = _plain_entries(x, key)
    if entries is not None:
        return _index_put(x, entries, value, False)
    v, entries = _parse_key(x, key)
    if not entries:
        return S.copy_(v, value)
    return _index_put(v, tuple(entries), value, False)


def _key_tensors(key: tuple) -> list:
    """The entries of an indexing key that PyTorch turns into index tensors."""
    return [k for k in key if isinstance(k, Tensor) or not (  # a tensor first: Integral is an ABC, slow to test
        k is None or k is Ellipsis or isinstance(k, slice)
        or (isinstance(k, numbers.Integral) and not isinstance(k, bool | np.bool_)))]


def _fills_one_mask(indices, value: Tensor, setitem: bool = False) -> bool:
    """PyTorch's `index_put_` without accumulate runs `masked_fill_` (which casts its value) when the
    value is one element on the CPU and the only index is a bool or byte mask. `x[key] = value` first
    turns a 0-dim mask (a Python bool in a tuple, a 0-dim bool tensor) into an int index."""
    if value.numel() != 1 or value.device.type != "cpu":
        return False
    tensors = [t for t in indices if t is not None]
    if len(tensors) != 1:
        return False
    t = tensors[0]
    if isinstance(t, Tensor):
        return t._dtype in (dtypes.bool, dtypes.uint8) and (t.ndim > 0 or not setitem)
    a = np.asarray(list(t) if isinstance(t, range) else t)
    return a.dtype == np.bool_ and a.ndim > 0


def _refuse_byte_fill(indices, value: Tensor, setitem: bool = False) -> None:
    """PyTorch's masked_fill_ path (`_fills_one_mask`) with a uint8 mask: masked_fill_ takes bool masks only."""
    if _fills_one_mask(indices, value, setitem) and any(isinstance(t, Tensor) and t._dtype is dtypes.uint8
                                                        for t in indices):
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char")


def _check_put_dtype(x: Tensor, value: Tensor) -> None:
    if value._dtype is not x._dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got {_scalar_type(x)} "
                           f"for the destination and {_scalar_type(value)} for the source.")


def _value_tensor(value, x: Tensor) -> Tensor:
    from ember.core.creation import tensor

    if not isinstance(value, Tensor):
        return tensor(value, dtype=x._dtype, device=x.device)
    if value._dtype is not x._dtype:
        value = value.to(x._dtype)
    return value if value.device == x.device else value.to(x.device)


def _check_put_args(op: str, indices, values, shift: int) -> None:
    """PyTorch's argument parser's refusals: `indices` a tuple (or list) of tensors or Nones, `values` a tensor
    (`shift`: 0 counts positions as the method form does, 1 as the function form, which counts `input`)."""
    if not isinstance(indices, tuple | list):
        raise TypeError(f"{op}(): argument 'indices' (position {1 + shift}) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    for i, t in enumerate(indices):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {shift}, but got {tp_name(t)}")
    if not isinstance(values, Tensor):
        raise TypeError(f"{op}(): argument 'values' (position {2 + shift}) must be Tensor, not "
                        f"{type(values).__name__}")


def _put_(input, indices, values, accumulate: bool, shift: int) -> Tensor:
    """`index_put_`, its arguments' refusals counting positions from `shift` (see `_check_put_args`)."""
    _check_put_args("index_put_", indices, values, shift)
    if isinstance(values, Tensor):
        if not accumulate and _fills_one_mask(indices, values):
            _refuse_byte_fill(indices, values)
            values = S.view(values, ())
        else:
            _check_put_dtype(input, values)
    return _index_put(input, tuple(_expand_masks(input, indices)), _value_tensor(values, input), accumulate)


def index_put_(input, indices, values, accumulate: bool = False) -> Tensor:
    """input[indices] = values (or += with `accumulate`, correct for repeated indices). `values` has
    input's dtype, unless one element fills a single mask (cast, any shape, as PyTorch's masked_fill_)."""
    return _put_(input, indices, values, accumulate, 1)


def index_put(input, indices, values, accumulate: bool = False) -> Tensor:
    """Out-of-place `index_put_` on a copy of `input`."""
    _check_put_args("index_put", indices, values, 1)
    return _put_(S.clone(input, memory_format=preserve_format), indices, values, accumulate, 1)


def _index_put_method(self, indices, values, accumulate: bool = False) -> Tensor:
    _check_put_args("index_put", indices, values, 0)
    return _put_(S.clone(self, memory_format=preserve_format), indices, values, accumulate, 0)


def _index_put__method(self, indices, values, accumulate: bool = False) -> Tensor:
    return _put_(self, indices, values, accumulate, 0)


# the methods count argument positions after `self`, the functions from `input` (PyTorch's parser)
_index_put_method.__name__, _index_put__method.__name__ = "index_put", "index_put_"
attach("index_put", _index_put_method)
attach("index_put_", _index_put__method)


# --- gather / scatter --------------------------------------------------------------------
def _check_gather_shapes(index: Tensor, input: Tensor, dim: int) -> None:
    """PyTorch's gather rule: same rank, and index.size(d) <= input.size(d) for every d != dim."""
    if index._shape == input._shape:
        return
    if max(index.ndim, 1) != max(input.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for d in range(max(index.ndim, 1)):
        if d != dim and _size(index, d) > _size(input, d):
            raise RuntimeError(f"Size does not match at dimension {d} expected index {_sizes(index)} to be no larger "
                               f"than self {_sizes(input)} apart from dimension {dim}")


def _check_scatter_shapes(index: Tensor, target: Tensor, dim: int, src) -> None:
    """PyTorch's scatter rule: same ranks; index.size(d) <= self.size(d) for d != dim and, for a tensor
    `src`, index.size(d) <= src.size(d) for every d: the kernel reads src over the index's extent."""
    if index._shape == target._shape and (not isinstance(src, Tensor) or src._shape == index._shape):
        return
    nd = max(target.ndim, 1)
    if max(index.ndim, 1) != nd:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    has_src = isinstance(src, Tensor)
    if has_src and 0 < src.ndim < index.ndim:  # PyTorch reads src.size(d) for each of the index's dims first
        n = src.ndim
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {n})")
    if has_src and max(src.ndim, 1) != nd:
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    wrong = any(d != dim and _size(index, d) > _size(target, d) for d in range(nd))
    wrong = wrong or (has_src and any(_size(index, d) > _size(src, d) for d in range(nd)))
    if wrong:
        tail = f" and to be no larger size than src {_sizes(src)}" if has_src else ""
        raise RuntimeError(f"Expected index {_sizes(index)} to be no larger than self {_sizes(target)} apart from "
                           f"dimension {dim}{tail}")


def _meta_gather(input, dim, index, *, sparse_grad=False, out=None) -> None:
    d = _wrap_dim(input, dim)
    _check_long("gather", index)
    if index.numel():
        _check_gather_shapes(index, input, d)
    check_out_dtype(out, input._dtype)
    if index.numel():
        _check_device_values(index, _size(input, d), d)


def _meta_scatter_any(input, dim, index, src, out) -> None:
    d = _wrap_dim(input, dim)
    _check_long("scatter", index)
    if isinstance(src, Tensor) and src._dtype is not input._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.numel():
        _check_scatter_shapes(index, input, d, src)
    check_out_dtype(out, input._dtype)
    if index.numel():
        _check_device_values(index, _size(input, d), d)


_gather = declare("gather", lambda a, dim, idx: np.take_along_axis(a, idx, dim), info=_info("gather"),
                  mixed_devices="meta", overlap=OVERLAP_INTERNAL | OVERLAP_ANY)
_gather.meta(_meta_gather)


@_gather.register("cpu")
def _gather_cpu(input, dim, index, *, sparse_grad=False, out=None):
    d = _wrap_dim(input, dim)
    if index.numel() == 0:
        r = np.zeros(index._shape, input._dtype.np)
        return write_out(out, r, "gather") if out is not None else wrap(r)
    size = input._shape[d] if input.ndim else 1
    idx = index_array(index, size, d, allow_negative=False, copy=False)
    shape = index._shape
    if input.ndim == 0:
        r = np.broadcast_to(input._np(), shape).copy()
    elif len(shape) != input.ndim or (r := gather_dim(input._np(), d, idx)) is None:
        r = flat_storage(input)[dim_offsets(input, d, idx, shape)]
    return write_out(out, r, "gather") if out is not None else wrap(r)


def _scatter_offsets(op: str, target: Tensor, dim: int, index: Tensor, src) -> tuple[np.ndarray, object]:
    """Offsets into `target` and the values to write there; the meta step checked every shape."""
    d = _wrap_dim(target, dim)
    if index.numel() == 0:
        return np.zeros(0, np.int64), np.zeros(0, target._dtype.np)
    size = target._shape[d] if target.ndim else 1
    idx = index_array(index, size, d, allow_negative=False)
    if target.ndim == 0:
        offs = np.full(index._shape, target._offset, np.int64)
    else:
        offs = dim_offsets(target, d, idx, index._shape)
    if isinstance(src, Tensor):
        s = src._np()
        vals = s[tuple(slice(0, n) for n in index._shape)] if s.ndim else np.broadcast_to(s, index._shape)
        if index.ndim < s.ndim:  # a 0-dim index takes the source's first element, as PyTorch
            vals = s.reshape(-1)[0]
    else:
        vals = np.full(index._shape, arr(src), dtype=target._dtype.np)
    return offs, vals


_REDUCE_MODES = {None: SET, "add": ADD, "multiply": MUL}
_scatter = declare("scatter", mixed_devices="meta", overlap=OVERLAP_INTERNAL | OVERLAP_SOURCES, info=_info("scatter"))


@_scatter.meta
def _meta_scatter(input, dim, index, src, reduce=None, *, out=None) -> None:
    if reduce not in _REDUCE_MODES:
        raise RuntimeError("reduce argument must be either add or multiply.")
    _meta_scatter_any(input, dim, index, src, out)


def _scatter_fast(t: Tensor, dim: int, index: Tensor, src, mode: int, include_self: bool = True,
                  mean: bool = False) -> bool:
    """The scatter through (outer, dim, inner) views (NOTE [ Indexing through (outer, dim, inner) views ]);
    False, having written nothing, where the offset path must run (0-dim, conjugate or negative views, complex
    arithmetic, a target whose dims do not merge)."""
    if t.ndim == 0 or index.ndim != t.ndim or t._conj or t._neg or not index.numel():
        return False
    if isinstance(src, Tensor):
        if src.ndim != t.ndim:
            return False
        s = src._np()
        if s.shape != index._shape:
            s = s[tuple(slice(0, n) for n in index._shape)]
    else:
        s = np.broadcast_to(np.full((), arr(src), dtype=t._dtype.np), index._shape)
    d = _wrap_dim(t, dim)
    idx = index_array(index, t._shape[d], d, allow_negative=False, copy=False)
    return scatter_dim(t._np(), d, idx, s, mode, include_self, mean)


@_scatter.register("cpu")
def _scatter_cpu(input, dim, index, src, reduce=None, *, out=None):
    t = _target(input, out)
    if not _scatter_fast(t, dim, index, src, _REDUCE_MODES[reduce]):
        offs, vals = _scatter_offsets("scatter", t, dim, index, src)
        scatter_apply(t, offs, vals, _REDUCE_MODES[reduce])
    return _finish(t, out, "scatter")


_scatter_add = declare("scatter_add", mixed_devices="meta", overlap=OVERLAP_INTERNAL | OVERLAP_SOURCES,
                       info=_info("scatter_add"))


@_scatter_add.meta
def _meta_scatter_add(input, dim, index, src, *, out=None) -> None:
    _meta_scatter_any(input, dim, index, src, out)


@_scatter_add.register("cpu")
def _scatter_add_cpu(input, dim, index, src, *, out=None):
    t = _target(input, out)
    if not _scatter_fast(t, dim, index, src, ADD):
        offs, vals = _scatter_offsets("scatter_add", t, dim, index, src)
        scatter_apply(t, offs, vals, ADD)
    return _finish(t, out, "scatter_add")


_scatter_reduce = declare("scatter_reduce", overlap=OVERLAP_INTERNAL | OVERLAP_SOURCES, info=_info("scatter_reduce"))
_IDENTITY = {"sum": 0, "mean": 0, "prod": 1}
_REDUCTIONS = {"sum": ADD, "mean": ADD, "prod": MUL, "amax": MAX, "amin": MIN}
REDUCE_ALIASES = {"max": "amax", "min": "amin"}  # accepted by PyTorch's forward kernels, not by its derivative


@_scatter_reduce.meta
def _meta_scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None) -> None:
    if reduce not in _REDUCTIONS and reduce not in REDUCE_ALIASES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    _meta_scatter_any(input, dim, index, src, out)
    r = REDUCE_ALIASES.get(reduce, reduce)  # PyTorch's kernels: no complex extremum, no bool mean
    if input._dtype.is_complex and r in ("amax", "amin") or input._dtype is dtypes.bool and r == "mean":
        from ember.core.ops.numeric import DtypeNotImplemented

        raise DtypeNotImplemented(f"\"scatter_gather_tensor_cpu_reduce_{r}\" not implemented for "
                                  f"'{dtypes.TORCH_NAMES[input._dtype.name]}'")


@_scatter_reduce.register("cpu")
def _scatter_reduce_cpu(input, dim, index, src, reduce, *, include_self=True, out=None):
    reduce = REDUCE_ALIASES.get(reduce, reduce)
    t = _target(input, out)
    if _scatter_fast(t, dim, index, src, _REDUCTIONS[reduce], include_self, reduce == "mean"):
        return _finish(t, out, "scatter_reduce")
    offs, vals = _scatter_offsets("scatter_reduce", t, dim, index, src)
    offs = np.ascontiguousarray(offs).reshape(-1)
    vals = np.ascontiguousarray(vals).reshape(-1)
    flat = flat_storage(t)
    touched = np.unique(offs)
    if not include_self:
        if reduce in _IDENTITY:
            flat[touched] = _IDENTITY[reduce]
        else:  # amax/amin start from the first value scattered to each place
            first = np.unique(offs, return_index=True)[1]
            flat[offs[first]] = vals[first]
    scatter_apply(t, offs, vals, _REDUCTIONS[reduce])
    if reduce == "mean" and offs.size:
        count = np.zeros(flat.size, np.int64)
        scatter_kernel()(count, offs, np.ones(offs.size, np.int64), ADD)
        c = count[touched] + (1 if include_self else 0)
        inexact = t._dtype.is_floating_point or t._dtype.is_complex
        q = flat[touched] / c if inexact else np.floor_divide(flat[touched], c)
        flat[touched] = q.astype(flat.dtype)
    return _finish(t, out, "scatter_reduce")


@method(method_form=method_positions)
@parsed("gather", dim="int", index="Tensor", sparse_grad="bool")
def gather(input, dim: int, index: Tensor, *, sparse_grad: bool = False, out=None) -> Tensor:
    """`out[i][j] = input[index[i][j]][j]` for dim=0 (and likewise for other dims).

    Example:
        >>> from ember.core import tensor
        >>> gather(tensor([[1, 2], [3, 4]]), 1, tensor([[0, 0], [1, 0]])).tolist()
        [[1, 1], [4, 3]]
    """
    return _gather(input, dim, index, sparse_grad=sparse_grad, out=out)


@method(method_form=method_positions)
@parsed("take_along_dim", indices="Tensor", dim="int?")
def take_along_dim(input, indices: Tensor, dim: int | None = None, *, out=None) -> Tensor:
    """Values of `input` at `indices` along `dim` (both broadcast elsewhere); flattened when `dim` is None."""
    if not isinstance(indices, Tensor) or indices._dtype is not dtypes.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{_scalar_type(indices) if isinstance(indices, Tensor) else type(indices).__name__}")
    device, index_device = input._storage.device, indices._storage.device
    if device != index_device:  # PyTorch's checkDevice, before gather (whose meta kernel takes CPU indices)
        raise RuntimeError(f"Expected tensor to have {device} Device, but got tensor with {index_device} Device "
                           "(while checking arguments for torch.take_along_dim():)")
    if dim is None:
        return _gather(S.view(input if input.is_contiguous() else S.clone(input), (input.numel(),)), 0,
                       S.view(indices if indices.is_contiguous() else S.clone(indices), (indices.numel(),)), out=out)
    if input.ndim != indices.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    d = _wrap_dim(input, dim)
    a, b = list(input._shape), list(indices._shape)
    a[d] = b[d] = 1
    if a == b:  # nothing to broadcast: gather itself
        return _gather(input, d, indices, out=out)
    shape = broadcast_shapes(tuple(a), tuple(b))  # PyTorch's infer_size words when they do not broadcast
    x_shape = shape[:d] + (input._shape[d],) + shape[d + 1:]
    i_shape = shape[:d] + (indices._shape[d],) + shape[d + 1:]
    return _gather(S.expand(input, x_shape), d, S.expand(indices, i_shape), out=out)


@method
def scatter(input, dim: int, index: Tensor, src=None, *, value=None, reduce: str | None = None, out=None) -> Tensor:
    """Write `src` (a tensor, or the number `value`) into `input` at `index` along `dim`."""
    source = src if src is not None else value
    if source is None:
        raise TypeError("scatter() missing 1 required argument: 'src' or 'value'")
    if not isinstance(source, Tensor):
        source = int_value(input, source)  # checked as PyTorch converts the number
    if reduce is not None and isinstance(source, Tensor):
        warn_once(internally("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed "
                             "in a future PyTorch release. Use torch.scatter_reduce instead for more reduction "
                             "options.", "aten/src/ATen/native/TensorAdvancedIndexing.cpp:225"))
    return _scatter(input, dim, index, source, reduce, out=out)


@method(method_form=method_positions)
@parsed("scatter_add", dim="int", index="Tensor", src="Tensor")
def scatter_add(input, dim: int, index: Tensor, src: Tensor, *, out=None) -> Tensor:
    """`input` with `src` added at `index` along `dim` (repeated indices accumulate)."""
    return _scatter_add(input, dim, index, src, out=out)


@method(method_form=method_positions)
@parsed("scatter_reduce", dim="int", index="Tensor", src="Tensor", reduce="str", include_self="bool")
def scatter_reduce(input, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True,
                   out=None) -> Tensor:
    """Reduce `src` into `input` at `index` along `dim` with sum/prod/mean/amax/amin ('max' and 'min' are
    PyTorch's unlisted spellings of amax and amin, which its backward refuses)."""
    return _scatter_reduce(input, dim, index, src, reduce, include_self=include_self, out=out)


# --- index_select / index_add / index_copy / index_fill ---------------------------------------
_PREFIX = {"index_copy": "index_copy_(): "}
_MESSAGE = {"index_select": "index out of range in self", "index_add": "index out of range in self"}


def _message(op: str, input: Tensor, index: Tensor, alpha=1) -> str | None:
    """PyTorch's index-free IndexError text: index_select's always; index_add's but on its scatter_add path (a
    self of 2 dims or more, an int64 index and alpha 1), whose RuntimeError names the index."""
    if op == "index_add" and input.ndim > 1 and index._dtype is dtypes.int64 and alpha == 1:
        return None
    return _MESSAGE.get(op)


def _dim_index(op: str, input: Tensor, dim: int, index: Tensor, alpha=1) -> tuple[int, np.ndarray]:
    """The wrapped dim and the host copy of a 1-D `index`, its values checked against that dim
    (index_fill takes negative indices, as PyTorch)."""
    d = _wrap_dim(input, dim)
    try:
        # read only, but index_fill_ checks no overlap
        return d, index_array(index, _size(input, d), d, allow_negative=op == "index_fill",
                              prefix=_PREFIX.get(op, ""), message=_message(op, input, index, alpha),
                              copy=op == "index_fill").reshape(-1)
    except IndexError:
        _refuse_select_batch_gather(op, input, d, index)
        raise


def _check_device_dim_index(op: str, input: Tensor, dim: int, index: Tensor, alpha=1) -> None:
    d = _wrap_dim(input, dim)
    try:
        _check_device_values(index, _size(input, d), d, allow_negative=op == "index_fill",
                             prefix=_PREFIX.get(op, ""), message=_message(op, input, index, alpha))
    except IndexError:
        _refuse_select_batch_gather(op, input, d, index)
        raise


def _refuse_select_batch_gather(op: str, input: Tensor, d: int, index: Tensor) -> None:
    """PyTorch's CPU index_select of a tensor of 2+ dims checks its indices with a RuntimeError naming the
    first bad one on dim 1 (its batch-gather path) and on an empty tensor; other dims raise IndexError."""
    if op != "index_select" or input.ndim < 2 or not (d == 1 or input.numel() == 0):
        return
    size = _size(input, d)
    if input.numel() == 0 and size == 0:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    a = np.asarray(index._host_array()).reshape(-1).astype(np.int64)
    bad = a[(a < 0) | (a >= size)]
    if bad.size:
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad[0]} axis_dim={size}")


def _check_index_vector(op: str, index: Tensor) -> None:
    """A 1-D (or 0-dim) int32/int64 index; its rank is checked first, as PyTorch."""
    if isinstance(index, Tensor) and index.ndim > 1:
        if op == "index_select":  # PyTorch's index_select says no more
            raise IndexError("index_select(): Index is supposed to be a vector")
        raise IndexError(f"{op}(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
                         f"{_scalar_type(index)} and size: {_sizes(index)}")
    _check_long(op, index)


def _meta_index_select(input, dim, index, *, out=None) -> None:
    _wrap_dim(input, dim)
    _check_index_vector("index_select", index)
    if input.ndim == 0 and index.numel() != 1:
        _wrap_dim(input, dim)
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index.numel()} value(s)")
    if out is not None and out._dtype is not input._dtype:
        raise RuntimeError("index_select(): self and result must have the same scalar type")
    _check_device_dim_index("index_select", input, dim, index)


def _meta_index_add(input, dim, index, source, *, alpha=1, out=None) -> None:
    """PyTorch's index_add rule: source.size(dim) is the number of indices and every other dim matches
    self's, so the kernel's reads of `source` stay inside it."""
    d = _wrap_dim(input, dim)
    _check_index_vector("index_add_", index)
    check_source_dtype("index_add_", input, source)
    check_source_slices("index_add_", input, d, index, source)
    check_out_dtype(out, input._dtype)
    _check_device_dim_index("index_add", input, dim, index, alpha)


def check_source_dtype(op: str, input: Tensor, source: Tensor) -> None:
    """PyTorch's index_func_meta_impl dtype check (index_add_, index_reduce_): source in self's dtype."""
    if source._dtype is not input._dtype:
        raise RuntimeError(f"{op}(): self ({_scalar_type(input)}) and source ({_scalar_type(source)}) must have "
                           "the same scalar type")


def check_source_slices(op: str, input: Tensor, d: int, index: Tensor, source: Tensor) -> None:
    """PyTorch's index_func_meta_impl shape checks along the wrapped dim `d`, in its order: `d` within source,
    one index per source slice, and source's other dims self's (so the kernel's reads stay inside source)."""
    if not (d == 0 or d < source.ndim):
        raise RuntimeError(f"{op}(): Indexing dim {d} is out of bounds of the source tensor with dim {source.ndim}")
    n = index.numel()
    if n != _size(source, d):
        raise RuntimeError(f"{op}(): Number of indices ({n}) should be equal to source.size(dim): "
                           f"({_size(source, d)}), for dim: {d}")
    a, b = list(input._shape), list(source._shape)
    if a and b:
        del a[d], b[d]
    if a != b:
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {_sizes(input)} source.shape = {_sizes(source)}")


def _meta_index_copy(input, dim, index, source, *, out=None) -> None:
    """PyTorch's index_copy rule: the slices of self and source have one shape and source.size(dim)
    is the number of indices (a 0-dim source takes exactly one)."""
    d = _wrap_dim(input, dim)
    if index.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    n = index.numel()
    if source.ndim == 0 and n != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {n})")
    if source.ndim != input.ndim and source.ndim and input.ndim:
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({source.ndim}), destination dimensionality ({input.ndim})")
    _check_int64("index_copy_", index)
    if source._dtype is not input._dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{_scalar_type(input)} and (source) {_scalar_type(source)}")
    d = _wrap_dim(input, dim)
    a, b = list(input._shape), list(source._shape)
    if a:
        del a[d]
    if b:
        del b[d]
    if a != b:
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                           f"shape: {' '.join(map(str, a))} at dimension {d} and source slice shape: "
                           f"{' '.join(map(str, b))} at dimension 0.")
    if source.ndim and n != source._shape[d]:
        raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) "
                         f"({source._shape[d]})")
    check_out_dtype(out, input._dtype)
    _check_device_dim_index("index_copy", input, dim, index)


def _meta_index_fill(input, dim, index, value, *, out=None) -> None:
    if not isinstance(index, Tensor) or index._dtype is not dtypes.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    _check_device_dim_index("index_fill", input, dim, index)


_index_select = declare("index_select", lambda a, dim, idx: np.take(a, idx, axis=dim), info=_info("index_select"),
                        mixed_devices="meta",
                        overlap=OVERLAP_INTERNAL | OVERLAP_ANY)
_index_select.meta(_meta_index_select)


@_index_select.register("cpu")
def _index_select_cpu(input, dim, index, *, out=None):
    d, idx = _dim_index("index_select", input, dim, index)
    r = input._np().take(idx, axis=d) if input.ndim else input._np().reshape(1)[idx].reshape(())
    return write_out(out, r, "index_select") if out is not None else wrap(r)


def _index_apply(op: str, t: Tensor, dim: int, index: Tensor, vals: np.ndarray, mode: int, alpha=1) -> None:
    """t's slices at the 1-D `index` along `dim` (mode)= `vals`, which the meta step matched to them (index_add_,
    index_copy_): through (outer, dim, inner) views where they allow, else by storage offsets."""
    d, idx = _dim_index(op, t, dim, index, alpha)
    vals = vals.astype(t._dtype.np, copy=False)
    if t.ndim and vals.ndim == t.ndim and not (t._conj or t._neg):
        if scatter_dim(t._np(), d, idx, vals, mode):
            return
    want = t._shape[:d] + (idx.size,) + t._shape[d + 1:] if t.ndim else (idx.size,)
    if t.ndim == 0:
        offs = np.full(idx.shape, t._offset, np.int64)
    else:
        offs = dim_offsets(t, d, idx.reshape((-1,) + (1,) * (t.ndim - d - 1)), want)
    # PyTorch's 16-bit index_add_ rounds after every slice it adds (its add loop) but for alpha 1 along the first or
    # last of two or more dims, where it runs scatter_add (one rounding)
    stepwise = t.ndim <= 1 or alpha != 1 or 0 < d < t.ndim - 1
    scatter_apply(t, offs, np.broadcast_to(vals.reshape(offs.shape), offs.shape), mode, stepwise=stepwise)


_index_add = declare("index_add", overlap=OVERLAP_INTERNAL | OVERLAP_SOURCES, info=_info("index_add"))
_index_add.meta(_meta_index_add)


@_index_add.register("cpu")
def _index_add_cpu(input, dim, index, source, *, alpha=1, out=None):
    t = _target(input, out)
    if not (t._dtype.is_floating_point or t._dtype.is_complex or t._dtype is dtypes.bool):
        alpha = int(alpha.real if isinstance(alpha, complex) else alpha)  # PyTorch's alpha.to<int>(): truncated
    vals = source._np() if alpha == 1 else source._np() * alpha
    _index_apply("index_add", t, dim, index, np.asarray(vals), ADD, alpha)
    return _finish(t, out, "index_add")


_index_copy = declare("index_copy", overlap=OVERLAP_INTERNAL | OVERLAP_SOURCES, info=_info("index_copy"))
_index_copy.meta(_meta_index_copy)


@_index_copy.register("cpu")
def _index_copy_cpu(input, dim, index, source, *, out=None):
    t = _target(input, out)
    _index_apply("index_copy", t, dim, index, source._np(), SET)
    return _finish(t, out, "index_copy")


_index_fill = declare("index_fill", overlap=0, info=_info("index_fill"))
_index_fill.meta(_meta_index_fill)


@_index_fill.register("cpu")
def _index_fill_cpu(input, dim, index, value, *, out=None):
    t = _target(input, out, preserve=True)
    d, idx = _dim_index("index_fill", t, dim, index)
    a = t._np()
    if a.ndim:
        a[(slice(None),) * d + (idx,)] = arr(value)
    elif idx.size:
        a[...] = arr(value)
    return _finish(t, out, "index_fill")


@method(method_form=method_positions)
@parsed("index_select", dim="int", index="Tensor")
def index_select(input, dim: int, index: Tensor, *, out=None) -> Tensor:
    """The slices of `input` along `dim` at the positions in the 1-D `index`."""
    try:
        return _index_select(input, dim, index, out=out)
    except NotImplementedError:  # a sparse `input` (NOTE [ Sparse tensors beside the dense path ]): its method
        if type(input) is Tensor or out is not None:
            raise
        return input.index_select(dim, index)


@method(method_form=method_positions)
@parsed("index_add", index="Tensor", source="Tensor", alpha="Number")
def index_add(input, dim: int, index: Tensor, source: Tensor, *, alpha=1, out=None) -> Tensor:
    """`input` with `alpha * source` added to the slices at `index` along `dim` (repeats accumulate)."""
    return _index_add(input, dim, index, source, alpha=alpha, out=out)


@method(method_form=method_positions)
@parsed("index_copy", index="Tensor", source="Tensor")
def index_copy(input, dim: int, index: Tensor, source: Tensor, *, out=None) -> Tensor:
    """`input` with the slices at `index` along `dim` replaced by those of `source`."""
    return _index_copy(input, dim, index, source, out=out)


@method
def index_fill(input, dim: int, index: Tensor, value, *, out=None) -> Tensor:
    """`input` with the slices at `index` along `dim` set to `value` (a number or 0-dim tensor)."""
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    if not input._dtype.is_complex and (isinstance(value, complex) or (
            isinstance(value, Tensor) and value._dtype.is_complex)):
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    return _index_fill(input, dim, index, int_value(input, value), out=out)


# --- masks -------------------------------------------------------------------------------
def _check_mask(op: str, mask: Tensor) -> None:
    if not isinstance(mask, Tensor):
        raise TypeError(f"{op}(): argument 'mask' must be Tensor, not {type(mask).__name__}")
    if mask._dtype is dtypes.uint8 and op == "masked_scatter_":
        warnings.warn(internally("masked_scatter_ received a mask with dtype torch.uint8, this behavior is now "
                                 "deprecated,please use a mask with dtype torch.bool instead.",
                                 "aten/src/ATen/native/TensorAdvancedIndexing.cpp:3130"), UserWarning, stacklevel=3)
    if mask._dtype is not dtypes.bool:  # PyTorch's three ops word it three ways
        if op == "masked_select":
            raise RuntimeError("masked_select: expected BoolTensor for mask")
        from ember.core.ops.conv import _C_TYPES  # masked_fill_ names the C++ type

        name = _C_TYPES.get(mask._dtype.name, _scalar_type(mask)) if op == "masked_fill_" else _scalar_type(mask)
        raise RuntimeError(f"{op} only supports boolean masks, but got mask with dtype {name}")


def _broadcast(a: Tensor, b: Tensor) -> tuple[int, ...]:
    """The broadcast shape of `a` and `b`, or PyTorch's error naming the last dim that differs (it checks from the
    right)."""
    sa, sb = a._shape, b._shape
    n = max(len(sa), len(sb))
    shape = []
    for i in reversed(range(n)):
        x = sa[len(sa) - n + i] if len(sa) - n + i >= 0 else 1
        y = sb[len(sb) - n + i] if len(sb) - n + i >= 0 else 1
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton "
                               f"dimension {i}")
        shape.append(y if x == 1 else x)
    return tuple(reversed(shape))


def _meta_masked(input, mask, value=None, *, out=None) -> None:
    """The mask broadcasts with `input`; written in place, to exactly `input`'s shape."""
    shape = _broadcast(input, mask) if out is input else _broadcast(mask, input)
    if out is input and shape != input._shape:
        raise RuntimeError(f"output with shape {_sizes(input)} doesn't match the broadcast shape "
                           f"[{', '.join(map(str, shape))}]")


_masked_fill = declare("masked_fill", overlap=0, info=_info("masked_fill"))
_masked_fill.meta(_meta_masked)


@_masked_fill.register("cpu")
def _masked_fill_cpu(input, mask, value, *, out=None):
    if out is input:
        np.copyto(input._np(), arr(value), casting="unsafe", where=mask._np())
        return input
    r = np.where(mask._np(), np.asarray(arr(value)).astype(input._dtype.np), input._np())
    return write_out(out, r, "masked_fill") if out is not None else wrap(np.asarray(r, order="C"))  # row-major


@method
def masked_fill(input, mask: Tensor, value, *, out=None) -> Tensor:
    """`input` with `value` (a number or 0-dim tensor) where the bool `mask` (broadcast) is True."""
    _check_mask("masked_fill_", mask)
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    if isinstance(value, Tensor) and value._dtype.is_complex and not input._dtype.is_complex:
        value = value.item()  # a number, converted as PyTorch converts one
    if isinstance(value, complex):
        value = real_value(input, value)
    if isinstance(value, Tensor):  # PyTorch's masked_fill.Tensor overload: its node is MaskedFillBackward1
        return node_name(_masked_fill(input, mask, value, out=out), "MaskedFillBackward0", "MaskedFillBackward1")
    return _masked_fill(input, mask, int_value(input, value), out=out)


_masked_select = declare("masked_select", lambda a, m: np.broadcast_arrays(a, m)[0][np.broadcast_arrays(a, m)[1]],
                         info=_info("masked_select"), overlap=OVERLAP_INTERNAL | OVERLAP_ANY)
_masked_select.meta(_meta_masked)


@_masked_select.register("cpu")
def _masked_select_cpu(input, mask, *, out=None):
    a, m = np.broadcast_arrays(input._np(), mask._np())
    r = a[m]
    return write_out(out, r, "masked_select") if out is not None else wrap(r)


@method
def masked_select(input, mask: Tensor, *, out=None) -> Tensor:
    """The 1-D tensor of the elements of `input` where the bool `mask` (broadcast) is True."""
    _check_mask("masked_select", mask)
    if out is not None and out._dtype is not input._dtype:
        raise RuntimeError("masked_select(): self and result must have the same scalar type")
    return _masked_select(input, mask, out=out)


_masked_scatter = declare("masked_scatter", overlap=OVERLAP_INTERNAL, info=_info("masked_scatter"))


@_masked_scatter.meta
def _meta_masked_scatter(input, mask, source, *, out=None) -> None:
    """The mask covers exactly `input`'s shape (the kernel walks both together), dtypes agree."""
    if source._dtype is not input._dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"  # sic: no space
                           f"{_scalar_type(input)} and {_scalar_type(source)}")
    S.expand(mask, input._shape)
    if mask._storage.device.type != "cpu":  # the CPU kernel counts the mask itself; CUDA would read past source
        n = int(np.count_nonzero(np.broadcast_to(mask._host_array(), input._shape)))
        if n > source.numel():
            raise RuntimeError("Number of elements of source < number of ones in mask")


@_masked_scatter.register("cpu")
def _masked_scatter_cpu(input, mask, source, *, out=None):
    t = _target(input, out)
    a = t._np()
    m = np.broadcast_to(mask._np(), a.shape)
    n = int(m.sum())
    if n > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    a[m] = np.ravel(source._np())[:n]
    return _finish(t, out, "masked_scatter")


@method
def masked_scatter(input, mask: Tensor, source: Tensor, *, out=None) -> Tensor:
    """`input` with the first elements of `source`, in order, where the bool `mask` is True."""
    _check_mask("masked_scatter_", mask)
    if out is not input:  # out of place, `input` and `mask` broadcast together
        shape = _broadcast(mask, input)
        if shape != input._shape:
            input = S.expand(input, shape)
    return _masked_scatter(input, mask, source, out=out)


# --- nonzero / take / put / one_hot ---------------------------------------------------------
_nonzero = declare("nonzero", np.argwhere, overlap=OVERLAP_INTERNAL, differentiable=False)


@_nonzero.register("cpu")
def _nonzero_cpu(input, *, out=None):
    r = np.argwhere(input._np()).astype(np.int64)
    return write_out(out, r, "nonzero") if out is not None else wrap(r)


@method
def nonzero(input, *, out=None, as_tuple: bool = False):
    """The (n, ndim) indices of the nonzero elements, or with `as_tuple` one 1-D tensor per dim."""
    if not as_tuple:
        if out is not None and out._dtype is not dtypes.int64:  # sic: no space before the type
            raise RuntimeError(f"nonzero: Expected out tensor to have scalar type Long but got scalar type"
                               f"{_scalar_type(out)}")
        return _nonzero(input, out=out)
    if input.ndim == 0:
        return (S.view(_nonzero(S.view(input, (1,))), (-1,)),)
    nz = _nonzero(input)
    return tuple(S.clone(S.select(nz, 1, d)) for d in range(input.ndim))


@method
def argwhere(input) -> Tensor:
    """The (n, ndim) indices of the nonzero elements (`nonzero()`)."""
    return _nonzero(input)


def _flat_index(op: str, input: Tensor, index: Tensor) -> np.ndarray:
    _check_int64(op, index)
    n = input.numel()
    try:
        return index_array(index, n, 0)
    except IndexError:
        a = np.asarray(index._host_array())
        bad = (a < -n) | (a >= n)
        raise IndexError(f"out of range: tried to access index {a[bad].flat[0]} on a tensor of {n} elements.") from None


_take = declare("take", lambda a, idx: np.ravel(a)[idx], info=_info("take"), mixed_devices="meta",
                overlap=OVERLAP_INTERNAL | OVERLAP_ANY)


@_take.meta
def _meta_take(input, index, *, out=None) -> None:
    _check_int64("take", index)
    if out is not None and out._dtype is not input._dtype:
        raise RuntimeError(f"take(): self and out expected to have the same dtype, but got self.dtype = "
                           f"{_scalar_type(input)} and out.dtype = {_scalar_type(out)}")
    if index._storage.device.type != "cpu":  # the CPU kernel checks as it reads (see _check_device_values)
        _flat_index("take", input, index)


@_take.register("cpu")
def _take_cpu(input, index, *, out=None):
    r = np.ravel(input._np())[_flat_index("take", input, index)]
    return write_out(out, r, "take") if out is not None else wrap(r)


@method
def take(input, index: Tensor, *, out=None) -> Tensor:
    """The elements of `input`, read as 1-D, at `index` (negative indices count from the end)."""
    return _take(input, index, out=out)


_put = declare("put", overlap=OVERLAP_INTERNAL | OVERLAP_SOURCES, info=_info("put"))


@_put.meta
def _meta_put(input, index, source, accumulate=False, *, out=None) -> None:
    _check_int64("put_", index)
    if source._dtype is not input._dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{_scalar_type(input)} and source.dtype = {_scalar_type(source)}")
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    if index._storage.device.type != "cpu":
        _flat_index("put", input, index)


@_put.register("cpu")
def _put_cpu(input, index, source, accumulate=False, *, out=None):
    t = _target(input, out, preserve=True)
    idx = _flat_index("put", t, index).reshape(-1)
    coords = np.unravel_index(idx, t._shape) if t.ndim else ()
    offs = t._offset + sum((c * s for c, s in zip(coords, t._strides, strict=True)), np.zeros_like(idx))
    scatter_apply(t, offs, np.ravel(source._np()), ADD if accumulate else SET, stepwise=True)
    return _finish(t, out, "put")


@method
def put(input, index: Tensor, source: Tensor, accumulate: bool = False, *, out=None) -> Tensor:
    """`input` with the elements at flat positions `index` set to (or, accumulating, increased by) `source`."""
    return _put(input, index, source, accumulate, out=out)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 tensor of shape `tensor.shape + (num_classes,)` with a 1 at each class index.

    Example:
        >>> from ember.core import tensor
        >>> one_hot(tensor([0, 2])).tolist()
        [[1, 0, 0], [0, 0, 1]]
    """
    from ember.core.creation import zeros

    num_classes = int_param(num_classes, "one_hot", "num_classes", 2)  # PyTorch's parser, before any check
    if tensor._dtype is not dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    a = np.asarray(tensor._host_array())
    if a.size == 0 and num_classes <= 0:  # PyTorch's words for an explicit 0 too
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    if num_classes == -1:
        num_classes = int(a.max()) + 1
    if a.size and a.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if a.size and a.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    if tensor._storage.device.type == "cpu":  # the ones set by numpy directly (a, checked above, is on the host)
        out = np.zeros(a.shape + (num_classes,), np.int64)
        if out.size:
            out.reshape(-1, num_classes)[np.arange(a.size), a.reshape(-1)] = 1
        return Tensor._wrap(out)
    out = zeros(tuple(tensor._shape) + (num_classes,), dtype=dtypes.int64, device=tensor.device)
    return _scatter(out, -1, S.unsqueeze(tensor, -1), 1, None, out=out)


for _fn in (scatter, scatter_add, scatter_reduce, index_add, index_copy, index_fill, masked_fill, masked_scatter, put):
    inplace(_fn)
