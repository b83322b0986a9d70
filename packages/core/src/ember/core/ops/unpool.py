"""Max unpooling (1-D, 2-D, 3-D): each value written at its flat index into zeroed planes.

One primitive, `max_unpool(input, indices, output_size)`, serves every rank: the spatial dims
are flattened, as the pooling ops' indices are flat positions in their input plane. The CPU
kernel checks every index value before writing (PyTorch's "Found an invalid max index");
the meta step checks shapes and the index dtype, and a device's index values on the host. The
backward gathers the gradient at the same indices.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import declare, node_name
from ember.core.ops._util import wrap
from ember.core.tensor import Tensor

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d", "max_unpool"]

max_unpool = declare("max_unpool", doc="""Scatter pooled values back to their flat indices.

Positional signature: `max_unpool(input, indices, output_size)`: input and int64 indices of
one shape `(*, C, *spatial_in)`, output_size the unpooled spatial sizes (1 to 3 ints); each
value lands at `indices` (a flat position in its output plane), zeros elsewhere. Backward:
the gradient gathered at `indices`.""")

_NAMES = {1: "max_unpooling1d", 2: "max_unpooling2d", 3: "max_unpooling3d"}


@max_unpool.meta
def _max_unpool_meta(input, indices, output_size) -> None:
    nd = len(output_size)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Input to {_NAMES.get(nd, 'max_unpooling')} should be a {nd + 1}d or {nd + 2}d Tensor, "
                           f"but got a tensor with {input.ndim} dimensions.")
    if indices._dtype is not dtypes.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: "
                           f"{dtypes.TORCH_NAMES.get(indices._dtype.name, indices._dtype.name)}")
    if tuple(indices._shape) != tuple(input._shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input._shape)}) but got indices tensor with shape: {list(indices._shape)}")
    if any(int(s) <= 0 for s in output_size):
        raise RuntimeError(f"max_unpool: output sizes must be positive; got {list(output_size)}")
    if indices._storage.device.type != "cpu" and indices.numel():
        # a device kernel would skip a bad index: read them to the host (a synchronization, as PyTorch's
        # device-side assert) so CUDA raises the CPU's error; the CPU kernel checks them as it writes
        _check_values(np.asarray(indices._host_array()), output_size)


def _check_values(idx: np.ndarray, output_size) -> None:
    """Every flat index lies in its output plane, else PyTorch's "Found an invalid max index" naming, as its
    kernel does, the last bad index of the first plane holding one."""
    planes = idx.reshape(-1, math.prod(idx.shape[-len(output_size):]))
    bad = (planes < 0) | (planes >= math.prod(output_size))
    if bad.any():
        first = int(bad.any(axis=1).argmax())
        raise _invalid(int(planes[first][bad[first]][-1]), output_size)


def _invalid(bad: int, output_size) -> RuntimeError:
    sizes = "x".join(str(int(s)) for s in output_size) + ("x1" if len(output_size) == 1 else "")
    return RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size {sizes})")


@max_unpool.register("cpu")
def _max_unpool_cpu(input, indices, output_size):
    nd = len(output_size)
    lead = tuple(input._shape[:-nd])
    plane = math.prod(output_size)
    x = input._np().reshape(math.prod(lead), math.prod(input._shape[-nd:]))
    idx = np.ascontiguousarray(indices._np()).reshape(x.shape)
    out = np.zeros((x.shape[0], plane), dtype=x.dtype)
    if idx.size:
        _check_values(idx, output_size)
        out[np.arange(x.shape[0])[:, None], idx] = x
    return wrap(out.reshape(lead + tuple(int(s) for s in output_size)))


def _tuple(v, nd: int) -> tuple[int, ...]:
    """PyTorch's `_ntuple`: an int repeated, a sequence as given (its length unchecked: `_output_size` counts)."""
    if isinstance(v, numbers.Integral):
        return (int(v),) * nd
    return tuple(int(a) for a in v)


