"""`torch.nested`: ragged batches as one tensor, in PyTorch's two layouts (NOTE [ Nested tensors ]).

NOTE [ Nested tensors ]
A `NestedTensor` is a `Tensor` subclass with no storage of its own (its `_storage` refuses to be read, as a
sparse tensor's): it holds a dense buffer, `_nt_values`, and the geometry that cuts it into components.
- `torch.jagged`: components differ in one dim, the ragged one (`_nt_ragged`, 1 unless transposed). The
  buffer has the nested tensor's shape without its batch dim, the ragged dim being the components' lengths
  laid end to end; `_nt_offsets` (B + 1 int64) says where each starts, `_nt_lengths` where a component
  stops short of the next (a tensor "with holes", made by `narrow`). The ragged size is a `NestedInt`
  (`j1`), one per offsets tensor: two jagged tensors combine only when they share it, as in PyTorch.
- `torch.strided`: components may differ in every dim; the buffer is flat and `_nt_sizes` holds each shape.
Every call reaches the class's `__torch_function__` (`ember.core.nested_ops`), which runs an op on the
buffer where the geometry allows (elementwise ops, reductions and products over a regular dim: one call,
gradients to the buffer) and per component otherwise (over the ragged dim, attention), refitting the results
into a buffer with differentiable ops. A nested tensor's autograd state is its buffer's, so
`nested_tensor(..., requires_grad=True)` is a leaf whose `.grad` is a nested tensor of the same geometry.
"""

from __future__ import annotations

import itertools

from ember.core import dtypes
from ember.core.ops._util import NESTED_PROTOTYPE, warn_once
from ember.core.ops.tensor_utils import jagged, layout, strided
from ember.core.tensor import Size, Tensor

__all__ = ["NestedTensor", "NestedInt", "jagged", "nested_tensor", "as_nested_tensor", "nested_tensor_from_jagged",
           "to_padded_tensor", "narrow", "masked_select"]

_counter = itertools.count(1)


class NestedInt:
    """A jagged tensor's ragged size (PyTorch's SymInt `j1`): equal only to itself."""

    __slots__ = ("index",)

    def __init__(self) -> None:
        self.index = next(_counter)

    def __repr__(self) -> str:
        return f"j{self.index}"

    __str__ = __repr__


class _NoData:
    """A nested tensor's storage slot: a device and a version, and nothing to read."""

    __slots__ = ("device", "version")
    nbytes = 0
    _shared = _block = None

    def __init__(self, dev) -> None:
        self.device = dev
        self.version = 0

    @property
    def root(self) -> _NoData:
        return self

    def __getattr__(self, name):
        raise NotImplementedError("a nested tensor has no strided storage; this op does not support nested tensors")


def _nested_int(offsets: Tensor) -> NestedInt:
    """The ragged size that `offsets` stands for (made the first time it is asked)."""
    j = offsets.__dict__.get("_nt_int")
    if j is None:
        j = offsets._nt_int = NestedInt()
    return j


