"""Fractional max pooling (Graham, 2014) in 2-D and 3-D.

Each plane pools over windows of `kernel_size` whose starts are pseudo-random: one sample `u`
in [0, 1) per plane and dim gives the starts `int((i + u) alpha) - int(u alpha)`, `alpha = (n_in
- k) / (n_out - 1)`, the last window ending at the input's end (PyTorch's `generate_intervals`,
computed in the input's dtype as PyTorch does). Samples come from `_random_samples` `(N, C, nd)`
(W first, then H, for 2-D; T, H, W for 3-D, as PyTorch orders them).

`fractional_max_pool(input, kernel_size, output_size, samples)` returns `(output, indices)`,
indices flat in the input plane as max pooling's are, so the backward is `max_pool2d_backward`
over the flattened planes.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ember.core.dispatch import declare, node_name
from ember.core.ops._util import wrap
from ember.core.tensor import Tensor

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d"]

_DIM_WORDS = {2: ("height", "width"), 3: ("time", "height", "width")}
_CHUNK = 1 << 22  # window elements gathered at once (32 MiB of int64 positions)

fractional_max_pool = declare("fractional_max_pool", doc="""Fractional max pooling returning (output, indices).

Positional signature: `fractional_max_pool(input, kernel_size, output_size, samples)`: input
`(N, C, *spatial)` or `(C, *spatial)` with 2 or 3 spatial dims, kernel_size and output_size
tuples of that many ints, samples `(N, C, nd)` in [0, 1) of the input's dtype. Indices (int64)
are flat positions in each input plane. Backward: `max_pool2d_backward` over the flattened
planes.""")


def _name(nd: int) -> str:
    return f"fractional_max_pool{nd}d"


def _kernel_name(nd: int) -> str:
    """The name PyTorch's shape errors use (`fractional_max_pool3d_out` for 3-D)."""
    return "fractional_max_pool2d" if nd == 2 else "fractional_max_pool3d_out"


