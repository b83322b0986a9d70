"""Derivatives of advanced indexing, gather/scatter, masks, and joining/flipping/triangles."""



from __future__ import annotations

import numpy as np

from ember.core.dispatch import get_op
from ember.core.ops import elementwise as ew
from ember.core.ops import indexing as ix
from ember.core.ops import shape as S
from ember.core.ops.join import where
from ember.core.sparse import SparseTensor
from ember.core.tensor import Tensor

from ember.autograd.derivatives._entry import derivative as d
from ember.autograd.derivatives._helpers import not_implemented, where0, zeros_with
from ember.autograd.untracked import plain

__all__ = ["ENTRIES", "COMPOSITE_ENTRIES"]


def _index_backward(grad, input_shape, indices):
    g = zeros_with(input_shape, grad)
    return get_op("index_put_")(g, indices, grad, True)


def _masked_select_backward(grad, input_shape, mask):
    shape = tuple(np.broadcast_shapes(input_shape, tuple(mask.shape)))
    return ix.masked_scatter(zeros_with(shape, grad), mask.expand(shape), grad)


def _masked_scatter_source(grad, mask, source_shape):
    sel = ix.masked_select(grad, mask)
    n = 1
    for s in source_shape:
        n *= s
    flat = zeros_with((n,), grad)
    S.narrow(flat, 0, 0, sel.shape[0]).copy_(sel)
    return flat.reshape(source_shape)


def _gather_backward(grad, input_shape, dim, index, sparse_grad):
    if sparse_grad and grad.device.type == "cpu":
        return _gather_sparse_grad(grad, input_shape, dim, index)
    return ix.scatter_add(zeros_with(input_shape, grad), dim, index, grad)


def _gather_sparse_grad(grad, input_shape, dim, index):
    """`gather(..., sparse_grad=True)`'s uncoalesced COO gradient (PyTorch's _gather_sparse_backward): one entry
    per gathered element, at the element's own coordinates with `dim`'s replaced by its index (ember's sparse
    tensors live on the CPU, so a device input keeps the dense gradient)."""
    idx = index._np()
    if len(input_shape) == 0 or idx.ndim == 0:
        coords = idx.reshape(len(input_shape), -1)
    else:
        coords = np.indices(idx.shape).reshape(idx.ndim, -1)
        coords[dim % idx.ndim] = idx.reshape(-1)
    values = grad.reshape(-1)
    return SparseTensor._coo(Tensor._wrap(coords.astype(np.int64)), values, tuple(input_shape), values.shape[0] < 2)


def _cat_backward(grad, tensors_shape, dim):
    d_ = dim % grad.ndim
    res, off = [], 0
    for shape in tensors_shape:
        if shape is None:
            res.append(None)
            continue
        if len(shape) == 1 and shape[0] == 0 and grad.ndim != 1:
            res.append(zeros_with(shape, grad))
            continue
        res.append(S.narrow(grad, d_, off, shape[d_]))
        off += shape[d_]
    return res


def _stack_backward(grad, tensors_shape, dim):
    """Each input's slice of `grad` along the new dim (PyTorch's `unbind`): bare views in a plain backward (NOTE
    [ Backward products computed at once ])."""
    d_ = dim % grad.ndim
    if plain(grad):
        shape, strides = grad._shape[:d_] + grad._shape[d_ + 1:], grad._strides[:d_] + grad._strides[d_ + 1:]
        step, make, st, dt, off = grad._strides[d_], Tensor._make, grad._storage, grad._dtype, grad._offset
        return [None if s is None else make(st, off + i * step, shape, strides, dt)
                for i, s in enumerate(tensors_shape)]
    return [None if shape is None else S.select(grad, d_, i) for i, shape in enumerate(tensors_shape)]


# composites PyTorch records as one node (`record.computed`; see reduce.COMPOSITE_ENTRIES)
COMPOSITE_ENTRIES = [
    d("stack(tensors, dim=0)", tensors=_stack_backward),
]


def _counts(input, dim, index, include_self):
    """How many values each element of a scatter_reduce result combines."""
    from ember.core import ones_like

    base = ones_like(input) if include_self else input * 0.0
    return ix.scatter_add(base, dim, index, ones_like(index, dtype=input.dtype))


def _scatter_reduce_grads(grad, input, dim, index, src, reduce, include_self, result, grad_input_mask):
    """scatter_reduce's gradients: sum and mean spread the gradient; amax/amin share it evenly
    among the values equal to the result; prod divides the result (zeros as `_scatter_prod_grads`). The forward's
    'max'/'min' spellings have no derivative, as in PyTorch."""
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError(f"Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got {reduce}.")
    if reduce == "sum":
        gi = grad if include_self else ix.scatter(grad, dim, index, 0.0)
        return gi, ix.gather(grad, dim, index)
    if reduce == "mean":
        g = grad / ew.maximum(_counts(input, dim, index, include_self), 1.0)
        gi = g if include_self else ix.scatter(grad, dim, index, 0.0)
        return gi, ix.gather(g, dim, index)
    if reduce in ("amax", "amin"):  # ties with self count even without include_self, as in PyTorch
        hit_self = input == result
        hit_src = src == ix.gather(result, dim, index)
        n = ix.scatter_add(hit_self.to(grad.dtype), dim, index, hit_src.to(grad.dtype))
        g = grad / ew.maximum(n, 1.0)
        gi = where0(hit_self, g)
        return (gi if include_self else ix.scatter(gi, dim, index, 0.0)), where0(hit_src, ix.gather(g, dim, index))
    return _scatter_prod_grads(grad, input, dim, index, src, include_self, result)


