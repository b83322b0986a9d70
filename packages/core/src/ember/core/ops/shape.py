"""Views (metadata-only ops that share storage), copies and dtype conversion.

A view op computes a new (offset, shape, strides) over the same storage and runs on every
device (`"any"` kernel). `copy_` and `clone` are the primitives every materialisation uses.
"""

from __future__ import annotations

import builtins

import numpy as np

from ember.core import dtypes
from ember.core.device_backends import backend
from ember.core.dispatch import TENSOR_ITERATOR, check_overlap, declare
from ember.core.geometry import INT64_MAX, check_geometry, make_tensor
from ember.core.ops import memfmt
from ember.core.ops._util import (ERRSTATE, IGNORE_ALL, _mismatch, cpp_type_name, legacy_type_name, normalize_dims,
                                  warn_complex_to_real, wrap)
from ember.core.opinfo_shape import info as _info
from ember.core.ops.restricted_dtypes import cast_array, casts_nan_bits, nan_bits_as_pytorch
from ember.core import settings as _settings
from ember.core.settings import preserve_format
from ember.core.storage import Storage
from ember.core.tensor import _CSTRIDES, Tensor, _contiguous_strides_cached, contiguous_strides, describe

__all__ = [
    "infer_shape", "view_strides", "view", "view_dtype", "as_strided", "permute", "transpose", "expand", "squeeze",
    "unsqueeze", "select", "slice", "narrow", "unbind", "split", "split_with_sizes", "unfold", "diagonal", "copy_",
    "clone", "to_dtype", "resize_", "set_", "new_storage_like"
]


_SEQ = (tuple, list)  # for isinstance: an inline `tuple | list` builds a Union object per call


def _view_of(x: Tensor, offset: int, shape, strides) -> Tensor:
    return Tensor._make(x._storage, offset, tuple(shape), tuple(strides), x._dtype)