def _output_size(input: Tensor, k, s, p, output_size, nd: int) -> tuple[int, ...]:
    """PyTorch's `_unpool_output_size`: the default, or a given size within one stride of it, as many dims as the
    kernel has (a stride or padding shorter than it is an IndexError, as there); then its kernel's count check."""
    n = len(k)
    default = [(input.shape[input.ndim - n + d] - 1) * s[d] + k[d] - 2 * p[d] for d in range(n)]
    if output_size is None:
        size = default
    else:
        size = [int(v) for v in output_size]
        if len(size) == n + 2:
            size = size[2:]
        if len(size) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a "
                             f"length of '{len(size)}'")
        for d in range(n):
            lo, hi = default[d] - s[d], default[d] + s[d]
            if not lo < size[d] < hi:
                raise ValueError(f'invalid output_size "{tuple(size)}" (dim {d} must be between {lo} and {hi})')
    if len(size) != nd:  # PyTorch's 1-D unpool is its 2-D one with a unit width
        words = ("three", "(depth, height, width)") if nd == 3 else ("two", "(height, width)")
        raise RuntimeError(f"There should be exactly {words[0]} elements {words[1]} in output_size, but got "
                           f"{len(size) + (nd == 1)} elements.")
    return tuple(size)


def _unpool(input: Tensor, indices: Tensor, kernel_size, stride, padding, output_size, nd: int) -> Tensor:
    for name, t in (("input", input), ("indices", indices)):
        if not isinstance(t, Tensor):
            raise TypeError(f"max_unpool{nd}d(): argument '{name}' must be Tensor, not {type(t).__name__}")
    k = _tuple(kernel_size, nd)
    s = k if stride is None else _tuple(stride, nd)
    p = _tuple(padding, nd)
    if input.ndim < nd:
        raise RuntimeError(f"Input to max_unpooling{nd}d should be a {nd + 1}d or {nd + 2}d Tensor, but got a tensor "
                           f"with {input.ndim} dimensions.")
    if not input._dtype.is_floating_point and input.numel():  # PyTorch's kernels: floats (1-D runs the 2-D one)
        from ember.core.ops.numeric import not_implemented_for

        raise not_implemented_for(f"max_unpool{max(nd, 2)}d", input._dtype)
    out = max_unpool(input, indices, _output_size(input, k, s, p, output_size, nd))
    names = ("SqueezeBackward1", "MaxUnpool2DBackward0", "MaxUnpool3DBackward0")  # PyTorch's (1-D: a view of 2-D)
    return node_name(out, "MaxUnpoolBackward0", names[nd - 1])


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0,
                 output_size=None) -> Tensor:
    """The partial inverse of max_pool1d over `(N, C, L)` or `(C, L)`: values at their indices, zeros elsewhere.

    >>> import ember.core as ec
    >>> ec.max_unpool1d(ec.tensor([[[5.0]]]), ec.tensor([[[1]]]), 2).tolist()
    [[[0.0, 5.0]]]
    """
    return _unpool(input, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0,
                 output_size=None) -> Tensor:
    """The partial inverse of max_pool2d, as `torch.nn.functional.max_unpool2d`.

    Args:
        input, indices: max_pool2d's output and indices, `(N, C, H, W)` or `(C, H, W)`.
        kernel_size, stride (default kernel_size), padding: what the pooling used.
        output_size: the unpooled `(H, W)` (or `(N, C, H, W)`); default `(H - 1) * stride - 2 * padding + kernel_size`.
    Raises:
        RuntimeError: an index outside the output plane, indices of another shape or not int64.
        ValueError: an output_size more than a stride away from the default.

    >>> import ember.core as ec
    >>> out, idx = ec.max_pool2d(ec.tensor([[[1.0, 4.0], [3.0, 2.0]]]), 2, return_indices=True)
    >>> ec.max_unpool2d(out, idx, 2).tolist()
    [[[0.0, 4.0], [0.0, 0.0]]]
    """
    return _unpool(input, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0,
                 output_size=None) -> Tensor:
    """The partial inverse of max_pool3d over `(N, C, D, H, W)` or `(C, D, H, W)`."""
    return _unpool(input, indices, kernel_size, stride, padding, output_size, 3)
