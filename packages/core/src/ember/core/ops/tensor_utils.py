"""PyTorch's small tensor utilities: the `*_copy` twins of the view ops, in-place view ops (`t_`,
`squeeze_` ...), `apply_`/`map_`, `fill_diagonal_`, `new`, `sum_to_size`, layouts, and the
predicates and helpers of the top namespace (`broadcast_shapes`, `can_cast`, `unravel_index` ...).
"""

from __future__ import annotations

import builtins as _builtins
import math
import numbers
import warnings
from collections.abc import Callable

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import node_name
from ember.core.creation import arange, computable_dtype, empty, empty_strided, full_like, tensor
from ember.core.methods import attach, method
from ember.core.ops import elementwise as ew
from ember.core.ops import join as J
from ember.core.ops import layout as L
from ember.core.ops import reduce as R
from ember.core.ops import shape as S
from ember.core.ops._util import broadcast_shapes as _broadcast_shapes, internally, require_grad, warn_once
from ember.core.ops.parser_errors import invalid_arguments
from ember.core.settings import contiguous_format
from ember.core.tensor import Tensor

__all__ = ["broadcast_shapes", "can_cast", "is_signed", "is_same_size", "is_storage", "fill",
           "unravel_index", "split_with_sizes", "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes",
           "as_strided_", "layout", "strided", "legacy_contiguous_format", "get_device", "empty_permuted",
           "frombuffer", "range", "jagged"]

_VIEWS = ("alias", "as_strided", "detach", "diagonal", "expand", "narrow", "permute", "select", "slice", "split",
          "split_with_sizes", "squeeze", "t", "transpose", "unbind", "unfold", "unsqueeze", "view")


class layout:
    """A tensor layout; `strided` is the only one ember has (sparse layouts are not provided)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"{dtypes._repr_namespace}.{self.name}"

    def __reduce__(self):
        return self.name

    def __getattr__(self, name: str):
        raise dtypes.no_attribute(self, name)


strided = layout("strided")
jagged = layout("jagged")  # nested tensors' (ember.core.nested, imported on first use: NOTE [ Nested tensors ])
legacy_contiguous_format = contiguous_format  # PyTorch's alias of the same object
attach("layout", property(lambda self: strided))


def _to_padded_tensor(self, padding: float, output_size=None):
    """`Tensor.to_padded_tensor` of a strided tensor: PyTorch has no kernel for it (a nested tensor has its own)."""
    raise NotImplementedError(
        f"Could not run 'aten::to_padded_tensor' with arguments from the '{self.device.type.upper()}' backend. This "
        "could be because the operator doesn't exist for this backend, or was omitted during the selective/custom "
        "build process (if using custom build).")


attach("to_padded_tensor", _to_padded_tensor)


# --- predicates and shape helpers ---------------------------------------------------------------
def broadcast_shapes(*shapes) -> tuple[int, ...]:
    """The shape tensors of `shapes` broadcast to (`torch.broadcast_shapes`); ints are 1-D shapes.

    >>> from ember.core import broadcast_shapes
    >>> broadcast_shapes((2, 1), (3,))
    ember.Size([2, 3])
    """
    from ember.core.tensor import Size

    norm = [(s,) if isinstance(s, numbers.Integral) else tuple(s) for s in shapes]
    for s in norm:
        if any(d < 0 for d in s):
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(s)}: {list(s)}")
    result = [1] * max((len(s) for s in norm), default=0)
    for at, s in enumerate(norm):  # PyTorch's fold, for its message: the first size that fits no earlier one
        for j, _ in reversed(tuple(enumerate(s))):  # (this module's `range` is torch.range)
            i = j - len(s)
            if s[i] == 1 or s[i] == result[i]:
                continue
            if result[i] != 1:
                given = shapes[at] if isinstance(shapes[at], Size) else tuple(s)  # a Size prints as one
                raise RuntimeError(f"Attempting to broadcast a dimension of length {s[i]} at {i}! Mismatching "
                                   f"argument at index {at} had {given}; but expected shape should be "
                                   f"broadcastable to {result}")
            result[i] = s[i]
    return Size(_broadcast_shapes(*norm))


def can_cast(from_: dtypes.dtype, to: dtypes.dtype) -> bool:
    """Whether PyTorch's casting rules let an op write a `from_` result into a `to` tensor (no
    floating-to-integer or integer-to-bool downcast)."""
    return dtypes.can_cast(dtypes.as_dtype(from_), dtypes.as_dtype(to))


def is_signed(input: Tensor) -> bool:
    """Whether input's dtype is signed."""
    return input._dtype.is_signed