_make = Tensor._make  # the hot view kernels build their tuples themselves and call it at once


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def infer_shape(shape, numel: int, op: str = "view") -> tuple[int, ...]:
    """`shape` with a single -1 replaced so the product is `numel`."""
    if len(shape) == 1 and isinstance(shape[0], _SEQ):
        shape = shape[0]
    n = 1
    for s in shape:  # the common case: sizes given as non-negative ints whose product is numel
        if type(s) is not int or s < 0:
            break
        n *= s
    else:
        if n == numel:
            return shape if type(shape) is tuple else tuple(shape)
    known, at = 1, -1
    for i, s in enumerate(shape):  # next: one -1 among non-negative ints that divide numel (`view(-1, 5)`)
        if type(s) is not int or s < 0 and (s != -1 or at >= 0):
            break
        if s == -1:
            at = i
        else:
            known *= s
    else:
        if at >= 0 and known and numel % known == 0:
            out = list(shape)
            out[at] = numel // known
            return tuple(out)
    shape = [int(s) for s in shape]
    neg = [i for i, s in enumerate(shape) if s == -1]
    where = "" if op in ("view", "reshape") else f"{op}: "  # PyTorch's view/reshape name no op
    if len(neg) > 1:  # unflatten wraps infer_size's error (PyTorch adds the C++ trace after it)
        raise RuntimeError("unflatten got an unexpected error:\nonly one dimension can be inferred" if op == "unflatten"
                           else f"{where}only one dimension can be inferred")
    if shape and min(shape) < -1:
        i = next(i for i, s in enumerate(shape) if s < -1)
        raise RuntimeError(f"{where}invalid shape dimension {shape[i]} at index {i} of shape {shape}")
    known = _numel(s for s in shape if s != -1)
    if neg:
        if known == 0 and numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {list(shape)} because the unspecified "
                               "dimension size -1 can be any value and is ambiguous")
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def view_strides(old_shape, old_strides, new_shape):
    """Strides that view `old` as `new_shape` without copying, or None (PyTorch's computeStride)."""
    if _CSTRIDES.get(old_shape) == old_strides:  # a dense row-major input views as dense row-major
        cs = _CSTRIDES.get(new_shape)
        return cs if cs is not None else _contiguous_strides_cached(tuple(new_shape))
    if not old_shape:
        return contiguous_strides(new_shape)
    numel = _numel(old_shape)
    if numel == 0:
        return contiguous_strides(new_shape) if tuple(old_shape) != tuple(new_shape) else tuple(old_strides)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_strides[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (old_shape[tensor_d - 1] != 1 and
                             old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


# --- view ops ----------------------------------------------------------------------------
view = declare("view", np.reshape, view=True, info=_info("view"))


@view.register("any")
def _view(x, shape):
    old = x._shape
    n = 1
    for s in old:
        n *= s
    shape = infer_shape(shape, n)
    strides = view_strides(old, x._strides, shape)
    if strides is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                           "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    return _make(x._storage, x._offset, shape, strides if strides.__class__ is tuple else tuple(strides), x._dtype)


# PyTorch's `_unsafe_view`: a view of a tensor the caller has just made (reshape's copy, a batched matmul's
# result), sharing its memory (`view`, for the compiler's memory planner) but no view to autograd: in-place ops
# on it record as on any tensor
_unsafe_view = declare("_unsafe_view", np.reshape, view=True, untracked_view=True)


@_unsafe_view.register("any")
def _unsafe_view_kernel(x, shape):
    return _view(x, shape)


view_dtype = declare("view_dtype", view=True, differentiable=False)


@view_dtype.register("any")
def _view_dtype(x, dtype):
    """`x`'s bytes read as `dtype`: a different element size scales the last dim, which must be dense."""
    dtype = dtypes.as_dtype(dtype)
    old, new = x._dtype.itemsize, dtype.itemsize
    if old == new:
        return Tensor._make(x._storage, x._offset, x._shape, x._strides, dtype)
    what = (f"to view {dtypes.TORCH_NAMES[x._dtype.name]} as {dtypes.TORCH_NAMES[dtype.name]} "
            "(different element sizes)")
    if not x._shape:
        raise RuntimeError(f"self.dim() cannot be 0 {what}")
    shape, strides = list(x._shape), list(x._strides)
    if old > new:
        r = old // new
        if strides[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
        shape[-1] *= r
        strides = [s * r for s in strides[:-1]] + [1]
        return Tensor._make(x._storage, x._offset * r, tuple(shape), tuple(strides), dtype)
    r = new // old
    if shape[-1] % r:
        raise RuntimeError(f"self.size(-1) must be divisible by {r} {what}, but got {shape[-1]}")
    if x._offset % r:
        raise RuntimeError(f"self.storage_offset() must be divisible by {r} {what}, but got {x._offset}")
    if strides[-1] != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
    for i, s in enumerate(strides[:-1]):
        if s % r:
            raise RuntimeError(f"self.stride({i}) must be divisible by {r} {what}, but got {s}")
    shape[-1] //= r
    return Tensor._make(x._storage, x._offset // r, tuple(shape), tuple([s // r for s in strides[:-1]] + [1]),
                        dtype)


as_strided = declare("as_strided", view=True)


@as_strided.register("any")
def _as_strided(x, size, stride, storage_offset=None):
    offset = x._offset if storage_offset is None else storage_offset
    return make_tensor(x._storage, offset, size, stride, x._dtype)  # NOTE [ The geometry gate ]


permute = declare("permute", np.transpose, view=True, info=_info("permute"))


@permute.register("any")
def _permute(x, dims):
    old, old_strides = x._shape, x._strides
    n = len(old)
    if len(dims) != n:  # checked before the dims are wrapped, as PyTorch: a RuntimeError, not an IndexError
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           f"length of the desired ordering of dimensions i.e. input.dim() = {n} is not equal "
                           f"to len(dims) = {len(dims)}")
    shape, strides, seen = [], [], set()
    for d in dims:  # a loop, not comprehensions: each is a frame, and this runs for every permute
        if not 0 <= d < n:
            d = x._wrap_dim(d)
        seen.add(d)
        shape.append(old[d])
        strides.append(old_strides[d])
    if len(seen) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _make(x._storage, x._offset, tuple(shape), tuple(strides), x._dtype)


transpose = declare("transpose", view=True, info=_info("transpose"))


@transpose.register("any")
def _transpose(x, dim0, dim1):
    n = len(x._shape)
    if n == 0:
        return _make(x._storage, x._offset, (), (), x._dtype)
    d0 = dim0 if 0 <= dim0 < n else x._wrap_dim(dim0)  # _wrap_dim's answer for a dim in range, without its call
    d1 = dim1 if 0 <= dim1 < n else x._wrap_dim(dim1)
    shape, strides = list(x._shape), list(x._strides)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    strides[d0], strides[d1] = strides[d1], strides[d0]
    return _make(x._storage, x._offset, tuple(shape), tuple(strides), x._dtype)


expand = declare("expand", np.broadcast_to, view=True, info=_info("expand"))


@expand.register("any")
def _expand(x, size):
    size = tuple(map(int, size))
    ndim = len(x._shape)
    if len(size) < ndim:
        raise RuntimeError(f"expand({legacy_type_name(x)}{{{list(x._shape)}}}, size={list(size)}): the number of "
                           f"sizes provided ({len(size)}) must be greater or equal to the number of dimensions in the "
                           f"tensor ({ndim})")
    lead = len(size) - ndim
    shape, strides = [], []
    for i, n in reversed(list(enumerate(size))):  # from the right, as PyTorch's checks
        if i < lead:
            if n == -1:  # a more negative size fails PyTorch's numel check below
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                                   f"dimension {i}")
            shape.append(n)
            strides.append(0)
            continue
        cur, st = x._shape[i - lead], x._strides[i - lead]
        if n == -1:
            n = cur
        if cur == n:
            shape.append(n)
            strides.append(st)
        elif cur == 1:
            shape.append(n)
            strides.append(0)
        else:
            raise RuntimeError(f"The expanded size of the tensor ({n}) must match the existing size ({cur}) at "
                               f"non-singleton dimension {i}.  Target sizes: {list(size)}.  Tensor sizes: "
                               f"{list(x._shape)}")
    if min(shape, default=0) < 0:
        raise RuntimeError("numel: integer multiplication overflow")
    shape.reverse()
    strides.reverse()
    for i in reversed(range(lead)):  # a new size-1 dim gets PyTorch's stride: the next dim's extent
        if shape[i] == 1:
            strides[i] = shape[i + 1] * strides[i + 1] if i + 1 < len(shape) else 0
    return _make(x._storage, x._offset, tuple(shape), tuple(strides), x._dtype)


squeeze = declare("squeeze", np.squeeze, view=True, info=_info("squeeze"))


@squeeze.register("any")
def _squeeze(x, dim=None):
    old = x._shape
    if dim.__class__ is int and 0 <= dim < len(old):  # one dim in range, the common call
        if old[dim] != 1:
            return _make(x._storage, x._offset, old, x._strides, x._dtype)
        return _make(x._storage, x._offset, old[:dim] + old[dim + 1:], x._strides[:dim] + x._strides[dim + 1:],
                     x._dtype)
    dims = normalize_dims(dim, x.ndim, "squeeze")
    keep = [i for i in range(x.ndim) if not (x._shape[i] == 1 and (dims is None or i in dims))]
    return _view_of(x, x._offset, [x._shape[i] for i in keep], [x._strides[i] for i in keep])


unsqueeze = declare("unsqueeze", np.expand_dims, view=True, info=_info("unsqueeze"))


@unsqueeze.register("any")
def _unsqueeze(x, dim):
    n = len(x._shape) + 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    dim %= n
    shape, strides = list(x._shape), list(x._strides)
    st = shape[dim] * strides[dim] if dim < n - 1 else 1
    shape.insert(dim, 1)
    strides.insert(dim, st)
    return _make(x._storage, x._offset, tuple(shape), tuple(strides), x._dtype)


select = declare("select", view=True, info=_info("select"))


@select.register("any")
def _select(x, dim, index):
    if not x._shape:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = dim if 0 <= dim < len(x._shape) else x._wrap_dim(dim)
    n = x._shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(x._shape)} at dimension {d}")
    index %= n
    shape = x._shape[:d] + x._shape[d + 1:]
    strides = x._strides[:d] + x._strides[d + 1:]
    return _make(x._storage, x._offset + index * x._strides[d], shape, strides, x._dtype)


