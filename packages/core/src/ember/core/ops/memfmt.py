"""`memory_format=`: the dim order a format asks for (PyTorch's preserve_format rule included), the
strided result that order gives a freshly allocated row-major buffer, and the layout of an
elementwise op's result (NOTE [ Elementwise result layout ])."""

from __future__ import annotations

import numpy as np

from ember.core.ops._util import require_grad
from ember.core import settings
from ember.core.tensor import _CSTRIDES, Tensor, _contiguous_strides_cached

__all__ = ["dim_order", "permuted_shape", "restride", "laid_out", "preserved", "cat_order", "strides_in",
           "iterator_strides",
           "preserved_strides", "elementwise_strides", "dense_strides", "suggested_format", "channels_last_as",
           "grad_laid_out", "grad_format_from"]

_RANKS = {"channels_last": 4, "channels_last_3d": 5}


def _dense_order(shape: tuple, strides: tuple) -> tuple:
    """The dims outermost first, sorted by stride as PyTorch's `infer_dense_strides` does: a stride of 0 keeps
    the row-major order, equal strides put the larger size outside."""
    perm = list(range(len(shape) - 1, -1, -1))  # innermost first
    for i in range(1, len(perm)):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            a, b = perm[d0], perm[d1]
            sa, sb = strides[a], strides[b]
            if sa == 0 or sb == 0:
                continue
            if sa < sb:
                break
            if sa > sb or shape[a] > shape[b]:
                perm[d0], perm[d1] = b, a
                d1 = d0
    return tuple(reversed(perm))


def dim_order(x: Tensor | None, memory_format, op: str = "memory_format", shape: tuple = ()) -> tuple | None:
    """The dims of the result outermost first, or None when it is plainly row-major (an identity order: `x` is
    row-major but for the strides of size-1 dims, which `restride` keeps).

    `None` and `preserve_format` keep `x`'s layout (row-major for a new tensor of `shape`: `x` None);
    `channels_last` (rank 4) and `channels_last_3d` (rank 5) put the channel dim innermost."""
    if x is not None:
        shape = x._shape
    if memory_format is None or memory_format is settings.preserve_format:
        if x is None or len(shape) < 2 or x._strides == (_CSTRIDES.get(shape) or _contiguous_strides_cached(shape)):
            return None
        if x.is_contiguous():  # row-major but for the strides of size-1 dims, which PyTorch keeps (`restride`)
            return tuple(range(len(shape)))
        perm = _dense_order(shape, x._strides)
    else:
        name = getattr(memory_format, "name", None)
        if name == "contiguous_format":
            return None
        rank = _RANKS.get(name)
        if rank is None:
            raise TypeError(f"{op}(): memory_format must be an ember memory_format, not {memory_format!r}")
        if len(shape) != rank:
            raise RuntimeError(f"required rank {rank} tensor to use {name} format")
        perm = (0, *range(2, rank), 1)
    return None if perm == tuple(range(len(shape))) else perm


def _channels_last_like(shape: tuple, strides: tuple) -> bool:
    """PyTorch's `is_channels_last_strides_2d`/`_3d`: the strides order the channel dim innermost, the
    ambiguous N111-like cases and tensors without elements counting as row-major."""
    order = (1, 3, 2, 0) if len(shape) == 4 else (1, 4, 3, 2, 0)
    if strides[1] == 0:
        return False
    low = 0
    for d in order:
        if shape[d] == 0 or strides[d] == 0 or strides[d] < low or (d == 0 and low == strides[1]):
            return False
        low = strides[d] * (shape[d] if shape[d] > 1 else 1)
    return True


def suggested_format(x: Tensor) -> str:
    """PyTorch's `suggest_memory_format`: the name of the format `x`'s strides follow; `to(memory_format=)`
    returns `x` itself when it is the one asked for."""
    if len(x._shape) in (4, 5) and _channels_last_like(x._shape, x._strides):
        return "channels_last" if len(x._shape) == 4 else "channels_last_3d"
    return "contiguous_format"