class NestedTensor(Tensor):
    """A batch of tensors of different shapes (NOTE [ Nested tensors ]); made by `torch.nested.*`."""

    _dense_like = False
    is_nested = property(lambda self: True)

    @staticmethod
    def _jagged(values: Tensor, offsets: Tensor, lengths: Tensor | None = None, ragged: int = 1,
                max_seqlen: int | None = None) -> NestedTensor:
        """`max_seqlen`: the longest component where known (PyTorch's cached `_max_seqlen`, which sets how wide
        `to_padded_tensor` pads); ops pass it on to their results (`nested_ops.handle`)."""
        t = Tensor._make(_NoData(values.device), 0, (), (), values._dtype, NestedTensor)
        t._nt_layout, t._nt_values, t._nt_offsets = jagged, values, offsets
        t._nt_lengths, t._nt_ragged = lengths, ragged
        t._nt_max = max_seqlen
        _nested_int(offsets)
        return t

    @staticmethod
    def _strided(buffer: Tensor, sizes: list[tuple[int, ...]]) -> NestedTensor:
        warn_once(NESTED_PROTOTYPE)
        t = Tensor._make(_NoData(buffer.device), 0, (), (), buffer._dtype, NestedTensor)
        t._nt_layout, t._nt_values, t._nt_sizes = strided, buffer, [tuple(s) for s in sizes]
        return t

    # --- geometry --------------------------------------------------------------------------------------
    layout = property(lambda self: self._nt_layout)

    def _bounds(self) -> list[tuple[int, int]]:
        """(start, length) of each component along the buffer's ragged dim (jagged) or in the flat buffer."""
        if self._nt_layout is jagged:
            starts = [int(v) for v in self._nt_offsets.tolist()]
            if self._nt_lengths is not None:
                return list(zip(starts, (int(v) for v in self._nt_lengths.tolist())))
            return [(a, b - a) for a, b in zip(starts, starts[1:])]
        out, at = [], 0
        for s in self._nt_sizes:
            n = Size(s).numel()
            out.append((at, n))
            at += n
        return out

    def _components(self) -> list[Tensor]:
        """Each component, a view of the buffer (so gradients reach it)."""
        if self._nt_layout is jagged:
            return [self._nt_values.narrow(self._nt_ragged - 1, a, n) for a, n in self._bounds()]
        return [self._nt_values.narrow(0, a, n).view(s) for (a, n), s in zip(self._bounds(), self._nt_sizes)]

    def dim(self) -> int:
        return self._nt_values.dim() + 1 if self._nt_layout is jagged else len(self._nt_sizes[0]) + 1 \
            if self._nt_sizes else 1

    ndim = property(dim)

    def _batch(self) -> int:
        return len(self._nt_offsets) - 1 if self._nt_layout is jagged else len(self._nt_sizes)

    def size(self, dim: int | None = None):
        """PyTorch's: a jagged tensor's ragged size is its `NestedInt`; a strided one has no sizes, only the
        sizes of its regular dims."""
        n = self.dim()
        if self._nt_layout is jagged:
            shape = [self._batch(), *self._nt_values.shape]
            shape[self._nt_ragged] = _nested_int(self._nt_offsets)
            full = tuple.__new__(Size, shape)
            return full if dim is None else full[_wrap_dim(dim, n)]
        if dim is None:
            raise RuntimeError("Internal error: NestedTensorImpl doesn't support sizes. Please file an issue.")
        d = _wrap_dim(dim, n)
        if d == 0:
            return self._batch()
        sizes = {s[d - 1] for s in self._nt_sizes}
        if len(sizes) != 1:
            raise RuntimeError(f"Given dimension {d} is irregular and does not have a size.")
        return sizes.pop()

    shape = property(lambda self: self.size())

    def __len__(self) -> int:
        if self._nt_layout is not jagged:
            raise RuntimeError("Internal error: NestedTensorImpl doesn't support sizes. Please file an issue.")
        return self._batch()

    def numel(self) -> int:
        return sum(Size(c.shape).numel() for c in self._components())

    def stride(self, dim: int | None = None):
        raise RuntimeError("Internal error: NestedTensorImpl doesn't support strides. Please file an issue.")

    def is_contiguous(self, memory_format=None) -> bool:
        if self._nt_layout is jagged:
            return self._nt_lengths is None and self._nt_values.is_contiguous()
        return True

    # --- the buffer and its parts -------------------------------------------------------------------------
    def values(self) -> Tensor:
        """A view of the buffer: (sum of lengths, *regular dims) for a jagged tensor, flat for a strided one (a new
        view each call, as PyTorch's; `_values` is the buffer itself)."""
        from ember.core.dispatch import node_name

        return node_name(self._nt_values[...], "AliasBackward0", "NestedGetValuesBackward0")

    # PyTorch's NestedTensor attributes, which programs read
    _values = property(lambda self: self._nt_values)
    _offsets = property(lambda self: self._nt_offsets)
    _lengths = property(lambda self: self._nt_lengths)
    _ragged_idx = property(lambda self: self._nt_ragged)

    def offsets(self) -> Tensor:
        if self._nt_layout is not jagged:
            raise AttributeError("'Tensor' object has no attribute 'offsets'")
        return self._nt_offsets

    def lengths(self) -> Tensor | None:
        if self._nt_layout is not jagged:
            raise AttributeError("'Tensor' object has no attribute 'lengths'")
        return self._nt_lengths

    def unbind(self, dim: int = 0) -> tuple[Tensor, ...]:
        """The components, views of the buffer."""
        if _wrap_dim(dim, self.dim()) != 0:
            if self._nt_layout is jagged:
                raise RuntimeError("unbind(): only supported for NestedTensor on dim=0")
            raise RuntimeError(f"NestedTensor can only be unbound along dimension 0 got dimension {dim} instead.")
        return tuple(self._components())

    def __getitem__(self, index):
        if isinstance(index, int):
            from ember.core.dispatch import node_name

            c = self._components()[index]
            made = type(c._grad_fn).__name__ if getattr(c, "_grad_fn", None) is not None else ""
            return node_name(c, made, "SelectBackwardAutogradNestedTensor0")
        if self._nt_layout is jagged:
            raise RuntimeError("slice(): not supported for NestedTensor on dim=0")
        if not self.requires_grad:
            from ember.core.nested_ops import _unsupported

            raise _unsupported(self, "slice.Tensor")
        raise RuntimeError("Internal error: NestedTensorImpl doesn't support sizes. Please file an issue.")

    def to_padded_tensor(self, padding: float, output_size=None) -> Tensor:
        return to_padded_tensor(self, padding, output_size)

    def __iter__(self):
        return iter(self.unbind())

    def __bool__(self) -> bool:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")

    def __deepcopy__(self, memo) -> NestedTensor:
        import copy

        nt = self._like(copy.deepcopy(self._nt_values, memo))
        if self._nt_layout is jagged:
            nt._nt_offsets = copy.deepcopy(self._nt_offsets, memo)
            nt._nt_lengths = copy.deepcopy(self._nt_lengths, memo)
        return nt

    def __reduce_ex__(self, protocol):
        """Pickled (and `torch.save`d) as its buffer and geometry; unpickling checks the geometry (`_rebuild`)."""
        values = self._nt_values.detach()
        if self._nt_layout is jagged:
            geometry = ("jagged", self._nt_offsets, self._nt_lengths, self._nt_ragged, self._nt_max)
        else:
            geometry = ("strided", [list(s) for s in self._nt_sizes])
        return (_rebuild, (values, geometry, bool(self.requires_grad)))

    # the buffer's metadata
    def type(self, dtype=None, non_blocking: bool = False):
        return self._nt_values.type() if dtype is None else self._like(self._nt_values.type(dtype))

    def element_size(self) -> int:
        return self._nt_values.element_size()

    def is_floating_point(self) -> bool:
        return self._nt_values.is_floating_point()

    def is_complex(self) -> bool:
        return self._nt_values.is_complex()

    def get_device(self) -> int:
        return self._nt_values.get_device()

    # --- autograd: the buffer's ----------------------------------------------------------------------------
    def _like(self, values: Tensor) -> NestedTensor:
        """A nested tensor of this geometry over `values`."""
        if self._nt_layout is jagged:
            return NestedTensor._jagged(values, self._nt_offsets, self._nt_lengths, self._nt_ragged, self._nt_max)
        return NestedTensor._strided(values, self._nt_sizes)

    requires_grad = property(lambda self: self._nt_values.requires_grad,
                             lambda self, v: setattr(self._nt_values, "requires_grad", v))
    is_leaf = property(lambda self: self._nt_values.is_leaf)
    grad_fn = property(lambda self: self._nt_values.grad_fn)

    @property
    def grad(self):
        g = self._nt_values.grad
        return None if g is None else self._like(g)

    def requires_grad_(self, requires_grad: bool = True) -> NestedTensor:
        self._nt_values.requires_grad_(requires_grad)
        return self

    def retain_grad(self) -> None:
        self._nt_values.retain_grad()

    def backward(self, gradient=None, retain_graph=None, create_graph: bool = False, inputs=None) -> None:
        if not self.requires_grad:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
        if gradient is None:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        g = gradient._nt_values if isinstance(gradient, NestedTensor) else gradient
        self._nt_values.backward(g, retain_graph=retain_graph, create_graph=create_graph)

    def __repr__(self) -> str:
        if self._nt_layout is jagged:
            size = "(" + ", ".join(str(s) for s in self.size()) + ")"
            parts = [f"size={size}", f"offsets={self._nt_offsets!r}"]
            if self.grad_fn is not None:
                parts.append(f"grad_fn={self.grad_fn!r}")
            elif self.requires_grad:
                parts.append("requires_grad=True")
            parts.append(f"contiguous={self.is_contiguous()}")
            return f"NestedTensor({', '.join(parts)})"
        grad = self.requires_grad
        lines = []
        for c in self._components():
            text = repr(c.detach() if grad else c)
            if grad:
                text = text[:-1] + ", requires_grad=True)"
            lines.append("\n".join("  " + line for line in text.split("\n")))
        return "nested_tensor([\n" + ",\n".join(lines) + "\n]" + (", requires_grad=True)" if grad else ")")

    __str__ = __repr__

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """Every `torch.*` function and method reaches `ember.core.nested_ops` (NOTE [ Nested tensors ])."""
        from ember.core import nested_ops

        return nested_ops.handle(func, args, kwargs or {})