slice = declare("slice", view=True)  # noqa: A001 - the op is named like PyTorch's


@slice.register("any")
def _slice(x, dim, start, stop, step=1):
    """x[..., start:stop:step, ...] along `dim` (Python slice semantics, step > 0)."""
    if step <= 0:
        raise ValueError("slice step must be positive")
    d = dim if 0 <= dim < len(x._shape) else x._wrap_dim(dim)
    start, stop, step = builtins.slice(start, stop, step).indices(x._shape[d])
    n = max(0, (stop - start + step - 1) // step)
    shape = list(x._shape)
    strides = list(x._strides)
    shape[d] = n
    strides[d] = x._strides[d] * step
    offset = x._offset + start * x._strides[d]  # PyTorch keeps an empty slice's offset at its clamped start
    return _make(x._storage, offset, tuple(shape), tuple(strides), x._dtype)


narrow = declare("narrow", view=True, info=_info("narrow"))


@narrow.register("any")
def _narrow(x, dim, start, length):
    d = dim if 0 <= dim < len(x._shape) else x._wrap_dim(dim)
    size = x._shape[d]
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:  # `start == size` is the (empty) end, not 0
        start += size
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return _slice(x, d, start, start + length)


# --- several views in one pass (PyTorch's multi-output view ops: one node, pieces made together) ----------------
def _unbind_dim(x, dim) -> int:
    if not x._shape:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return x._wrap_dim(dim)


def _unbind_steps(x, dim=0) -> list:
    d = _unbind_dim(x, dim)
    return [(select, (d, i)) for i in range(x._shape[d])]


unbind = declare("unbind", view=True, pieces=_unbind_steps)


@unbind.register("any")
def _unbind(x, dim=0):
    d = _unbind_dim(x, dim)
    n, s, o = x._shape[d], x._strides[d], x._offset
    return Tensor._make_views(x._storage, x._dtype, [x._shape[:d] + x._shape[d + 1:]] * n,
                              x._strides[:d] + x._strides[d + 1:], range(o, o + n * s, s) if s else [o] * n)


def _split_sizes(x, split_size, dim) -> tuple[int, list[int]]:
    """(the wrapped dim, the piece lengths) of `split(x, split_size, dim)`, with PyTorch's errors."""
    if not x._shape:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = x._wrap_dim(dim)
    n = x._shape[d]
    if split_size < 0 or (split_size == 0 and n != 0):
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}"
                           if split_size == 0 else f"split expects split_size be non-negative, but got "
                           f"split_size={split_size}")
    if not (split_size and n):
        return d, [0]
    q, r = divmod(n, split_size)
    return d, [split_size] * q + [r] if r else [split_size] * q


