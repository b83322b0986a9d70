"""The derivatives that involve sparse tensors beyond their values: sparse @ dense (`torch.sparse.mm`), dense for
the dense operand and, for the sparse one, its values' gradient (a sparse `grad` with its own pattern); and the
lookups `embedding`/`embedding_bag` with `sparse=True`, whose dense weight gets a sparse COO gradient.

Every other sparse op computes its values with differentiable dense ops (NOTE [ Sparse tensors beside the
dense path ] in `ember.core.sparse`); only these run kernels of their own and need these rules.
"""

from __future__ import annotations

import warnings

import numpy as np

from ember.core import sparse_ops as _sparse_ops
from ember.core import sparse_kernels as _kernels
from ember.core.dispatch import get_op, node_name
from ember.core.ops import embedding as _embedding
from ember.core.sparse import SparseTensor
from ember.core.tensor import Tensor, describe

from ember.autograd.function import Function, once_differentiable
from ember.autograd.grad_mode import _enabled

__all__ = ["SparseMm", "DenseGradMm", "EmbeddingSparse", "EmbeddingBagSparse"]


def _csr_product(ctx, values: Tensor, x: Tensor, pattern) -> Tensor:
    """A @ X for A's CSR `pattern` and `values`, saving what both products' backwards read."""
    ctx.save_for_backward(values, x)
    ctx.pattern = pattern
    return Tensor._wrap(_kernels.run_csr_mm(pattern.crow, pattern.col, values._np(), x._np()))


class SparseMm(Function):
    """out = A @ X for A's CSR `pattern` and `values`: grad_values[p] = grad[rows[p]] . X[col[p]] (the product
    sampled at the pattern), grad_X = A^T @ grad (the kernel again, over the transposed pattern)."""

    @staticmethod
    def forward(ctx, values: Tensor, x: Tensor, pattern):
        return _csr_product(ctx, values, x, pattern)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad: Tensor):
        values, x = ctx.saved_tensors
        pat = ctx.pattern
        g = grad._np()
        grad_values = grad_x = None
        if ctx.needs_input_grad[0]:
            grad_values = Tensor._wrap(_kernels.run_sampled_dot(pat.rows, pat.col, g, x._np()))
        if ctx.needs_input_grad[1]:
            tcrow, tcol, order = pat.transposed()
            grad_x = Tensor._wrap(_kernels.run_csr_mm(tcrow, tcol, values._np()[order], g))
        return grad_values, grad_x, None


class DenseGradMm(Function):
    """`torch.mm`'s out = A @ X for A's CSR `pattern` and `values`, differentiated as a dense product: A's dense
    stand-in `anchor` gets grad @ X^T (NOTE [ Dense gradients of sparse operands ] in `ember.core.sparse_ops`),
    X gets A^T @ grad."""

    @staticmethod
    def forward(ctx, anchor: Tensor, x: Tensor, pattern, values: Tensor):
        return _csr_product(ctx, values, x, pattern)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad: Tensor):
        values, x = ctx.saved_tensors
        grad_anchor = grad_x = None
        if ctx.needs_input_grad[0]:
            grad_anchor = grad.mm(x.t())
        if ctx.needs_input_grad[1]:
            tcrow, tcol, order = ctx.pattern.transposed()
            grad_x = Tensor._wrap(_kernels.run_csr_mm(tcrow, tcol, values._np()[order], grad._np()))
        return grad_anchor, grad_x, None, None


def _mm(pattern, values, x):
    return SparseMm.apply(values, x, pattern)


def _dense_grad_mm(anchor, pattern, values, x):
    return DenseGradMm.apply(anchor, x, pattern, values.detach())


_sparse_ops.set_mm(_mm, _dense_grad_mm)


def _rows_grad(rows: Tensor, ids: np.ndarray, num_weights: int, padding_idx: int) -> SparseTensor:
    """The sparse gradient of a `(num_weights, D)` table whose rows `ids` received `rows` (n, D): the ids in
    order, uncoalesced, without the padding row's entries (PyTorch's embedding_sparse_backward). The values are
    `rows` itself (a strided view, such as a sum's expanded gradient, stays one) unless a padding row is set, as
    PyTorch's: their layout decides how sparse sums combine (`ember.core.sparse._merge_add`)."""
    if padding_idx != -1:  # selected even when no id is padding: the values are then contiguous, as PyTorch's
        sel = np.flatnonzero(ids != padding_idx).astype(np.int64)
        ids, rows = ids[sel], rows.index_select(0, Tensor._wrap(sel))
    return SparseTensor._coo(Tensor._wrap(ids.reshape(1, -1)), rows, (num_weights, rows.shape[1]), ids.size < 2)


def _scale_by_freq_refused():
    raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse gradients")