@method
def is_same_size(input: Tensor, other: Tensor) -> bool:
    """Whether the two tensors have the same shape."""
    return input._shape == other._shape


def is_storage(obj) -> bool:
    """Whether `obj` is a storage."""
    from ember.core.storage import Storage

    return isinstance(obj, Storage)


@method
def get_device(input: Tensor) -> int:
    """The CUDA device index of a CUDA tensor; -1 for a CPU tensor."""
    d = input.device
    return -1 if d.type == "cpu" else (d.index or 0)


def fill(input: Tensor, value) -> Tensor:
    """A new tensor shaped like input, every element `value` (`torch.fill`, the out-of-place `fill_`)."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"fill only supports 0-dimension value tensor but got tensor with {value.ndim} "
                               "dimensions.")
        v = S.to_dtype(value, input._dtype) if value._dtype is not input._dtype else value
        return L.clone(S.expand(v, input._shape))  # differentiable in value, whatever input holds
    return full_like(input, value)


def unravel_index(indices, shape) -> tuple[Tensor, ...]:
    """The coordinates in a tensor of `shape` of each flat index in `indices` (one int64 tensor per dim)."""
    idx = indices if isinstance(indices, Tensor) else tensor(indices)
    if idx._dtype.is_floating_point or idx._dtype is dtypes.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {idx._dtype.name}")
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    if any(s < 0 for s in shape):
        raise ValueError("'shape' cannot have negative values, but got " + str(tuple(shape)))
    flat = S.to_dtype(idx, dtypes.int64)
    out, coef = [], 1
    for size in reversed(shape):  # PyTorch's floor division and remainder: no range check, indices wrap
        out.append(ew.remainder(ew.floor_divide(flat, coef), size))
        coef *= size
    return tuple(reversed(out))


def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:  # noqa: A001
    """`torch.range` (deprecated in PyTorch for `arange`): start to end INCLUSIVE, in the default float dtype."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    dtype = computable_dtype(dtypes.as_dtype(dtype or dtypes.get_default_dtype()), "range_cpu")
    n = int(math.floor((end - start) / step)) + 1
    r = ew.add(ew.mul(arange(n, dtype=dtype, device=device), step), start)
    return require_grad(r) if requires_grad else r


def split_with_sizes(input: Tensor, split_sizes, dim: int = 0) -> tuple[Tensor, ...]:
    """Views of input along `dim` of the given sizes, which must sum to its length."""
    return J.split(input, J.split_sizes_arg(split_sizes, 2, dim), dim)


attach("split_with_sizes", lambda self, split_sizes, dim=0: J.split(self, J.split_sizes_arg(split_sizes, 1, dim),
                                                                    dim))


def _unsafe(fn, made: str, name: str):
    """PyTorch's unsafe_* twins of the splits: the same pieces, whose node is Unsafe*, so that autograd lets them be
    modified in place (it refuses that for the outputs of split)."""
    def unsafe(*args, **kwargs):
        pieces = tuple(node_name(t, made, name) for t in fn(*args, **kwargs))
        for t in pieces:  # nor are their views outputs of a multi-view op (autograd's flag, when it recorded them)
            if t._ag is not None and getattr(t._ag, "multi_view", False):
                t._ag.multi_view = False
        return pieces
    unsafe.__name__ = unsafe.__qualname__ = "unsafe_" + fn.__name__.removeprefix("_")
    return unsafe


