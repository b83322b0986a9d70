"""Small tensor functions the rules share (all ember ops, so they record under create_graph)."""

from __future__ import annotations

from ember.core.tensor import Tensor


def sum_to(g: Tensor, shape: tuple) -> Tensor:
    """`g` summed over the dims along which `shape` was broadcast to `g`'s shape."""
    lead = g.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and g.shape[lead + i] != 1)
    if dims:
        g = g.sum(dims, keepdim=True)
    return g.reshape(shape) if tuple(g.shape) != tuple(shape) else g


def zeros_with(shape: tuple, like: Tensor) -> Tensor:
    """Zeros of `shape` with `like`'s dtype and device."""
    from ember.core import zeros

    return zeros(shape, dtype=like.dtype, device=like.device)


def scatter_view(grad: Tensor, shape: tuple, view_fn) -> Tensor:
    """Zeros of `shape` with `grad` written into the view `view_fn(zeros)` (select/slice backward)."""
    g = zeros_with(shape, grad)
    view_fn(g).copy_(grad)
    return g


def where0(mask: Tensor, g: Tensor) -> Tensor:
    """`g` where `mask` holds, 0 elsewhere."""
    from ember.core import where

    return where(mask, g, 0.0)