def _wrap_dim(dim: int, n: int) -> int:
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


# --- construction ---------------------------------------------------------------------------------------------
def _layout_of(layout_) -> layout:
    if layout_ is None or layout_ is strided:
        return strided
    if layout_ is jagged:
        return jagged
    raise RuntimeError(f"Specified layout is unsupported for nested tensors: {layout_}")


def _from_list(tensors, dtype, device, layout_, copy: bool) -> NestedTensor:
    """A nested tensor of `tensors`' data; `copy` detaches them (a new leaf), else gradients flow back."""
    from ember.core import creation
    from ember.core.ops.join import cat

    if not isinstance(tensors, list | tuple):
        raise TypeError("nested_tensor(): Expected first argument to be a list of tensors ")
    if not tensors:
        if layout_ is jagged:
            raise RuntimeError("Cannot construct a nested tensor from an empty tensor list")
        return NestedTensor._strided(creation.empty(0, dtype=dtype, device=device), [])
    items = [t if isinstance(t, Tensor) else creation.tensor(t) for t in tensors]
    if copy:
        items = [t.detach() if t.requires_grad else t for t in items]
    for i, t in enumerate(items[1:], 1):
        if t.dim() != items[0].dim():
            if layout_ is jagged:
                raise RuntimeError("When constructing a nested tensor, all tensors in list must have the same dim")
            raise RuntimeError(f"All Tensors given to nested_tensor must have the same dimension. Found dimension "
                               f"{t.dim()} for Tensor at index {i} and dimension {items[0].dim()} for Tensor at "
                               "index 0.")
    target = dtype or items[0].dtype
    items = [t.to(dtype=target, device=device) if (t.dtype != target or device is not None) else t for t in items]
    if layout_ is jagged:
        if items[0].dim() == 0:
            raise RuntimeError("Cannot construct a nested tensor from a list of zero-dim tensors")
        # the one dim whose sizes differ is the ragged one (the first when none differ), as PyTorch picks it
        differ = [k for k in range(items[0].dim()) if len({t.shape[k] for t in items}) > 1]
        if len(differ) > 1:
            raise RuntimeError("Cannot represent given tensor list as a nested tensor with the jagged layout. Note "
                               "that the jagged layout only allows for a single ragged dimension. For example: (B, *, "
                               "D_0, D_1, ..., D_N), with ragged * dim.")
        k = differ[0] if differ else 0
        values = cat(items, k)
        if copy:
            values = values.clone() if len(items) == 1 else values
        lens = [t.shape[k] for t in items]
        offsets = creation.tensor([0, *itertools.accumulate(lens)], dtype=dtypes.int64, device=values.device)
        return NestedTensor._jagged(values, offsets, None, k + 1, max_seqlen=max(lens))
    buffer = cat([t.reshape(-1) for t in items], 0)
    if copy and len(items) == 1:
        buffer = buffer.clone()
    return NestedTensor._strided(buffer, [tuple(t.shape) for t in items])


