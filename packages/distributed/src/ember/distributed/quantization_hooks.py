"""The quantization communication hooks of `torch.distributed.algorithms.ddp_comm_hooks.quantization_hooks`.

Each rank quantizes its gradient bucket to uint8 with its own affine parameters (the qparams of
PyTorch's `MinMaxObserver`/`PerChannelMinMaxObserver`: quint8, range widened to hold 0), the ranks
all-gather the parameters and then the bytes, and each rank dequantizes every rank's bytes and
averages them. A quarter of float32's bytes cross the wire, through all-gathers (slower than an
all-reduce, as PyTorch warns: these hooks are experimental there too). The arithmetic is PyTorch's,
step for step in float32, so the averaged gradients are its values.
"""

from __future__ import annotations

import numpy as np

from ember.core.futures import Future
from ember.core.tensor import Tensor
from ember.distributed import c10d
from ember.distributed.comm_hooks import GradBucket

__all__ = ["quantization_pertensor_hook", "quantization_perchannel_hook"]

_QMAX = 255  # quint8: quant_min 0, quant_max 255
_EPS = np.float32(np.finfo(np.float32).eps)


def qparams(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(scale, zero_point) as float32 arrays for minima `lo` and maxima `hi` (float32), as PyTorch's
    observers compute them for quint8 affine quantization: the range widened to hold 0, the scale at
    least float32's eps, the zero point rounded half to even and clamped to [0, 255]."""
    lo = np.minimum(lo, np.float32(0))
    hi = np.maximum(hi, np.float32(0))
    scale = np.maximum((hi - lo) / np.float32(_QMAX), _EPS)
    zero_point = np.clip(np.float32(0) - np.rint(lo / scale), 0, _QMAX)
    return scale.astype(np.float32), zero_point.astype(np.float32)


def quantize(x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray) -> np.ndarray:
    """`round(x / scale) + zero_point`, clamped to [0, 255], as uint8 (scale and zero_point broadcast over `x`)."""
    return np.clip(np.rint(x / scale) + zero_point, 0, _QMAX).astype(np.uint8)


def dequantize_mean(gathered: np.ndarray, scales: np.ndarray, zero_points: np.ndarray) -> np.ndarray:
    """The mean over ranks (axis 0 of `gathered`) of `scale * (q - zero_point)`, summed in rank order in float32."""
    total = np.zeros(gathered.shape[1:], np.float32)
    for q, s, z in zip(gathered, scales, zero_points):
        total += s * (q.astype(np.float32) - z)
    return total / np.float32(len(gathered))


def _group(process_group) -> c10d.ProcessGroup:
    return process_group if process_group is not None else c10d._default()


def _all_gather(arr: np.ndarray, pg: c10d.ProcessGroup) -> np.ndarray:
    """Every rank's `arr`, stacked along a new first axis."""
    out = [Tensor._wrap(np.empty_like(arr)) for _ in range(pg.size())]
    c10d.all_gather(out, Tensor._wrap(np.ascontiguousarray(arr)), group=pg)
    return np.stack([t.numpy() for t in out])


def _float32_buffer(bucket: GradBucket) -> np.ndarray:
    buf = bucket.buffer()
    if buf.dtype.name != "float32":
        raise TypeError(f"quantization hooks: expected a float32 gradient bucket; got {buf.dtype}")
    return buf.numpy()


def _done(arr: np.ndarray) -> Future:
    fut = Future()
    fut.set_result(Tensor._wrap(arr))
    return fut


def quantization_pertensor_hook(process_group, bucket: GradBucket) -> Future:
    """Average the bucket through uint8 with one scale and zero point per rank (PyTorch's
    `quantization_pertensor_hook`): all-gather each rank's qparams, then its quantized bucket, and
    dequantize and average every rank's bytes locally. Only float32 buckets."""
    x = _float32_buffer(bucket).reshape(-1)
    pg = _group(process_group)
    lo = np.float32(x.min()) if x.size else np.float32(0)
    hi = np.float32(x.max()) if x.size else np.float32(0)
    scale, zero_point = qparams(np.array([lo]), np.array([hi]))
    s_and_z = _all_gather(np.concatenate([scale, zero_point]), pg)
    me = pg.rank()
    q = _all_gather(quantize(x, s_and_z[me, 0], s_and_z[me, 1]), pg)
    return _done(dequantize_mean(q, s_and_z[:, 0], s_and_z[:, 1]))


def quantization_perchannel_hook(process_group, bucket: GradBucket, bucket_size: int = 512) -> Future:
    """As `quantization_pertensor_hook`, with a scale and zero point for each run of `bucket_size`
    elements (the bucket zero-padded to whole runs, plus a whole run of zeros where it already fits,
    as PyTorch pads), which keeps small gradients apart from large ones in a big bucket."""
    if bucket_size <= 0:
        raise ValueError(f"quantization_perchannel_hook: bucket_size must be positive; got {bucket_size}")
    x = _float32_buffer(bucket).reshape(-1)
    pg = _group(process_group)
    pad = bucket_size - x.size % bucket_size
    channels = np.concatenate([x, np.zeros(pad, np.float32)]).reshape(-1, bucket_size)
    scale, zero_point = qparams(channels.min(axis=1), channels.max(axis=1))
    s_and_z = _all_gather(np.stack([scale, zero_point]), pg)
    me = pg.rank()
    q = _all_gather(quantize(channels, s_and_z[me, 0][:, None], s_and_z[me, 1][:, None]), pg)
    mean = dequantize_mean(q, s_and_z[:, 0, :, None], s_and_z[:, 1, :, None])
    return _done(mean.reshape(-1)[:x.size].copy())
