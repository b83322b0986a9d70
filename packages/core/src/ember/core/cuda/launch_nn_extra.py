"""CUDA kernels of the functional layer's ops that compose from the CUDA primitives: max_unpool
(a scatter into zeroed planes; like every CUDA scatter it skips out-of-range indices, which the
CPU kernel rejects) and fractional_max_pool (window positions from the samples on the host, a
gather and a max on the device)."""

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


def _fractional_max_pool(input, kernel_size, output_size, samples):
    from ember.core.creation import from_numpy
    from ember.core.ops import fractional_pool as FP

    nd = len(kernel_size)
    spatial, lead = tuple(input._shape[-nd:]), tuple(input._shape[:-nd])
    planes, m, k = math.prod(lead), math.prod(output_size), math.prod(kernel_size)
    pos = FP.window_positions(FP.plane_samples(input, samples, nd), spatial, kernel_size, output_size)
    pos = from_numpy(pos.reshape(planes, m * k)).to(input._storage.device)
    vals = reshape(get_op("gather")(reshape(input, (planes, math.prod(spatial))), 1, pos), (planes, m, k))
    out, pick = get_op("max_dim")(vals, 2, True)
    idx = get_op("gather")(reshape(pos, (planes, m, k)), 2, pick)
    shape = lead + tuple(output_size)
    return reshape(out, shape), reshape(idx, shape)


def register() -> None:
    get_op("max_unpool").register("cuda")(_max_unpool)
    get_op("fractional_max_pool").register("cuda")(_fractional_max_pool)


def ptx_cases():
    return iter(())
