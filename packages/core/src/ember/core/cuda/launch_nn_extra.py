"""CUDA kernels of the functional layer's ops that compose from the CUDA primitives: max_unpool
(a scatter into zeroed planes; like every CUDA scatter it skips out-of-range indices, which the
CPU kernel rejects)."""

from __future__ import annotations

import math

from ember.core.cuda import launch_util as lu
from ember.core.dispatch import get_op
from ember.core.ops.layout import reshape

__all__ = ["register"]


def _max_unpool(input, indices, output_size):
    nd = len(output_size)
    lead = tuple(input._shape[:-nd])
    planes = math.prod(lead)
    out = get_op("fill_")(lu.empty((planes, math.prod(output_size)), input._dtype, input._storage.device), 0)
    if input.numel():
        src = reshape(input, (planes, -1))
        idx = reshape(indices, (planes, -1))
        out = get_op("scatter")(out, 1, idx, src, out=out)
    return reshape(out, lead + tuple(output_size))


def register() -> None:
    get_op("max_unpool").register("cuda")(_max_unpool)


def ptx_cases():
    return iter(())