def _scatter_prod_grads(grad, input, dim, index, src, include_self, result):
    """prod's gradients, PyTorch's way around zeros: a zero input takes the product of its segment's sources,
    a source that is its segment's only zero the product of the rest (`result / x` would be 0/0 there)."""
    masked_self = ix.masked_fill(input, input == 0, 1)
    gi = grad * ix.scatter_reduce(masked_self, dim, index, src, "prod", include_self=include_self) / masked_self
    src_zero = src == 0
    zeros = ix.gather(ix.scatter_add(input * 0, dim, index, src_zero.to(input.dtype)), dim, index)
    single = src_zero & (zeros == 1)
    rest = ix.scatter_reduce(input, dim, index, ix.masked_fill(src, single, 1), "prod", include_self=include_self)
    gs = where(single, ix.gather(grad * rest, dim, index),
                  ix.gather(grad * result, dim, index) / ix.masked_fill(src, src_zero, 1))
    return (gi if include_self else ix.scatter(gi, dim, index, 0.0)), gs


def _scatter_input(grad, reduce, dim, index):
    if reduce == "multiply":
        return not_implemented("scatter with reduce='multiply'")()
    return grad if reduce == "add" else ix.scatter(grad, dim, index, 0.0)


def _scatter_src(grad, reduce, dim, index):
    if reduce == "multiply":
        return not_implemented("scatter with reduce='multiply'")()
    return ix.gather(grad, dim, index)


ENTRIES = [
    d("index(input, indices)", indices=None, input=_index_backward),
    d("index_put_(self, indices, values, accumulate=False)", name="IndexPutBackward0", indices=None,
      self=lambda grad, indices, accumulate: grad if accumulate else get_op("index_put_")(grad.clone(), indices,
                                                                                          0.0, False),
      values=lambda grad, indices: get_op("index")(grad, indices)),
    d("gather(input, dim, index, *, sparse_grad=False)", index=None, input=_gather_backward),
    d("scatter(input, dim, index, src, reduce=None)", index=None, input=_scatter_input, src=_scatter_src),
    d("scatter_add(input, dim, index, src)", index=None, input=lambda grad: grad,
      src=lambda grad, dim, index: ix.gather(grad, dim, index)),
    d("scatter_reduce(input, dim, index, src, reduce, *, include_self=True)", index=None,
      **{"input, src": _scatter_reduce_grads}),
    d("index_select(input, dim, index)", index=None,
      input=lambda grad, input_shape, dim, index: ix.index_add(zeros_with(input_shape, grad), dim, index, grad)),
    d("index_add(input, dim, index, source, *, alpha=1)", index=None, input=lambda grad: grad,
      source=lambda grad, dim, index, alpha, source_shape: (ix.index_select(grad, dim, index) * alpha).reshape(
          source_shape) if len(source_shape) == 0 else ix.index_select(grad, dim, index) * alpha),
    d("index_copy(input, dim, index, source)", index=None,
      input=lambda grad, dim, index: ix.index_fill(grad, dim, index, 0.0),
      source=lambda grad, dim, index, source_shape: ix.index_select(grad, dim, index).reshape(source_shape)),
    d("index_fill(input, dim, index, value)", index=None,
      input=lambda grad, dim, index: ix.index_fill(grad, dim, index, 0.0),
      value=lambda grad, dim, index: ix.index_select(grad, dim, index).sum()),
    d("masked_fill(input, mask, value)", mask=None, input=lambda grad, mask: ew.where(mask, 0.0, grad),
      value=lambda grad, mask: where0(mask, grad).sum()),
    d("masked_select(input, mask)", mask=None, input=_masked_select_backward),
    d("masked_scatter(input, mask, source)", mask=None, input=lambda grad, mask: ew.where(mask, 0.0, grad),
      source=_masked_scatter_source),
    d("take(input, index)", index=None,
      input=lambda grad, input_shape, index: ix.put(zeros_with(input_shape, grad), index, grad, True)),
    d("put(input, index, source, accumulate=False)", index=None,
      input=lambda grad, index, accumulate, source: grad if accumulate else ix.put(grad, index, source * 0.0),
      source=lambda grad, index, source_shape: ix.take(grad, index).reshape(source_shape)),
    d("cat(tensors, dim)", tensors=_cat_backward),
    d("flip(input, dims)", input=lambda grad, dims: grad.flip(dims)),
    d("tril(input, diagonal=0)", input=lambda grad, diagonal: grad.tril(diagonal)),
    d("triu(input, diagonal=0)", input=lambda grad, diagonal: grad.triu(diagonal)),
    d("diag_embed(input, offset=0, dim1=-2, dim2=-1)",
      input=lambda grad, offset, dim1, dim2: S.diagonal(grad, offset, dim1, dim2)),
]