def nested_tensor(tensor_list, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
                  pin_memory: bool = False) -> NestedTensor:
    """A nested tensor holding copies of `tensor_list` (a new leaf; `requires_grad` makes it require grad).

    Args:
        tensor_list: tensors (or nested lists) of one dim; a jagged layout needs them equal past dim 0.
        layout: `torch.strided` (default) or `torch.jagged`.

    Raises:
        RuntimeError: an empty list, mixed dims, or a jagged list ragged past dim 0.

    Example:
        >>> import ember.core as ec
        >>> nt = nested_tensor([ec.ones(2, 3), ec.zeros(1, 3)], layout=jagged)
        >>> nt.offsets().tolist(), nt.values().shape, nt.size(0), nt.size(2)
        ([0, 2, 3], ember.Size([3, 3]), 2, 3)
        >>> nt.to_padded_tensor(-1.0)[1].tolist()
        [[0.0, 0.0, 0.0], [-1.0, -1.0, -1.0]]
    """
    lay = _layout_of(layout)
    nt = _from_list(tensor_list, dtype, device, lay, copy=True)
    if tensor_list and nt._nt_values._storage is getattr(tensor_list[0], "_storage", None):  # `cat` aliased it
        nt._nt_values = nt._nt_values.clone()
    return nt.requires_grad_(True) if requires_grad else nt