def _checked_sizes(x, split_sizes, dim) -> tuple[int, list[int]]:
    if not x._shape:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = x._wrap_dim(dim)
    n = x._shape[d]
    sizes = list(split_sizes)
    for v in sizes:
        if v < 0:
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                               f"split_sizes={sizes}")
    if sum(sizes) != n:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                           f"dimension {dim}), but got split_sizes={sizes}")  # the dim as given
    return d, sizes


def _narrowed(x, d: int, sizes: list[int]) -> tuple:
    """The views of `x` along `d` of the given lengths, one after the other."""
    head, tail, strides, s = x._shape[:d], x._shape[d + 1:], x._strides, x._strides[d]
    shapes, offsets, at = [], [], x._offset
    for n in sizes:
        shapes.append(head + (n,) + tail)
        offsets.append(at)
        at += n * s
    return Tensor._make_views(x._storage, x._dtype, shapes, strides, offsets)


def _narrow_steps(d: int, sizes: list[int]) -> list:
    steps, at = [], 0
    for n in sizes:
        steps.append((narrow, (d, at, n)))
        at += n
    return steps


split = declare("split", view=True, pieces=lambda x, split_size, dim=0: _narrow_steps(*_split_sizes(x, split_size,
                                                                                                      dim)))
split.register("any")(lambda x, split_size, dim=0: _narrowed(x, *_split_sizes(x, split_size, dim)))
split_with_sizes = declare("split_with_sizes", view=True,
                           pieces=lambda x, split_sizes, dim=0: _narrow_steps(*_checked_sizes(x, split_sizes, dim)))