def channels_last_as(out: Tensor, *inputs) -> Tensor:
    """`out` laid out channels_last (rank 4) or channels_last_3d (rank 5) when an input of its rank is: PyTorch's
    CPU conv, batch norm, padding and pooling kernels answer in that layout. The copy's grad_fn keeps `out`'s
    node name."""
    fmt = {4: "channels_last", 5: "channels_last_3d"}.get(len(out._shape))
    if fmt is None or suggested_format(out) == fmt or not any(
            t is not None and len(t._shape) == len(out._shape) and suggested_format(t) == fmt for t in inputs):
        return out
    from ember.core.dispatch import node_name
    from ember.core.ops.layout import clone

    fn = getattr(out, "_grad_fn", None)
    res = clone(out, memory_format=getattr(settings, fmt))
    return res if fn is None else node_name(res, "CloneBackward0", type(fn).__name__)


def cat_order(tensors) -> tuple | None:
    """The dim order of `cat`'s result, or None for row-major: the format every input suggests when they all
    suggest the same one (channels_last), as PyTorch's `cat_compute_output_memory_format`."""
    fmt = None
    for t in tensors:
        f = suggested_format(t)
        if f == "contiguous_format" or (fmt is not None and f != fmt):
            return None
        fmt = f
    return None if fmt is None else (0, 2, 3, 1) if fmt == "channels_last" else (0, 2, 3, 4, 1)


def strides_in(shape: tuple, perm: tuple | None) -> tuple | None:
    """The dense strides of `shape` with its dims in memory in the order `perm` (outermost first); None for
    none (row-major)."""
    if perm is None:
        return None
    strides = [0] * len(shape)
    acc = 1
    for d in reversed(perm):
        strides[d] = acc
        acc *= shape[d]
    return tuple(strides)


def preserved_strides(x: Tensor) -> tuple | None:
    """The strides preserve_format gives a new tensor of `x`'s shape: `x`'s own when dense, else dense in
    `x`'s dim order; None for row-major."""
    perm = dim_order(x, None)
    if perm is None:
        return None
    return x._strides if dense_strides(x._shape, x._strides) else strides_in(x._shape, perm)


def permuted_shape(shape: tuple, perm: tuple) -> tuple:
    return tuple([shape[d] for d in perm])


def _non_overlapping_and_dense(shape: tuple, strides: tuple) -> bool:
    if 0 in shape:
        return True  # PyTorch's: a tensor without elements is contiguous, so dense whatever its strides
    expected = 1
    for stride, n in sorted((s, n) for n, s in zip(shape, strides, strict=True) if n != 1):
        if stride != expected:
            return False
        expected *= n
    return True


def restride(t: Tensor, perm: tuple, memory_format=None, like: Tensor | None = None) -> Tensor:
    """The row-major tensor `t`, of shape `permuted_shape(shape, perm)`, seen with dims back in order; with
    preserve_format, a dense `like` lends its exact strides (those of its size-1 dims included), as PyTorch's."""
    strides = [0] * len(perm)
    shape = [0] * len(perm)
    for i, d in enumerate(perm):
        strides[d] = t._strides[i]
        shape[d] = t._shape[i]
    preserve = memory_format is None or memory_format is settings.preserve_format
    if not preserve and 0 in shape:  # PyTorch's channels_last strides multiply the sizes as they are, a 0 included
        strides = strides_in(shape, perm)
    if like is not None and preserve and _non_overlapping_and_dense(like._shape, like._strides):
        strides = like._strides
    return Tensor._make(t._storage, t._offset, tuple(shape), tuple(strides), t._dtype)


def laid_out(t: Tensor, perm: tuple, requires_grad: bool, memory_format, like: Tensor) -> Tensor:
    """`restride` for the `*_like` creators, then their `requires_grad`."""
    t = restride(t, perm, memory_format, like)
    return require_grad(t) if requires_grad else t


def preserved(r, x: Tensor) -> Tensor:
    """The fresh numpy result `r`, of `x`'s shape, as a tensor laid out as `x` (preserve_format: a channels_last
    or transposed input gives a result so, as PyTorch's sort and flip), in `r`'s own buffer when it already is."""
    perm = dim_order(x, None)
    if perm is None:
        return Tensor._wrap(np.asarray(r, order="C"))
    return restride(Tensor._wrap(np.ascontiguousarray(np.asarray(r).transpose(perm))), perm, like=x)