def as_nested_tensor(ts, dtype=None, device=None, layout=None) -> NestedTensor:
    """A nested tensor of `ts` (a list of tensors, or a tensor whose dim 0 is the batch) that keeps the autograd
    history: gradients reach each tensor given."""
    if isinstance(ts, NestedTensor):
        if layout is not ts._nt_layout:
            raise RuntimeError("as_nested_tensor(): Converting between nested tensor layouts is not supported")
        return ts if dtype in (None, ts.dtype) and device is None else ts.to(dtype=dtype or ts.dtype, device=device)
    lay = _layout_of(layout)
    if isinstance(ts, Tensor):
        if ts.dim() == 0:
            raise RuntimeError("as_nested_tensor(): Expected tensor argument to have dim > 1")
        if lay is jagged:
            from ember.core import creation

            t = ts.to(dtype=dtype or ts.dtype, device=device) if (dtype or device) else ts
            b, n = t.shape[0], t.shape[1] if t.dim() > 1 else 1
            values = t.reshape(b * n, *t.shape[2:]) if t.dim() > 1 else t.reshape(b, 1)
            offsets = creation.arange(0, b * n + 1, n, dtype=dtypes.int64, device=values.device)
            return NestedTensor._jagged(values, offsets, max_seqlen=n)
        ts = list(ts.unbind(0))
    if not isinstance(ts, list | tuple):
        raise TypeError("as_nested_tensor(): Expected first argument to be a tensor or a list / tuple of tensors ")
    return _from_list(list(ts), dtype, device, lay, copy=False)