class EmbeddingSparse(Function):
    """`embedding(..., sparse=True)`: the dense lookup forward; the weight's gradient is sparse (`_rows_grad`)."""

    @staticmethod
    def forward(ctx, weight, indices, padding_idx, scale_grad_by_freq):
        ctx.lookup = (np.array(indices._np(), dtype=np.int64).reshape(-1), weight.shape[0], padding_idx,
                      scale_grad_by_freq)
        return get_op("embedding")(weight, indices, padding_idx, False)

    @staticmethod
    def backward(ctx, grad):
        ids, num_weights, padding_idx, scale_grad_by_freq = ctx.lookup
        if scale_grad_by_freq:
            _scale_by_freq_refused()
        return _rows_grad(grad.reshape(-1, grad.shape[-1]), ids, num_weights, padding_idx), None, None, None


class EmbeddingBagSparse(Function):
    """`embedding_bag(..., sparse=True)` (sum or mean): each index's row of the weight's sparse gradient is its
    bag's gradient (over the bag's size for 'mean', times its per-sample weight), as PyTorch's
    _embedding_bag_sparse_backward; the per-sample weights get their dense gradient."""

    @staticmethod
    def forward(ctx, weight, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx,
                scale_grad_by_freq):
        out, bag_size, _ = get_op("embedding_bag")(weight, indices, offsets, mode, per_sample_weights,
                                                    include_last_offset, padding_idx)
        ids = np.array(indices._np(), dtype=np.int64).reshape(-1)
        o = np.array(offsets._np(), dtype=np.int64).reshape(-1)
        starts, ends = (o[:-1], np.append(o[1:-1], ids.size)[:o.size - 1]) if include_last_offset and o.size \
            else (o, np.append(o[1:], ids.size))  # the last bag runs to the end of the indices, as the dense kernel
        bag = np.searchsorted(starts, np.arange(ids.size), side="right") - 1
        inside = (bag >= 0) & (np.arange(ids.size) < ends[np.maximum(bag, 0)]) if starts.size else bag >= 0
        ctx.bags = (ids, bag, inside, bag_size, weight.shape[0], mode, padding_idx, scale_grad_by_freq)
        ctx.save_for_backward(weight, indices, offsets, per_sample_weights)
        ctx.include_last_offset = include_last_offset
        return out

    @staticmethod
    def backward(ctx, grad):
        ids, bag, inside, bag_size, num_weights, mode, padding_idx, scale_grad_by_freq = ctx.bags
        weight, indices, offsets, per_sample_weights = ctx.saved_tensors
        grad_weight = grad_psw = None
        if ctx.needs_input_grad[0]:
            if scale_grad_by_freq:
                _scale_by_freq_refused()
            sel = np.flatnonzero(inside).astype(np.int64)
            rows = grad.index_select(0, Tensor._wrap(bag[sel]))
            if mode == "mean":
                inv = (1 / bag_size.to(grad.dtype)).index_select(0, Tensor._wrap(bag[sel]))
                rows = rows * inv.unsqueeze(1)
            if per_sample_weights is not None:
                rows = rows * per_sample_weights.index_select(0, Tensor._wrap(sel)).unsqueeze(1)
            grad_weight = _rows_grad(rows, ids[sel], num_weights, padding_idx)
        if ctx.needs_input_grad[4]:
            from ember.autograd.derivatives.nn import _bag_per_sample_weights

            grad_psw = _bag_per_sample_weights(grad, weight, indices, offsets, mode, ctx.include_last_offset,
                                               padding_idx)
        return grad_weight, None, None, None, grad_psw, None, None, None


def _on_host(op: str, weight: Tensor) -> bool:
    """Whether `weight` can take a sparse gradient: ember's sparse tensors live on the CPU, so a device weight
    warns once and takes the dense lookup (a dense gradient: SGD/Adagrad/Adam train, SparseAdam refuses it)."""
    if weight.device.type == "cpu":
        return True
    warnings.warn(f"{op}: sparse=True on {describe(weight)}: ember's sparse tensors live on the CPU, so this "
                  f"weight gets a dense gradient", UserWarning, stacklevel=4)
    return False


def _embedding_sparse(weight, indices, padding_idx, scale_grad_by_freq):
    if not _enabled.get():
        return get_op("embedding")(weight, indices, padding_idx, scale_grad_by_freq)
    if not _on_host("embedding", weight):
        return get_op("embedding")(weight, indices, padding_idx, scale_grad_by_freq)
    return node_name(EmbeddingSparse.apply(weight, indices, padding_idx, scale_grad_by_freq),
                     "EmbeddingSparseBackward", "EmbeddingBackward0")


def _embedding_bag_sparse(weight, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx,
                          scale_grad_by_freq):
    if not _enabled.get() or not _on_host("embedding_bag", weight):
        return get_op("embedding_bag")(weight, indices, offsets, mode, per_sample_weights, include_last_offset,
                                       padding_idx)[0]
    return node_name(EmbeddingBagSparse.apply(weight, indices, offsets, mode, per_sample_weights,
                                              include_last_offset, padding_idx, scale_grad_by_freq),
                     "EmbeddingBagSparseBackward", "EmbeddingBagBackward0")


_embedding.set_sparse_lookups(_embedding_sparse, _embedding_bag_sparse)