split_with_sizes.register("any")(lambda x, split_sizes, dim=0: _narrowed(x, *_checked_sizes(x, split_sizes, dim)))


unfold = declare("unfold", view=True, info=_info("unfold"))


@unfold.register("any")
def _unfold(x, dimension, size, step):
    d = x._wrap_dim(dimension) if x.ndim else 0
    n = x._shape[d] if x.ndim else 1
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    count = (n - size) // step + 1
    shape, strides = list(x._shape), list(x._strides)
    st = strides[d] if x.ndim else 1
    if x.ndim:
        shape[d] = count
        strides[d] = st * step
    return _view_of(x, x._offset, shape + [size], strides + [st])


diagonal = declare("diagonal", np.diagonal, view=True, info=_info("diagonal"))


@diagonal.register("any")
def _diagonal(x, offset=0, dim1=0, dim2=1):
    d1, d2 = x._wrap_dim(dim1), x._wrap_dim(dim2)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n1, n2 = x._shape[d1], x._shape[d2]
    if offset >= 0:
        length = max(0, min(n1, n2 - offset))
        start = offset * x._strides[d2]
    else:
        length = max(0, min(n1 + offset, n2))
        start = -offset * x._strides[d1]
    keep = [i for i in range(x.ndim) if i not in (d1, d2)]
    shape = [x._shape[i] for i in keep] + [length]
    strides = [x._strides[i] for i in keep] + [x._strides[d1] + x._strides[d2]]
    return _view_of(x, x._offset + (start if length else 0), shape, strides)


# --- copies ------------------------------------------------------------------------------
copy_ = declare("copy_", mutates=(0,), mixed_devices=True, overlap=0)


@copy_.meta
def _copy_meta(self, src, non_blocking=False) -> None:
    """One check for every pair of devices: after PyTorch's early return for `x.copy_(x)`, the
    destination may not overlap itself or `src` partially, and `src` (a tensor on any device, an
    array or a number) broadcasts to `self`."""
    if src is self:
        return
    if isinstance(src, Tensor) and src._dtype.is_complex:
        warn_complex_to_real(src._dtype, self._dtype)
    if 0 in self._strides or getattr(src, "_storage", None) is self._storage:
        check_overlap(TENSOR_ITERATOR, self, (src,))
    try:
        shape = src._shape if isinstance(src, Tensor) else np.shape(src)
    except ValueError:  # numpy refusing a ragged list
        raise RuntimeError(f"copy_: the source of shape {describe(src)} can't be broadcast to the destination "
                           f"{describe(self)}") from None
    if shape == self._shape:
        return
    try:
        full = tuple(np.broadcast_shapes(shape, self._shape))
    except ValueError:  # PyTorch's words: the destination is tensor a, the source tensor b
        raise RuntimeError(_mismatch([self._shape, shape])) from None
    if full != self._shape:
        raise RuntimeError(f"output with shape {list(self._shape)} doesn't match the broadcast shape {list(full)}")


