"""The derivative of sparse @ dense (`torch.sparse.mm`): dense for the dense operand, and for the sparse one
its values' gradient, so the sparse operand's `grad` is sparse with its own pattern (PyTorch's semantics).

Every other sparse op computes its values with differentiable dense ops (NOTE [ Sparse tensors beside the
dense path ] in `ember.core.sparse`); only the product runs a kernel of its own and needs this rule.
"""

from __future__ import annotations

import numpy as np

from ember.core import sparse as _sparse
from ember.core import sparse_kernels as _kernels
from ember.core.tensor import Tensor

from ember.autograd.function import Function, once_differentiable

__all__ = ["SparseMm"]


class SparseMm(Function):
    """out = A @ X for a CSR pattern (crow, col, rows) of `shape` with `values`: grad_values[p] =
    grad[rows[p]] . X[col[p]] (the product sampled at the pattern), grad_X = A^T @ grad."""

    @staticmethod
    def forward(ctx, values: Tensor, x: Tensor, crow: np.ndarray, col: np.ndarray, rows: np.ndarray, shape: tuple):
        ctx.save_for_backward(values, x)
        ctx.pattern = (crow, col, rows, shape)
        return Tensor._wrap(_kernels.run_csr_mm(crow, col, values._np(), x._np()))

    @staticmethod
    @once_differentiable
    def backward(ctx, grad: Tensor):
        values, x = ctx.saved_tensors
        crow, col, rows, shape = ctx.pattern
        g = grad._np()
        grad_values = grad_x = None
        if ctx.needs_input_grad[0]:
            grad_values = Tensor._wrap(_kernels.run_sampled_dot(rows, col, g, x._np()))
        if ctx.needs_input_grad[1]:
            order = np.argsort(col, kind="stable")  # A^T in CSR: the pattern sorted by column
            tcrow = np.zeros(shape[1] + 1, dtype=np.int64)
            np.cumsum(np.bincount(col, minlength=shape[1]), out=tcrow[1:])
            grad_x = Tensor._wrap(_kernels.run_csr_mm(tcrow, rows[order], values._np()[order], g))
        return grad_values, grad_x, None, None, None, None


def _mm(crow, col, rows, values, x, shape):
    return SparseMm.apply(values, x, crow, col, rows, shape)


_sparse.set_mm(_mm)
