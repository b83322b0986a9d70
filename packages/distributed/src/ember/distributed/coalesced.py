"""`all_reduce_coalesced` and `all_gather_coalesced`: several tensors in one collective, as PyTorch's
deprecated calls (each warns); the tensors travel flattened into one buffer per call."""

from __future__ import annotations

import warnings

import numpy as np

from ember.core.tensor import Tensor
from ember.distributed import c10d

__all__ = ["all_reduce_coalesced", "all_gather_coalesced"]

_DEPRECATED = ("`torch.distributed.{}` will be deprecated. If you must use it, please revisit our documentation "
               "later at https://pytorch.org/docs/main/distributed.html#collective-functions")


def _flat(tensors: list[Tensor]) -> Tensor:
    return Tensor._wrap(np.concatenate([t.detach().cpu()._np().reshape(-1) for t in tensors]))


def _unflat(flat: Tensor, into: list[Tensor]) -> None:
    arr, pos = flat._np(), 0
    for t in into:
        n = t.numel()
        c10d._write(t, arr[pos:pos + n].reshape(t.shape))
        pos += n


def all_reduce_coalesced(tensors: list[Tensor], op: c10d.ReduceOp = c10d.ReduceOp.SUM,
                         group: c10d.ProcessGroup | None = None, async_op: bool = False):
    """`all_reduce` of every tensor of `tensors` (one dtype) in one collective, in place."""
    warnings.warn(_DEPRECATED.format("all_reduce_coalesced"), FutureWarning, stacklevel=2)
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    if len({t.dtype for t in tensors}) > 1:
        raise ValueError("all_reduce_coalesced: all tensors must have the same dtype")
    flat = _flat(tensors)
    work = c10d.all_reduce(flat, op, group, async_op=async_op)
    if work is None:
        _unflat(flat, tensors)
        return None
    work.wait()
    _unflat(flat, tensors)
    return work


def all_gather_coalesced(output_tensor_lists: list[list[Tensor]], input_tensor_list: list[Tensor],
                         group: c10d.ProcessGroup | None = None, async_op: bool = False):
    """`all_gather` of every tensor of `input_tensor_list`: `output_tensor_lists[r]` receives rank r's."""
    warnings.warn(_DEPRECATED.format("all_gather_coalesced"), FutureWarning, stacklevel=2)
    pg = c10d._pg(group)
    if len(output_tensor_lists) != pg.size():
        raise ValueError(f"all_gather_coalesced: expected {pg.size()} output lists; got {len(output_tensor_lists)}")
    flat = _flat(list(input_tensor_list))
    outs = [Tensor._wrap(flat._np().copy()) for _ in range(pg.size())]
    work = c10d.all_gather(outs, flat, group, async_op=async_op)
    if work is not None:
        work.wait()
    for out, dests in zip(outs, output_tensor_lists):
        _unflat(out, dests)
    return work