@copy_.register("cpu")
def _copy_cpu(self, src, non_blocking=False):
    if isinstance(src, Tensor) and src._storage.device.type != "cpu":
        return backend(src._storage.device.type).copy_to_host(self, src, non_blocking)
    s = src._np() if isinstance(src, Tensor) else src
    if self._dtype in dtypes.FLOAT8 or (  # PyTorch's float8 conversion, not ml_dtypes'; complex32 records
            (self._dtype is dtypes.complex32 or getattr(src, "_dtype", None) is dtypes.complex32)
            and getattr(src, "_dtype", None) is not self._dtype):
        s = cast_array(np.asarray(s), self._dtype)
    elif (isinstance(s, complex) or getattr(getattr(s, "dtype", None), "kind", None) == "c") and \
            not self._dtype.is_complex and self._dtype is not dtypes.bool:
        s = np.real(s)  # the real part, without numpy's ComplexWarning (copy_'s meta step warns as PyTorch)
    elif isinstance(s, np.ndarray) and casts_nan_bits(s.dtype, self._dtype.np):
        s = nan_bits_as_pytorch(s, s.astype(self._dtype.np))  # float16/bfloat16 NaN bits as PyTorch casts them
    elif isinstance(s, np.ndarray):
        s = _integer_cast_source(s, self._dtype.np)
    np.copyto(self._np(), s, casting="unsafe")
    return self


clone = declare("clone", np.copy)


@clone.register("cpu")
def _clone_cpu(x, *, memory_format=None):
    if memory_format is None:
        return wrap(np.array(x._np(), copy=True, order="C"))
    perm = memfmt.dim_order(x, memory_format, "clone")
    if perm is None:
        return wrap(np.array(x._np(), copy=True, order="C"))
    return memfmt.restride(wrap(np.array(x._np().transpose(perm), copy=True, order="C")), perm, memory_format, x)


to_dtype = declare("to_dtype", lambda a, d: a.astype(d))


@to_dtype.meta
def _to_dtype_meta(x, dtype) -> None:
    if x._dtype.is_complex:
        warn_complex_to_real(x._dtype, dtype)


@to_dtype.register("cpu")
def _to_dtype_cpu(x, dtype):
    if dtype in dtypes.FLOAT8 or dtype is dtypes.complex32 or x._dtype is dtypes.complex32:
        return wrap(cast_array(x._np(), dtype))
    a = x._np()
    if a.dtype.kind == "c" and not dtype.is_complex and dtype is not dtypes.bool:
        a = a.real  # without numpy's ComplexWarning: the meta step gives PyTorch's
    a = _integer_cast_source(a, dtype.np)
    token = ERRSTATE.set(IGNORE_ALL)  # an overflow to inf, NaN to an integer: PyTorch casts without a warning
    try:
        r = a.astype(dtype.np)
    finally:
        ERRSTATE.reset(token)
    return wrap(nan_bits_as_pytorch(a, r))


def _integer_cast_source(a: np.ndarray, dst: np.dtype) -> np.ndarray:
    """`a`, or bfloat16 `a` as float32 (exact) where it casts to an integer dtype: ml_dtypes' own cast saturates
    (-8 to uint8 gives 0, NaN to int64 gives 0) where PyTorch's goes through float (248, INT64_MIN), as float32's."""
    if a.dtype.kind == "V" and dst.kind in "iu" and a.dtype == dtypes.bfloat16.np:  # "V" first: ml_dtypes is loaded
        return a.astype(np.float32)
    return a


resize_ = declare("resize_", mutates=(0,), overlap=0, differentiable=False)


def _resize_shape(size: tuple) -> tuple:
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], tuple | list) else tuple(size)


@resize_.meta
def _resize_meta(x, *size, memory_format=None) -> None:
    """Sizes are non-negative integers: a negative one would make a negative numel and extent."""
    shape = _resize_shape(size)
    for n in shape:
        if isinstance(n, bool) or not isinstance(n, int | np.integer):
            raise TypeError(f"resize_(): argument 'size' (position 1) must be tuple of ints, not {type(n).__name__}")
    if any(n < 0 for n in shape):
        raise RuntimeError("numel: integer multiplication overflow")


def resize_strides(shape: tuple, memory_format) -> tuple:
    """The dense strides `resize_` gives `shape`: row-major, or in the order `memory_format` names
    (PyTorch refuses preserve_format there)."""
    if memory_format is preserve_format:
        raise RuntimeError("Unsupported memory formatPreserve")
    return memfmt.strides_in(shape, memfmt.dim_order(None, memory_format, "resize_", shape)) or contiguous_strides(
        shape)


