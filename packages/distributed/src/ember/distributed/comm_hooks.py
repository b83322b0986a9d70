"""DDP communication hooks: `GradBucket` (what a hook receives) and the default hooks of
`torch.distributed.algorithms.ddp_comm_hooks.default_hooks`.

A hook is `hook(state, bucket) -> Future` whose value is a tensor of the bucket buffer's size: the
reduced gradients DDP writes into `.grad`. It is called once per bucket, in bucket order, as soon
as the bucket's gradients are all ready.
"""

from __future__ import annotations

import numpy as np

from ember.core import dtypes
from ember.core.futures import Future
from ember.core.tensor import Tensor
from ember.distributed import c10d

__all__ = ["GradBucket", "allreduce_hook", "fp16_compress_hook", "bf16_compress_hook"]


class GradBucket:
    """A bucket of gradients as a hook sees it: one flat buffer holding every gradient (not yet
    divided by the world size), its index, and the parameters it holds."""

    def __init__(self, index: int, buffer: Tensor, params: list[Tensor], offsets: list[int], last: bool) -> None:
        self._index = index
        self._buffer = buffer
        self._params = params
        self._offsets = offsets
        self._last = last

    def index(self) -> int:
        return self._index

    def buffer(self) -> Tensor:
        """The flat gradient buffer (one dtype); writes into it are what DDP would reduce."""
        return self._buffer

    def set_buffer(self, buffer: Tensor) -> None:
        if buffer.shape != self._buffer.shape:
            raise ValueError(f"set_buffer: expected a tensor of shape {tuple(self._buffer.shape)}; got "
                             f"{tuple(buffer.shape)}")
        self._buffer.copy_(buffer)

    def gradients(self) -> list[Tensor]:
        """Each parameter's gradient as a view of the buffer, in the parameter's shape."""
        return [self._buffer[o:o + p.numel()].view(p.shape) for p, o in zip(self._params, self._offsets)]

    def parameters(self) -> list[Tensor]:
        return list(self._params)

    def is_last(self) -> bool:
        """Whether this is the last bucket of the iteration."""
        return self._last


def _group(process_group) -> c10d.ProcessGroup:
    return process_group if process_group is not None else c10d._default()


def allreduce_hook(process_group, bucket: GradBucket) -> Future:
    """DDP's own reduction as a hook: divide by the world size and all-reduce (a SUM) the buffer."""
    pg = _group(process_group)
    buf = bucket.buffer()
    buf.div_(pg.size())
    return c10d.all_reduce(buf, group=pg, async_op=True).get_future().then(lambda fut: fut.value()[0])


def _compress_hook(process_group, bucket: GradBucket, dtype) -> Future:
    pg = _group(process_group)
    buf = bucket.buffer()
    compressed = buf.to(dtype).div_(pg.size())

    def decompress(fut: Future) -> Tensor:
        buf.copy_(fut.value()[0])
        return buf

    return c10d.all_reduce(compressed, group=pg, async_op=True).get_future().then(decompress)


def fp16_compress_hook(process_group, bucket: GradBucket) -> Future:
    """All-reduce the bucket in float16 (half the bytes on the wire), then cast back."""
    return _compress_hook(process_group, bucket, dtypes.float16)


def bf16_compress_hook(process_group, bucket: GradBucket) -> Future:
    """All-reduce the bucket in bfloat16 (float32's range, half the bytes), then cast back."""
    return _compress_hook(process_group, bucket, dtypes.bfloat16)


def bucket_of(index: int, buf: np.ndarray, params: list[Tensor], offsets: list[int], last: bool) -> GradBucket:
    """The `GradBucket` over DDP's flat numpy buffer `buf` (shared, not copied)."""
    return GradBucket(index, Tensor._wrap(buf), params, offsets, last)