def _check(input, kernel_size, output_size, samples) -> None:
    nd = len(kernel_size)
    op = _kernel_name(nd)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{op}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(input._shape)}")
    for i in range(1, input.ndim):
        if input._shape[i] <= 0:
            raise RuntimeError(f"{op}(): Expected input to have non-zero size for non-batch dimensions, but got "
                               f"{list(input._shape)} with dimension {i} being empty.")
    if min(kernel_size) <= 0:
        raise RuntimeError(f"{op}(): kernel_size must be greater than zero; got {list(kernel_size)}")
    if min(output_size) < 0:
        raise RuntimeError(f"{op}(): output_size must be non-negative; got {list(output_size)}")
    spatial = input._shape[-nd:]
    checks = list(zip(_DIM_WORDS[nd], output_size, kernel_size, spatial))
    if nd == 3:  # PyTorch's 3-D kernel wants a window's span strictly inside the input, and checks width before height
        checks = [checks[0], checks[2], checks[1]]
    for word, o, k, n in checks:
        if o + k - 1 > n - (nd == 3):
            raise RuntimeError(f"{op}(): pool {word} {k} too large relative to input {word} {n}")
    if samples._dtype is not input._dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to be 3D tensor, got: {samples.ndim}D")
    batch = input._shape[0] if input.ndim == nd + 2 else 1
    if samples._shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples._shape[1] != input._shape[-nd - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples._shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got {samples._shape[2]}.")


@fractional_max_pool.meta
def _fractional_max_pool_meta(input, kernel_size, output_size, samples) -> None:
    _check(input, kernel_size, output_size, samples)


def _starts(u: np.ndarray, n_in: int, n_out: int, k: int) -> np.ndarray:
    """`(P, n_out)` window starts for the samples `u` `(P,)`, in the samples' dtype as PyTorch computes them."""
    dt = u.dtype.type
    starts = np.empty((u.shape[0], n_out), dtype=np.int64)
    if n_out > 1:
        alpha = dt(n_in - k) / dt(n_out - 1)
        i = np.arange(n_out - 1, dtype=u.dtype)[None, :]
        with np.errstate(invalid="ignore"):
            starts[:, :-1] = ((i + u[:, None]) * alpha).astype(np.int64) - (u[:, None] * alpha).astype(np.int64)
    if n_out > 0:
        starts[:, -1] = n_in - k
    return starts


def plane_samples(input: Tensor, samples: Tensor, nd: int) -> np.ndarray:
    """The `(planes, nd)` samples of the input's planes (the first batch rows of `samples`), on the host."""
    batch = input._shape[0] if input.ndim == nd + 2 else 1
    s = samples if samples._storage.device.type == "cpu" else samples.cpu()
    return np.ascontiguousarray(s._np()[:batch]).reshape(-1, nd)


def window_positions(samples: np.ndarray, spatial, kernel_size, output_size) -> np.ndarray:
    """`(P, prod(output_size), prod(kernel_size))` flat input-plane positions of every window element,
    windows in output order and elements in scan order (last dim fastest)."""
    nd = len(spatial)
    order = list(range(nd))[::-1] if nd == 2 else list(range(nd))  # sample index of each spatial dim
    bad = ~((samples >= 0) & (samples < 1))
    if bad.any():
        raise RuntimeError(f"{_name(nd)}(): _random_samples must be in [0, 1); got {samples[bad][0]}")
    flat = np.zeros((samples.shape[0],) + tuple(output_size) + tuple(kernel_size), dtype=np.int64)
    stride = 1
    for d in reversed(range(nd)):
        st = _starts(samples[:, order[d]], spatial[d], output_size[d], kernel_size[d])  # (P, n_out)
        pos = st[:, :, None] + np.arange(kernel_size[d])[None, None, :]  # (P, n_out, k)
        shape = [samples.shape[0]] + [1] * (2 * nd)
        shape[1 + d], shape[1 + nd + d] = output_size[d], kernel_size[d]
        flat += pos.reshape(shape) * stride
        stride *= spatial[d]
    return flat.reshape(samples.shape[0], math.prod(output_size), math.prod(kernel_size))


@fractional_max_pool.register("cpu")
def _fractional_max_pool_cpu(input, kernel_size, output_size, samples):
    nd = len(kernel_size)
    spatial = tuple(input._shape[-nd:])
    lead = tuple(input._shape[:-nd])
    x = input._np().reshape(math.prod(lead), math.prod(spatial))
    u = plane_samples(input, samples, nd)
    m = math.prod(output_size)
    out = np.empty((x.shape[0], m), x.dtype)
    idx = np.empty((x.shape[0], m), np.int64)
    step = max(1, _CHUNK // max(1, m * math.prod(kernel_size)))  # planes per chunk: bounded scratch memory
    for lo in range(0, x.shape[0], step):
        hi = min(lo + step, x.shape[0])
        pos = window_positions(u[lo:hi], spatial, kernel_size, output_size)
        vals = np.take_along_axis(x[lo:hi], pos.reshape(hi - lo, -1), 1).reshape(pos.shape)
        pick = np.argmax(vals, axis=-1)
        isnan = np.isnan(vals)
        if isnan.any():  # PyTorch's `val > max || isnan(val)`: the last NaN of a window wins
            last_nan = isnan.shape[-1] - 1 - np.argmax(isnan[..., ::-1], axis=-1)
            pick = np.where(isnan.any(-1), last_nan, pick)
        out[lo:hi] = np.take_along_axis(vals, pick[..., None], -1)[..., 0]
        idx[lo:hi] = np.take_along_axis(pos, pick[..., None], -1)[..., 0]
    shape = lead + tuple(output_size)
    return wrap(out.reshape(shape)), wrap(idx.reshape(shape))


def _tuple(v, nd: int, what: str, op: str) -> tuple:
    if isinstance(v, numbers.Number):
        return (v,) * nd
    v = tuple(v)
    if len(v) == 1:
        return v * nd
    if len(v) != nd:
        raise RuntimeError(f"{op}: {what} must either be a single Int or tuple of Ints")
    return v


def _fractional(input: Tensor, kernel_size, output_size, output_ratio, return_indices, _random_samples, nd: int):
    op = _name(nd)
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if output_size is None and output_ratio is None:
        raise ValueError(f"{op} requires specifying either an output_size or an output_ratio")
    k = tuple(int(a) for a in _tuple(kernel_size, nd, "kernel_size", op))
    if output_size is None:
        if not isinstance(output_ratio, numbers.Number) and len(output_ratio) > nd:
            raise ValueError(f"{op} requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = _tuple(output_ratio, nd, "output_ratio", op)
        output_size = [int(input.size(d - nd) * ratio[d]) for d in range(nd)]
    out = tuple(int(a) for a in _tuple(output_size, nd, "output_size", op))
    from ember.core.ops.numeric import not_implemented_for

    dt = input._dtype
    if _random_samples is None:
        from ember.core.random import rand

        # PyTorch's Python draws them (sizes first, an IndexError for too few dims) before its kernel's rank check
        n_batch, channels = 1 if input.ndim == nd + 1 else input.size(0), input.size(-nd - 1)
        if not (dt.is_floating_point or dt.is_complex):  # PyTorch draws the samples in the input's dtype
            raise not_implemented_for("check_uniform_bounds", dt)
        _random_samples = rand(n_batch, channels, nd, dtype=input.dtype, device=input.device)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{op}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(input.shape)}")
    if not dt.is_floating_point and isinstance(_random_samples, Tensor) and _random_samples._dtype is dt:
        raise not_implemented_for(f"fractional_max_pool{nd}d_out_frame", dt)  # PyTorch's kernels: floats only
    values, indices = fractional_max_pool(input, k, out, _random_samples)
    node_name(values, "FractionalMaxPoolBackward0", f"FractionalMaxPool{nd}DBackward0")
    return (values, indices) if return_indices else values


def fractional_max_pool2d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples: Tensor | None = None):
    """Fractional max pooling of `(N, C, H, W)` or `(C, H, W)`, as `torch.nn.functional.fractional_max_pool2d`.

    Args:
        kernel_size: the window, an int or a pair. output_size: `(H_out, W_out)`, or output_ratio: a
            fraction of the input's size (one of the two).
        return_indices: also return each maximum's flat `h * W + w` index (for max_unpool2d).
        _random_samples: `(N, C, 2)` samples in [0, 1) (default: drawn from the global generator).
    Raises:
        ValueError: neither output_size nor output_ratio. RuntimeError: a window too large for the input,
            samples of the wrong shape, dtype or range.

    >>> import ember.core as ec
    >>> x = ec.arange(16.0).reshape(1, 1, 4, 4)
    >>> ec.fractional_max_pool2d(x, 2, output_size=2, _random_samples=ec.zeros(1, 1, 2)).tolist()
    [[[[5.0, 7.0], [13.0, 15.0]]]]
    """
    return _fractional(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 2)


def fractional_max_pool3d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples: Tensor | None = None):
    """Fractional max pooling of `(N, C, T, H, W)` or `(C, T, H, W)`; `_random_samples` `(N, C, 3)`.
    As `fractional_max_pool2d` otherwise."""
    return _fractional(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 3)