unsafe_chunk = _unsafe(J.chunk, "SplitBackward0", "UnsafeSplitBackward0")
unsafe_split = _unsafe(J.split, "SplitBackward0", "UnsafeSplitBackward0")
unsafe_split_with_sizes = _unsafe(split_with_sizes, "SplitWithSizesBackward0", "UnsafeSplitWithSizesBackward0")
for _fn in (unsafe_chunk, unsafe_split, unsafe_split_with_sizes):
    attach(_fn.__name__, _fn)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
                   pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor of `size` whose memory order is `physical_layout` (outermost first)."""
    size, order = tuple(size), tuple(physical_layout)
    if sorted(order) != list(_builtins.range(len(size))):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; "
                           f"got size {list(size)} and physical_layout {list(order)}")
    strides, acc = [0] * len(size), 1
    for d in reversed(order):
        strides[d] = acc
        acc *= max(size[d], 1)
    return empty_strided(size, tuple(strides), dtype=dtype, device=device, requires_grad=requires_grad)


def frombuffer(buffer, *, dtype, count: int = -1, offset: int = 0, requires_grad: bool = False) -> Tensor:
    """A 1-D tensor sharing the memory of a Python buffer (`bytes` give a read-only copy's view)."""
    dt = dtypes.as_dtype(dtype)
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    size = view.nbytes
    if view.readonly:  # PyTorch warns before it checks the sizes
        warn_once(internally("The given buffer is not writable, and PyTorch does not support non-writable tensors. "
                             "This means you can write to the underlying (supposedly non-writable) buffer using the "
                             "tensor. You may want to copy the buffer to protect its data or make it writable before "
                             "converting it to a tensor. This type of warning will be suppressed for the rest of this "
                             "program.", "torch/csrc/utils/tensor_new.cpp:1556"))
    if size == 0 or count == 0:  # PyTorch's checks, in its order
        raise ValueError(f"both buffer length ({size}) and count ({count}) must not be 0")
    if not 0 <= offset < size:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({size} bytes) minus 1")
    if count < 0 and (size - offset) % dt.itemsize:
        raise ValueError(f"buffer length ({size - offset} bytes) after offset ({offset} bytes) must be a multiple "
                         f"of element size ({dt.itemsize})")
    n = (size - offset) // dt.itemsize if count < 0 else count
    if offset + n * dt.itemsize > size:
        raise ValueError(f"requested buffer length ({n} * {dt.itemsize} bytes) after offset ({offset} bytes) must "
                         f"not be greater than actual buffer length ({size} bytes)")
    a = np.frombuffer(buffer, dtype=dt.np, count=n, offset=offset)
    from ember.core.creation import from_numpy

    t = from_numpy(a if a.flags.writeable else a.copy())
    return require_grad(t) if requires_grad else t


# --- the *_copy twins of view ops ---------------------------------------------------------------
def _copy_of(view_name: str):
    def fn(input: Tensor, *args, out: Tensor | None = None, **kwargs):
        if not input._dense_like and out is None and getattr(type(input), fn.__name__, fn) is not fn:
            return getattr(input, fn.__name__)(*args, **kwargs)  # a sparse tensor's own (`s.narrow_copy`)
        if view_name == "alias":
            r = L.view(input, input._shape)
        elif view_name == "slice":
            r = _slice_view(input, *args, **kwargs)
        else:
            r = getattr(input, view_name)(*args, **kwargs)
        if isinstance(r, tuple):
            return tuple(_copied(v, view_name) for v in r)
        r = _copied(r, view_name)
        if out is not None:
            if out._shape != r._shape:
                S.resize_(out, r._shape)
            return S.copy_(out, r)
        return r

    fn.__name__ = fn.__qualname__ = view_name + "_copy"
    fn.__doc__ = f"A copy of `{view_name}`'s result, sharing no memory with input."
    return fn


_COPY_NODES = {"narrow": "NarrowCopyBackward0", "alias": "AliasBackward0_copy"}  # alias is a view here


def _copied(view: Tensor, view_name: str) -> Tensor:
    """A row-major copy of `view`, its node named as PyTorch's *_copy ops name theirs: the view's node + "_copy"
    (NarrowCopyBackward0 for narrow_copy, which PyTorch declares on its own)."""
    made = view._grad_fn
    r = L.clone(view, memory_format=contiguous_format)
    if made is not None:
        node_name(r, "CloneBackward0", _COPY_NODES.get(view_name, type(made).__name__ + "_copy"))
    return r


def _slice_view(input: Tensor, dim: int = 0, start=None, end=None, step: int = 1) -> Tensor:
    index = [slice(None)] * input.ndim
    index[input._wrap_dim(dim)] = slice(start, end, step)
    return input[tuple(index)]


for _v in _VIEWS:
    globals()[_v + "_copy"] = _copy_of(_v)
    __all__.append(_v + "_copy")
narrow_copy = globals()["narrow_copy"]
attach("narrow_copy", narrow_copy)


# --- in-place view ops: new geometry, same tensor object -------------------------------------------
# autograd's `restride_in_graph(self, view, op)`: the checks and history of an in-place view op of a tensor that
# requires grad (self takes the recorded view's node, renamed as PyTorch's in-place view nodes)
restride_in_graph: Callable | None = None


def _restride_(self: Tensor, view: Tensor, op: str) -> Tensor:
    if self._requires_grad or self._grad_fn is not None:
        if restride_in_graph is None:
            raise RuntimeError(f"{op}: a tensor that requires grad changes its shape in place only with autograd")
        restride_in_graph(self, view, op)
    self._shape, self._strides, self._offset, self._npc = view._shape, view._strides, view._offset, None
    self._storage.bump()  # PyTorch counts an in-place view op as a write (`t_()` moves `_version` on)
    return self


def _inplace_view(name: str, view_fn):
    def fn(self: Tensor, *args, **kwargs) -> Tensor:
        return _restride_(self, view_fn(self, *args, **kwargs), name)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"In-place `{name[:-1]}`: self takes the view's shape and strides."
    attach(name, fn)
    return fn


def _squeeze_method(self: Tensor, *args, **kwargs) -> Tensor:
    """`squeeze` with the method's parser error, named for `squeeze_` (PyTorch's "squeeze_() received ...")."""
    if L._squeeze_invalid((self, *args), kwargs):
        raise invalid_arguments("squeeze_", args, kwargs, L._SQUEEZE_METHOD)
    return L.squeeze(self, *args, **kwargs)


for _name, _fn in (("t_", L.t), ("transpose_", L.transpose), ("swapaxes_", L.transpose), ("swapdims_", L.transpose),
                   ("squeeze_", _squeeze_method), ("unsqueeze_", L.unsqueeze)):
    _inplace_view(_name, _fn)
as_strided_ = _inplace_view("as_strided_", L.as_strided)


# --- elementwise Python functions and diagonals -------------------------------------------------
def _cpu_only(self: Tensor, op: str) -> None:
    if self.device.type != "cpu":
        raise TypeError(f"{op} is only implemented on CPU tensors")


def apply_(self: Tensor, callable) -> Tensor:  # noqa: A002 - PyTorch's argument name
    """Replace every element x by `callable(x)` (a Python function; CPU only, slow, not differentiable)."""
    _cpu_only(self, "apply_")
    a = self._np()
    flat = [callable(v) for v in a.reshape(-1).tolist()]
    a[...] = np.asarray(flat, dtype=object).reshape(a.shape).astype(a.dtype) if flat else a
    self._storage.bump()
    return self


def map_(self: Tensor, tensor: Tensor, callable) -> Tensor:  # noqa: A002
    """self[i] = callable(self[i], tensor[i]), with tensor broadcast to self (CPU only)."""
    _cpu_only(self, "map_")
    a, b = self._np(), np.broadcast_to(tensor._np(), self._shape)
    r = [callable(x, y) for x, y in zip(a.reshape(-1).tolist(), b.reshape(-1).tolist(), strict=True)]
    if r:
        a[...] = np.asarray(r, dtype=object).reshape(a.shape).astype(a.dtype)
    self._storage.bump()
    return self


def map2_(self: Tensor, x: Tensor, y: Tensor, callable) -> Tensor:  # noqa: A002
    """self[i] = callable(self[i], x[i], y[i]), with x and y broadcast to self (CPU only)."""
    _cpu_only(self, "map2_")
    a = self._np()
    b, c = np.broadcast_to(x._np(), self._shape), np.broadcast_to(y._np(), self._shape)
    r = [callable(p, q, s) for p, q, s in zip(a.reshape(-1).tolist(), b.reshape(-1).tolist(),
                                             c.reshape(-1).tolist(), strict=True)]
    if r:
        a[...] = np.asarray(r, dtype=object).reshape(a.shape).astype(a.dtype)
    self._storage.bump()
    return self


def fill_diagonal_(self: Tensor, fill_value, *args, wrap: bool = False) -> Tensor:
    """Write `fill_value` on the main diagonal (all dims equal beyond 2-D); `wrap` restarts it every
    n+1 rows of a tall matrix, as numpy's fill_diagonal. PyTorch's parser takes a bool `wrap` only."""
    if args:
        wrap = args[0]
    if wrap is not True and wrap is not False:
        where = " (position 2)" if args else ""
        raise TypeError(f"fill_diagonal_(): argument 'wrap'{where} must be bool, not {type(wrap).__name__}")
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.ndim > 2 and len(set(self._shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if wrap and self.ndim == 2 and self._shape[0] > self._shape[1]:
        rows, cols = self._shape
        flat = _builtins.range(0, rows * cols, cols + 1)  # numpy's positions in the row-major order
        index = (tensor([p // cols for p in flat], device=self.device), tensor([p % cols for p in flat],
                                                                               device=self.device))
        self[index] = fill_value
        return self
    L.as_strided(self, (min(self._shape),), (sum(self._strides),), self._offset).fill_(fill_value)
    return self


for _fn in (apply_, map_, map2_, fill_diagonal_):
    attach(_fn.__name__, _fn)


# --- constructors and reductions as methods --------------------------------------------------------
def _new(self: Tensor, *args, dtype=None, device=None) -> Tensor:
    """`Tensor.new(...)`, the legacy constructor: `new(2, 3)` uninitialised, `new(data)` a copy, `new()`
    empty; the dtype and device are self's."""
    dt, dev = dtype or self._dtype, device or self.device
    if not args:
        return empty(0, dtype=dt, device=dev)
    from ember.core.creation import legacy_new_error

    if (err := legacy_new_error(args)) is not None:  # PyTorch's refusals, as `torch.Tensor(2.5)`'s
        raise err
    if len(args) == 1 and isinstance(args[0], Tensor):
        from ember.core.legacy import options_error

        err = options_error(dt, str(dev).startswith("cuda"), args[0]) if args[0]._dtype is not dt else None
        if err is not None:  # PyTorch aliases a tensor of self's dtype only
            raise err
        return L.alias_view(args[0])
    if all(isinstance(a, numbers.Integral) for a in args):
        return empty(args, dtype=dt, device=dev)
    if len(args) == 1 and type(args[0]).__name__ == "Size":
        return empty(tuple(args[0]), dtype=dt, device=dev)  # a tuple: Size([]) is 0-d
    return tensor(args[0], dtype=dt, device=dev)


def new_empty_strided(self: Tensor, size, stride, *, dtype=None, device=None, requires_grad: bool = False,
                      layout=None, pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor of `size` and `stride`, with self's dtype and device unless given."""
    return empty_strided(size, stride, dtype=dtype or self._dtype, device=device or self.device,
                         requires_grad=requires_grad)


def sum_to_size(self: Tensor, *size) -> Tensor:
    """Sum self down to `size`, which self must broadcast from (the reverse of `expand`)."""
    size = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], numbers.Integral) else tuple(size)
    if len(size) > self.ndim or any(s not in (1, n) for s, n in zip(size, self._shape[self.ndim - len(size):],
                                                                      strict=True)):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(self._shape)}}}.")
    lead = self.ndim - len(size)
    r = R.sum(self, tuple(_builtins.range(lead))) if lead else self
    dims = tuple(i for i, s in enumerate(size) if s == 1 and r._shape[i] != 1)
    return R.sum(r, dims, keepdim=True) if dims else r


attach("new", _new)
attach("new_empty_strided", new_empty_strided)
attach("sum_to_size", sum_to_size)