# NOTE [ Elementwise result layout ]
# An elementwise op's new result takes its inputs' memory layout, as PyTorch's TensorIterator gives it:
# - every tensor input of the result's shape and no scalar (a Python number or a 0-dim tensor among the
#   operands): all row-major (size-1 dims aside) -> row-major; all channels_last (rank 4) -> the
#   channels_last strides; all dense with equal strides -> the first input's strides, exactly;
# - otherwise the dims are sorted by the inputs' strides, innermost first, by an insertion sort in which
#   the first input with an opinion decides (a broadcast dim, stride 0, has none; equal strides put the
#   smaller size inside), and the result is dense in that order (row-major when the order is).
# So `channels_last + 1` and `x.permute(2, 0, 1).exp()` keep their layouts, `channels_last + row-major`
# is channels_last and `row-major + channels_last` row-major. The kernels ask for it only when an input is
# not row-major (`elementwise_strides` returns None at once when every tensor operand is), so the
# contiguous path costs nothing more. Which operands count: PyTorch wraps a Python number operand of the
# arithmetic ops and comparisons as a 0-dim tensor (a scalar), but not clamp's bounds, lerp's weight or a
# number base or exponent of pow (`numbers=False`).


def dense_strides(shape: tuple, strides: tuple) -> bool:
    """PyTorch's `is_non_overlapping_and_dense`: some permutation of the dims is row-major."""
    if len(shape) == 2 and shape[0] >= 2 and shape[1] >= 2:  # a matrix (a weight's gradient): no sort
        return (strides[1] == 1 and strides[0] == shape[1]) or (strides[0] == 1 and strides[1] == shape[0])
    dims = sorted((d for d in range(len(shape)) if shape[d] >= 2), key=lambda d: strides[d])
    expected = 1
    for d in dims:
        if strides[d] != expected:
            return False
        expected *= shape[d]
    return True


def _channels_last(t: Tensor) -> bool:
    expected = 1
    for d in (1, 3, 2, 0):
        if t._shape[d] != 1:
            if t._strides[d] != expected:
                return False
            expected *= t._shape[d]
    return True


def _swap(dim0: int, dim1: int, strides: list, shape: tuple) -> int:
    """1 when `dim0`, now inside `dim1`, belongs outside it; -1 when it stays; 0 when no input says."""
    for s in strides:
        s0, s1 = s[dim0], s[dim1]
        if s0 == 0 or s1 == 0:
            continue
        if s0 != s1:
            return -1 if s0 < s1 else 1
        if shape[dim0] > shape[dim1]:
            return 1
    return 0


_LAYOUTS: dict[tuple, tuple | None] = {}  # the geometry of an op's operands -> `elementwise_strides`


def elementwise_strides(shape: tuple, operands, numbers: bool = True) -> tuple | None:
    """The strides of an elementwise result of `shape` over `operands`, or None for row-major.

    NOTE [ Elementwise result layout ]: `operands` in the op's order (tensors, numbers, None for an absent
    optional); `numbers`: whether a Python number is an operand (a scalar) of the op. The answer is
    remembered per geometry: a training loop repeats its layouts."""
    if len(shape) < 2:
        return None
    cs = _CSTRIDES.get(shape) or _contiguous_strides_cached(shape)
    tensors = []
    key = [shape]
    scalars = False
    row_major = True
    for v in operands:
        if isinstance(v, Tensor):
            if not v._shape:
                scalars = True
                key.append(())
                continue
            tensors.append(v)
            key.append(v._shape)
            key.append(v._strides)
            if row_major and v._strides != (cs if v._shape == shape else _CSTRIDES.get(v._shape)
                                             or _contiguous_strides_cached(v._shape)):
                row_major = False
        elif v is not None and numbers:
            scalars = True
            key.append(None)
    if row_major:
        return None
    key = tuple(key)
    strides = _LAYOUTS.get(key, key)
    if strides is key:
        if len(_LAYOUTS) > 4096:
            _LAYOUTS.clear()
        strides = _LAYOUTS[key] = _iterator_strides(shape, tensors, scalars)
    return strides


class _Geometry:
    """An operand's shape and strides, for `_iterator_strides` (a view PyTorch's kernel builds, not a tensor)."""

    __slots__ = ("_shape", "_strides")

    def __init__(self, shape: tuple, strides: tuple) -> None:
        self._shape, self._strides = tuple(shape), tuple(strides)

    def is_contiguous(self) -> bool:
        return self._strides == _contiguous_strides_cached(self._shape)


