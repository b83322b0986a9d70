"""Small tensor functions the rules share (all ember ops, so they record under create_graph)."""

from __future__ import annotations

import numpy as np

from ember.core import dispatch as _dispatch
from ember.core import dtypes
from ember.core.dispatch import Op
from ember.core.ops.shape import expand as _expand
from ember.core.tensor import Tensor

_NUMPY_ZEROS = (dtypes.float32, dtypes.float64)  # dtypes whose CPU zeros numpy makes as `zeros` does
_REDISPATCH = Op.redispatch  # the dispatcher's `call_next` below its topmost hook when that hook is the only one


def zeros_with(shape: tuple, like: Tensor) -> Tensor:
    """Zeros of `shape` with `like`'s dtype and device (a slice's or index's backward makes one per node: on the
    CPU straight from numpy, without `zeros`' argument parsing and fill, where autograd's is the dispatcher's only
    hook; a capture or a profiler sees the `zeros` op)."""
    dt = like._dtype
    if dt in _NUMPY_ZEROS and like._storage.device.type == "cpu" and _dispatch._top_next is _REDISPATCH:
        return Tensor._wrap(np.zeros(shape, dt.np))
    from ember.core import zeros

    return zeros(shape, dtype=dt, device=like.device)


def scatter_view(grad: Tensor, shape: tuple, view_fn) -> Tensor:
    """Zeros of `shape` with `grad` written into the view `view_fn(zeros)` (select/slice backward)."""
    g = zeros_with(shape, grad)
    view_fn(g).copy_(grad)
    return g


def where0(mask: Tensor, g: Tensor) -> Tensor:
    """`g` where `mask` holds, 0 elsewhere."""
    from ember.core.ops.elementwise import where

    return where(mask, g, 0.0)


def unreduce(grad: Tensor, input_shape: tuple, dims: tuple, keepdim: bool) -> Tensor:
    """`grad` of a reduction over `dims` expanded back to `input_shape` (keepdim-aware)."""
    if grad._shape:  # a 0-dim grad (a full reduction) expands as it is
        kshape = tuple([1 if i in dims else n for i, n in enumerate(input_shape)])
        if grad._shape != kshape:
            grad = grad.reshape(kshape)
    return _expand(grad, input_shape)


def keep(t: Tensor, input_shape: tuple, dims: tuple) -> Tensor:
    """A reduced tensor (values or indices) reshaped with size-1 dims at `dims`."""
    return t.reshape(tuple(1 if i in dims else n for i, n in enumerate(input_shape)))


def scatter_into(grad: Tensor, input_shape: tuple, dim: int, indices: Tensor) -> Tensor:
    """Zeros of `input_shape` with `grad` added at `indices` along `dim` (index-selecting ops)."""
    from ember.core.ops.indexing import scatter_add

    if not input_shape:
        return grad.reshape(())
    return scatter_add(zeros_with(input_shape, grad), dim, indices, grad)


def put_into(grad: Tensor, input_shape: tuple, dim: int, indices: Tensor, keepdim: bool = True) -> Tensor:
    """Zeros of `input_shape` with `grad` written at `indices` along `dim`, whose indices are distinct in each row
    (sort, topk and the one-index selections: max_dim, kthvalue, median...); `keepdim=False`: `grad` and `indices`
    lack `dim`. On the CPU outside create_graph one flat numpy store: the forward's indices need none of
    scatter_add's checks."""
    dt = grad._dtype
    if dt in _NUMPY_ZEROS and input_shape and grad.__class__ is Tensor and grad._storage.device.type == "cpu" \
            and not grad.requires_grad and _dispatch._top_next is _REDISPATCH:
        pre = 1
        for s in input_shape[:dim]:
            pre *= s
        n = input_shape[dim]
        post = 1
        for s in input_shape[dim + 1:]:
            post *= s
        k = indices._shape[dim] if keepdim else 1
        g = np.zeros(input_shape, dt.np)
        at = indices._np().reshape(pre, k, post) * post
        at += np.arange(pre).reshape(pre, 1, 1) * (n * post)
        if post > 1:
            at += np.arange(post)
        g.reshape(-1)[at] = grad._np().reshape(pre, k, post)
        return Tensor._wrap(g)
    if not keepdim and input_shape:
        grad, indices = grad.unsqueeze(dim), indices.unsqueeze(dim)
    if not input_shape:
        return grad.reshape(())
    from ember.core.ops.indexing import scatter

    # distinct indices: a write, not an add (ScatterBackward0 under create_graph, as PyTorch's)
    return scatter(zeros_with(input_shape, grad), dim, indices, grad)


def not_implemented(what: str):
    """A rule that raises when it is needed: a derivative ember does not provide (yet)."""
    def rule():
        raise NotImplementedError(f"the derivative for '{what}' is not implemented.")
    rule.not_implemented = True  # read by Derivative: evaluated only where the running backward wants it
    return rule


def cj(v):
    """The conjugate of a complex tensor or number, a real one as it is. PyTorch's gradient of a
    complex input is the conjugate Wirtinger derivative: a rule multiplies `grad` by conj(f'(z))."""
    if isinstance(v, Tensor):
        return v.conj_physical() if v._dtype.is_complex else v
    return v.conjugate() if type(v) is complex else v
