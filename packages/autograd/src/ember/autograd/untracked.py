"""Backward work computed at once, without dispatching its ops, where nothing could see them."""

from __future__ import annotations

from ember.core import dispatch as _dispatch
from ember.core import dtypes
from ember.core import storage as _storage
from ember.core.tensor import Tensor

from ember.autograd.grad_mode import _enabled

__all__ = ["plain", "transposed"]

# NOTE [ Backward products computed at once ]
# A backward without `create_graph` runs its formulas with grad mode off; where nothing but autograd watches ops
# (`dispatch.untracked`: no other hook, no mode) no one sees the ops a formula dispatches, so the products of `mm`'s,
# `addmm`'s and linear layers' gradients compute at once (`mm_untracked`, the bits of the dispatched `mm`) and a
# transpose of a gradient (`transposed`) and stack's slices of one are bare views: no view tracking, since nothing
# can differentiate through them or write into them through their base; the engine sums a bias's gradient at once
# too (`sum_untracked`). `plain` says when; anything else takes the dispatched ops.
_PLAIN_DTYPES = (dtypes.float32, dtypes.float64)


def plain(*ts) -> bool:
    """Whether a formula may compute at once (NOTE [ Backward products computed at once ]): grad mode off, nothing but
    autograd watching ops, and `ts` dense float32/float64 CPU tensors of one dtype with no conj or neg bit."""
    if not _dispatch.untracked or _enabled.get():
        return False
    dt = ts[0]._dtype if ts[0].__class__ is Tensor else None
    for t in ts:
        if t.__class__ is not Tensor or t._dtype is not dt or t._conj or t._neg:
            return False
    return dt in _PLAIN_DTYPES and (_storage.only_cpu or all(t._storage.device.type == "cpu" for t in ts))


def transposed(t: Tensor, dim0: int = 0, dim1: int = 1) -> Tensor:
    """`t.transpose(dim0, dim1)` of a gradient as a bare view, for a formula `plain` let compute at once."""
    shape, strides = list(t._shape), list(t._strides)
    shape[dim0], shape[dim1] = shape[dim1], shape[dim0]
    strides[dim0], strides[dim1] = strides[dim1], strides[dim0]
    return Tensor._make(t._storage, t._offset, tuple(shape), tuple(strides), t._dtype)