def iterator_strides(shape: tuple, geometries) -> tuple | None:
    """TensorIterator's result strides (None: row-major) over operands given as (shape, strides) pairs: the
    layout of a kernel's result whose operands are views it made (advanced indexing's restrided source)."""
    return _iterator_strides(tuple(shape), [_Geometry(*g) for g in geometries], False)


def _iterator_strides(shape: tuple, tensors: list, scalars: bool) -> tuple | None:
    """`elementwise_strides` computed: TensorIterator's fast setups, else its sorted dims."""
    nd = len(shape)
    if not scalars and all(t._shape == shape for t in tensors):
        if all(t.is_contiguous() for t in tensors):
            return None
        if nd == 4 and all(_channels_last(t) for t in tensors):
            c, h, w = shape[1], shape[2], shape[3]
            return (h * w * c, 1, w * c, c)
        first = tensors[0]._strides
        if all(t._strides == first for t in tensors) and dense_strides(shape, first):
            return first
    strides = []
    for t in tensors:
        lead = nd - len(t._shape)
        strides.append((0,) * lead + tuple([0 if n == 1 and shape[lead + i] != 1 else s
                                            for i, (n, s) in enumerate(zip(t._shape, t._strides, strict=True))]))
    perm = list(range(nd - 1, -1, -1))  # innermost first
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = _swap(perm[d0], perm[d1], strides, shape)
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    if perm == list(range(nd - 1, -1, -1)):
        return None
    out = [0] * nd
    acc = 1
    for d in perm:
        out[d] = acc
        acc *= shape[d]
    return tuple(out)



_SUBCLASSES: dict = {}


def _renode(t: Tensor, key: str, apply) -> None:
    """Give `t`'s grad_fn a subclass of its class (same name) whose `apply` is `apply(self, grads, base_apply)`."""
    cls = type(t._grad_fn)
    sub = _SUBCLASSES.get((cls, key))
    if sub is None:
        sub = _SUBCLASSES[(cls, key)] = type(cls.__name__, (cls,), {
            "__slots__": (), "__module__": cls.__module__,
            "apply": lambda self, grads: apply(self, grads, cls.apply)})
    t._grad_fn.__class__ = sub


def grad_laid_out(input: Tensor, fmt) -> Tensor:
    """`input` through a view whose backward lays the gradient out in `fmt` ('channels_last',
    'channels_last_3d' or 'contiguous_format', i.e. dense row-major), or in the format of the gradient that
    `grad_format_from(out, fmt)` saw when `fmt` is a one-element list: for a composite whose view chain hands
    back a gradient in another layout (row-major, or zero-stride expanded) than PyTorch's native kernel."""
    from ember.core.ops.shape import view

    v = view(input, tuple(input._shape))
    if getattr(v, "_grad_fn", None) is not None:
        v._grad_fn._ember_grad_format = fmt
        _renode(v, "lay_out", _lay_out_apply)
    return v


def grad_format_from(out: Tensor, cell: list) -> Tensor:
    """`out`, whose backward records its incoming gradient's suggested format in `cell` (for `grad_laid_out`)."""
    if getattr(out, "_grad_fn", None) is not None:
        out._grad_fn._ember_grad_cell = cell
        _renode(out, "record", _record_apply)
    return out


def _record_apply(self, grads, base):
    g = grads[0]
    self._ember_grad_cell[0] = "contiguous_format" if g is None else suggested_format(g)
    return base(self, grads)


def _lay_out_apply(self, grads, base):
    fmt = self._ember_grad_format
    fmt = fmt if isinstance(fmt, str) else fmt[0] or "contiguous_format"
    return [None if g is None else _lay_out(g, fmt) for g in base(self, grads)]


def _lay_out(g: Tensor, fmt: str) -> Tensor:
    from ember.core.ops.layout import clone

    if fmt == "contiguous_format" or len(g._shape) != _RANKS[fmt]:
        return g if g.is_contiguous() else clone(g, memory_format=settings.contiguous_format)
    if suggested_format(g) == fmt and dense_strides(g._shape, g._strides):
        return g
    return clone(g, memory_format=getattr(settings, fmt))