@resize_.register("any")
def _resize(x, *size, memory_format=None):
    """Give `x` the dense shape `size` (row-major, or `memory_format`'s order), keeping its storage when it is
    large enough."""
    shape = _resize_shape(size)
    strides = resize_strides(shape, memory_format)
    # NOTE [ The geometry gate ]: the new sizes are checked before any memory is grown
    shape, _, _ = check_geometry(INT64_MAX, x._dtype.itemsize, shape, strides, x._offset, op="resize_")
    st = x._storage
    old = st.nbytes
    _grow(st, (x._offset + _numel(shape)) * x._dtype.itemsize)
    x._set_meta(st, x._offset, shape, strides)
    if st.nbytes > old and _settings._deterministic and _settings._fill_uninitialized:
        _fill_grown(st, old, x._dtype)
    return x


def _fill_grown(st: Storage, old_nbytes: int, dt) -> None:
    """PyTorch's fill_resize_deterministic_: the storage's new elements (from its old size on, whatever part of
    them the tensor covers) get deterministic algorithms' fill (NaN, the largest integer)."""
    from ember.core.creation import fill_uninitialized

    start = -(-old_nbytes // dt.itemsize)
    fill_uninitialized(Tensor._make(st, start, (st.nbytes // dt.itemsize - start,), (1,), dt))


def _grow(st: Storage, nbytes: int) -> None:
    """Give `st` at least `nbytes` bytes, its old ones first, as PyTorch's storage resize (which `resize_` and
    `set_` do): memory it does not own (a numpy array's, shared memory) is refused."""
    if nbytes <= st.nbytes:
        return
    if not st.resizable():
        raise RuntimeError("Trying to resize storage that is not resizable")
    if st.device.type == "cpu":
        data = np.zeros(nbytes, np.uint8)
        data[: st.nbytes] = st.data
        st.data = data
        st.nbytes = nbytes
    else:
        backend(st.device.type).grow_storage(st, nbytes)


set_ = declare("set_", mutates=(0,), overlap=0, differentiable=False)


@set_.register("any")
def _set(x, source=None, storage_offset=0, size=None, stride=None):
    """Point `x` at `source`'s memory: a tensor's (its view), or a Storage's with the given geometry, growing a
    resizable storage the geometry reaches past as PyTorch's (NOTE [ The geometry gate ]: checked first)."""
    if source is None:
        storage, storage_offset, size, stride = new_storage_like(0, x.device), 0, (0,), (1,)
    elif isinstance(source, Tensor):
        if source._dtype != x._dtype:
            raise RuntimeError(f"Could not set tensor of type {cpp_type_name(source._dtype)} to a tensor of type "
                               f"{cpp_type_name(x._dtype)}")
        storage, storage_offset, size, stride = source._storage, source._offset, source._shape, source._strides
    elif isinstance(source, Storage):
        storage = source
        if size is None:
            size = (storage.nbytes // x._dtype.itemsize,)
        if stride is None:
            stride = contiguous_strides(tuple(size)) if isinstance(size, tuple | list) else size
    else:
        raise TypeError(f"set_(): source must be a Tensor or a Storage, not {type(source).__name__}")
    if storage.device != x.device:
        raise RuntimeError(f'Attempted to set the storage of a tensor on device "{x.device}" to a storage on '
                           f'different device "{storage.device}". This is no longer allowed; the devices must '
                           "match.")
    if isinstance(source, Storage):
        size, stride, storage_offset = check_geometry(INT64_MAX, x._dtype.itemsize, size, stride, storage_offset,
                                                      op="set_")
        if 0 not in size:
            _grow(storage, (storage_offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1) * x._dtype.itemsize)
    t = make_tensor(storage, storage_offset, size, stride, x._dtype, op="set_")
    x._set_meta(storage, t._offset, t._shape, t._strides)
    return x


def new_storage_like(nbytes: int, dev) -> Storage:
    if dev.type == "cpu":
        return Storage.cpu(nbytes)
    return backend(dev.type).storage(nbytes, dev)
