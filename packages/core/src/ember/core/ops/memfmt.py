"""`memory_format=`: the dim order a format asks for (PyTorch's preserve_format rule included), and the
strided result that order gives a freshly allocated row-major buffer."""

from __future__ import annotations

from ember.core import settings
from ember.core.tensor import _CSTRIDES, Tensor, _contiguous_strides_cached

__all__ = ["dim_order", "permuted_shape", "restride", "laid_out"]

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
    """The dims of the result outermost first, or None when that is the row-major order.

    `None` and `preserve_format` keep `x`'s layout (row-major for a new tensor of `shape`: `x` None);
    `channels_last` (rank 4) and `channels_last_3d` (rank 5) put the channel dim innermost."""
    if x is not None:
        shape = x._shape
    if memory_format is None or memory_format is settings.preserve_format:
        if x is None or len(shape) < 2 or x._strides == (_CSTRIDES.get(shape) or _contiguous_strides_cached(shape)):
            return None
        if x.is_contiguous():  # row-major but for the strides of size-1 dims: the values sit alike
            return None
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


def permuted_shape(shape: tuple, perm: tuple) -> tuple:
    return tuple([shape[d] for d in perm])


def _non_overlapping_and_dense(shape: tuple, strides: tuple) -> bool:
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
    if (like is not None and (memory_format is None or memory_format is settings.preserve_format)
            and _non_overlapping_and_dense(like._shape, like._strides)):
        strides = like._strides
    return Tensor._make(t._storage, t._offset, tuple(shape), tuple(strides), t._dtype)


def laid_out(t: Tensor, perm: tuple, requires_grad: bool, memory_format, like: Tensor) -> Tensor:
    """`restride` for the `*_like` creators, then their `requires_grad`."""
    t = restride(t, perm, memory_format, like)
    return t.requires_grad_(True) if requires_grad else t
