"""Derivatives of views (metadata-only ops), copies and fills."""

from __future__ import annotations

import numpy as np

from ember.core.creation import tensor
from ember.core.ops import layout as L
from ember.core.ops import shape as S
from ember.core.tensor import Tensor

from ember.autograd.derivatives._entry import derivative as d
from ember.autograd.derivatives._helpers import scatter_view, zeros_with
from ember.autograd.untracked import plain, transposed

__all__ = ["ENTRIES"]


def _permute_back(grad, dims):
    n = len(dims)
    inv = [0] * n
    for i, p in enumerate(dims):
        inv[p % n if n else 0] = i
    return S.permute(grad, tuple(inv))


def _non_overlapping(size, stride) -> bool:
    """Whether no two elements of a strided geometry share memory (stride-0 dims already summed)."""
    span = 1
    for n, s in sorted((p for p in zip(size, stride) if p[0] > 1), key=lambda p: p[1]):
        if s < span:
            return False
        span = s * (n - 1) + span
    return True


def _as_strided_backward(grad, input_geometry, size, stride, storage_offset):
    """Scatter `grad` into a zeroed copy of the storage, then read the input's elements back."""
    ishape, istrides, ioff, n_storage = input_geometry
    off = ioff if storage_offset is None else storage_offset
    size, stride = list(size), list(stride)
    zero_dims = tuple(i for i, (n, s) in enumerate(zip(size, stride)) if s == 0 and n > 1)
    if zero_dims:
        grad = grad.sum(zero_dims, keepdim=True)
        for i in zero_dims:
            size[i] = 1
    buf = zeros_with((n_storage,), grad)
    if _non_overlapping(size, stride):
        S.as_strided(buf, tuple(size), tuple(stride), off).copy_(grad)
    else:  # elements sharing memory (sliding windows): their gradients add up at that storage position
        pos = np.full(tuple(size), off, dtype=np.int64)
        for d_, (n, s) in enumerate(zip(size, stride)):
            pos += (np.arange(n, dtype=np.int64) * s).reshape((n,) + (1,) * (len(size) - d_ - 1))
        buf = buf.index_add(0, tensor(pos.reshape(-1), device=grad.device), grad.reshape(-1))
    return S.as_strided(buf, ishape, istrides, ioff)


def _unfold_backward(grad, input_shape, dimension, size, step):
    g = zeros_with(input_shape, grad)
    if not input_shape:
        return g + grad.reshape(())
    d_ = dimension % len(input_shape)
    for i in range(grad.shape[d_]):
        window = S.narrow(g, d_, i * step, size)
        window.copy_(window + S.select(grad, d_, i).movedim(-1, d_))
    return g


def _pieces_backward(grads: list, input_shape: tuple, dim: int, sizes: list[int] | None) -> Tensor:
    """The gradient of a multi-view op's input: its pieces' gradients joined along `dim` (stacked for unbind's,
    `sizes` None), zeros where a piece got none."""
    from ember.core.ops.join import cat, stack

    d = dim % len(input_shape)
    if all(g is not None for g in grads):
        return stack(grads, d) if sizes is None else cat(grads, d)
    out = zeros_with(input_shape, next(g for g in grads if g is not None))
    at = 0
    for i, g in enumerate(grads):
        if g is not None:
            (S.select(out, d, i) if sizes is None else S.narrow(out, d, at, sizes[i])).copy_(g)
        if sizes is not None:
            at += sizes[i]
    return out


def _split_lengths(n: int, split_size: int, pieces: int) -> list[int]:
    return [min(split_size, n - i * split_size) for i in range(pieces)] if n else [0]


def _squeeze_backward(grad, input_shape, dim):
    """PyTorch's `unsqueeze_to`: one unsqueeze per squeezed dim (the gradient itself where none was), so a
    double backward's graph holds UnsqueezeBackward0 nodes, not a view."""
    if grad.ndim == len(input_shape):
        return grad
    dims = None if dim is None else {d_ % len(input_shape) for d_ in ((dim,) if isinstance(dim, int) else dim)}
    for i, n in enumerate(input_shape):
        if n == 1 and (dims is None or i in dims):
            grad = S.unsqueeze(grad, i)
    return grad


def _to_device(grad: Tensor, device) -> Tensor:
    return grad if grad.device == device else grad.to(device)


ENTRIES = [
    d("view(input, shape)", input=lambda grad, input_shape: grad.reshape(input_shape)),
    d("_unsafe_view(input, shape)", input=lambda grad, input_shape: grad.reshape(input_shape)),
    d("as_strided(input, size, stride, storage_offset=None)", input=_as_strided_backward),
    d("permute(input, dims)", input=lambda grad, dims: _permute_back(grad, dims)),
    d("transpose(input, dim0, dim1)", input=lambda grad, dim0, dim1: transposed(grad, dim0, dim1) if grad._shape and
      plain(grad) else S.transpose(grad, dim0, dim1)),
    d("expand(input, size)", input=lambda grad: grad),  # the engine sums over the expanded dims
    d("squeeze(input, dim=None)", input=_squeeze_backward),
    d("unsqueeze(input, dim)", input=lambda grad, dim: L.squeeze(grad, dim)),
    d("select(input, dim, index)", input=lambda grad, input_shape, dim, index: scatter_view(
        grad, input_shape, lambda z: S.select(z, dim, index))),
    d("slice(input, dim, start, stop, step=1)", input=lambda grad, input_shape, dim, start, stop, step: scatter_view(
        grad, input_shape, lambda z: S.slice(z, dim, start, stop, step))),
    d("narrow(input, dim, start, length)", input=lambda grad, input_shape, dim, start, length: scatter_view(
        grad, input_shape, lambda z: S.narrow(z, dim, start, length))),
    d("unbind(input, dim=0)", input=lambda grads, input_shape, dim: _pieces_backward(grads, input_shape, dim, None)),
    d("split(input, split_size, dim=0)", input=lambda grads, input_shape, split_size, dim: _pieces_backward(
        grads, input_shape, dim, _split_lengths(input_shape[dim], split_size, len(grads)))),
    d("split_with_sizes(input, split_sizes, dim=0)",
      input=lambda grads, input_shape, split_sizes, dim: _pieces_backward(grads, input_shape, dim, list(split_sizes))),
    d("unfold(input, dimension, size, step)", input=_unfold_backward),
    d("diagonal(input, offset=0, dim1=0, dim2=1)", input=lambda grad, input_shape, offset, dim1, dim2: scatter_view(
        grad, input_shape, lambda z: S.diagonal(z, offset, dim1, dim2))),
    # overwritten values get a zero gradient (an edge, not None: the old history is still visited)
    d("copy_(self, src, non_blocking=False)", name="CopyBackwards",
      self=lambda grad: zeros_with(tuple(grad.shape), grad), src=lambda grad, src_device: _to_device(grad, src_device)),
    d("clone(input, *, memory_format=None)", input=lambda grad: grad),
    d("to_dtype(input, dtype)", name="ToCopyBackward0", input=lambda grad: grad),
    d("fill_(self, value)", self=lambda grad: zeros_with(tuple(grad.shape), grad), value=None),
]