def nested_tensor_from_jagged(values: Tensor, offsets: Tensor | None = None, lengths: Tensor | None = None,
                              jagged_dim: int | None = None, min_seqlen=None, max_seqlen=None) -> NestedTensor:
    """A jagged nested tensor over `values` itself (no copy): component i is `values[offsets[i]:offsets[i] +
    lengths[i]]` along dim `jagged_dim - 1` (lengths default to the offsets' differences).

    Raises:
        RuntimeError: neither `offsets` nor `lengths` given.
    """
    from ember.core import creation
    from ember.core.ops.reduce import cumsum

    if offsets is None:
        if lengths is None:
            raise RuntimeError("nested_tensor_from_jagged(): At least one of offsets or lengths is required.")
        offsets = creation.zeros(len(lengths) + 1, dtype=dtypes.int64, device=values.device)
        offsets[1:] = cumsum(lengths, 0)
        lengths = None
    ragged = 1 if jagged_dim is None else jagged_dim
    if ragged < 1:
        raise ValueError(f"Expected jagged_dim >=1, but got {jagged_dim}.")
    return NestedTensor._jagged(values, offsets, lengths, ragged, None if max_seqlen is None else int(max_seqlen))


def _rebuild(values: Tensor, geometry: tuple, requires_grad: bool) -> NestedTensor:
    """Unpickle a nested tensor, refusing a geometry that reaches outside its buffer.

    Raises:
        RuntimeError: offsets or lengths that are not int64, decrease or cut past the buffer; component sizes
            that need more elements than the buffer holds.
    """
    if not isinstance(values, Tensor) or isinstance(values, NestedTensor) or not isinstance(geometry, tuple):
        raise RuntimeError("nested tensor: a pickled nested tensor needs a dense buffer and its geometry")
    if geometry[:1] == ("jagged",) and len(geometry) == 5:
        _, offsets, lengths, ragged, max_seqlen = geometry
        if not (isinstance(ragged, int) and 1 <= ragged <= values.ndim):
            raise RuntimeError(f"nested tensor: ragged dim {ragged!r} outside the buffer's {values.ndim} dims")
        n = values.shape[ragged - 1]
        for part in (offsets, lengths):
            if part is not None and not (isinstance(part, Tensor) and part.dtype is dtypes.int64 and part.ndim == 1):
                raise RuntimeError("nested tensor: offsets and lengths must be 1-D int64 tensors")
        starts = offsets.tolist()
        ends = starts[1:] if lengths is None else [a + b for a, b in zip(starts, lengths.tolist())]
        if not starts or (lengths is not None and len(ends) != len(starts) - 1) or min(starts) < 0 \
                or any(b < a for a, b in zip(starts, ends)) or max(starts + ends) > n:
            raise RuntimeError(f"nested tensor: offsets/lengths cut outside the buffer's {n} rows")
        nt = NestedTensor._jagged(values, offsets, lengths, ragged, max_seqlen)
    elif geometry[:1] == ("strided",) and len(geometry) == 2 and values.ndim == 1:
        sizes = geometry[1]
        if not (isinstance(sizes, list) and all(isinstance(z, list) and all(isinstance(d, int) and d >= 0 for d in z)
                                                for z in sizes)):
            raise RuntimeError("nested tensor: component sizes must be lists of non-negative ints")
        if sum(Size(z).numel() for z in sizes) > values.numel():
            raise RuntimeError(f"nested tensor: the components need more than the buffer's {values.numel()} elements")
        nt = NestedTensor._strided(values, sizes)
    else:
        raise RuntimeError("nested tensor: unknown pickled geometry")
    return nt.requires_grad_(True) if requires_grad else nt


def to_padded_tensor(input: NestedTensor, padding: float, output_size=None) -> Tensor:  # noqa: A002
    """A dense tensor: the components stacked, each padded with `padding` to the largest (or `output_size`).

    Raises:
        RuntimeError: a jagged tensor with holes, or an `output_size` smaller than a component.
    """
    from ember.core import creation
    from ember.core.dispatch import node_name
    from ember.core.ops.join import cat, stack

    if not isinstance(input, NestedTensor):
        raise RuntimeError("to_padded_tensor(): expected a nested tensor as input")
    if input._nt_layout is jagged and input._nt_lengths is not None:
        raise RuntimeError("to_padded_tensor(): not supported for nested tensors with holes")
    comps = input._components()
    n = input.dim() - 1
    target = [max(c.shape[d] for c in comps) for d in range(n)]
    if input._nt_layout is jagged:  # PyTorch pads to the known max length, else to the buffer's whole length
        r = input._nt_ragged - 1
        target[r] = input._nt_values.shape[r] if input._nt_max is None else input._nt_max
        comps = [c.narrow(r, 0, target[r]) if c.shape[r] > target[r] else c for c in comps]
    if output_size is not None:
        out = list(output_size)
        if len(out) != n + 1 or any(o < t for o, t in zip(out[1:], target)) or out[0] < len(comps):
            raise RuntimeError("Value in output_size is less than NestedTensor padded size. Truncation is not "
                               "supported.")
        target = out[1:]
    padded = []
    for c in comps:
        for d in range(n):
            gap = target[d] - c.shape[d]
            if gap:
                fill = creation.full((*c.shape[:d], gap, *c.shape[d + 1:]), padding, dtype=c.dtype, device=c.device)
                c = cat([c, fill], d)
        padded.append(c)
    extra = (output_size[0] - len(comps)) if output_size is not None else 0
    if extra:
        padded += [creation.full(tuple(target), padding, dtype=input.dtype, device=input.device)] * extra
    return node_name(stack(padded, 0), "StackBackward0", "ToPaddedTensorBackward0")


def narrow(tensor: Tensor, dim: int, start, length, layout=strided) -> NestedTensor:
    """A nested tensor of each row of `tensor` narrowed along `dim` (1) to `start[i]` + `length[i]` (ints or
    tensors of one per row); the jagged one is a view of `tensor` with holes.

    Raises:
        RuntimeError: `dim` other than 1, or a nested `tensor`.
    """
    from ember.core import creation

    lay = _layout_of(layout)
    if isinstance(tensor, NestedTensor) or dim != 1:
        raise RuntimeError(f"narrow(): only dim=0 supported for nested tensors, but got: {dim}"
                           if isinstance(tensor, NestedTensor) else "jagged layout only supports dim=1")
    b, n = tensor.shape[0], tensor.shape[1]
    starts = [int(s) for s in (start.tolist() if isinstance(start, Tensor) else [start] * b)]
    lens = [int(s) for s in (length.tolist() if isinstance(length, Tensor) else [length] * b)]
    if lay is strided:
        return _from_list([tensor[i].narrow(0, s, m) for i, (s, m) in enumerate(zip(starts, lens))],
                          None, None, strided, copy=False)
    values = tensor.reshape(b * n, *tensor.shape[2:])
    offsets = creation.tensor([i * n + s for i, s in enumerate(starts)] + [b * n], dtype=dtypes.int64,
                              device=tensor.device)
    offsets[-1] = offsets[-2] + lens[-1]
    return NestedTensor._jagged(values, offsets, creation.tensor(lens, dtype=dtypes.int64, device=tensor.device))


def masked_select(tensor: Tensor, mask: Tensor) -> NestedTensor:
    """A jagged nested tensor with one component per row of `tensor`'s last dim: the row's elements where
    `mask` (broadcast to `tensor`'s shape) is True.

    Raises:
        RuntimeError: `mask` is not bool, or does not broadcast to `tensor`.
    """
    from ember.core import creation
    from ember.core.ops.reduce import cumsum

    if mask.dtype is not dtypes.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    if tuple(mask.shape) != tuple(tensor.shape):
        from ember.core.ops.layout import broadcast_tensors

        mask, tensor = broadcast_tensors(mask, tensor)
    values = tensor[mask]
    lens = mask.reshape(-1, mask.shape[-1]).sum(-1)
    offsets = creation.zeros(lens.shape[0] + 1, dtype=dtypes.int64, device=tensor.device)
    offsets[1:] = cumsum(lens, 0)
    return NestedTensor._jagged(values, offsets)
