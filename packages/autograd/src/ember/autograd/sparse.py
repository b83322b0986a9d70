"""The derivative of sparse @ dense (`torch.sparse.mm`): dense for the dense operand, and for the sparse one
its values' gradient, so the sparse operand's `grad` is sparse with its own pattern (PyTorch's semantics).

Every other sparse op computes its values with differentiable dense ops (NOTE [ Sparse tensors beside the
dense path ] in `ember.core.sparse`); only the product runs a kernel of its own and needs this rule.
"""

from __future__ import annotations

from ember.core import sparse_ops as _sparse_ops
from ember.core import sparse_kernels as _kernels
from ember.core.tensor import Tensor

from ember.autograd.function import Function, once_differentiable

__all__ = ["SparseMm"]


class SparseMm(Function):
    """out = A @ X for A's CSR `pattern` and `values`: grad_values[p] = grad[rows[p]] . X[col[p]] (the product
    sampled at the pattern), grad_X = A^T @ grad (the kernel again, over the transposed pattern)."""

    @staticmethod
    def forward(ctx, values: Tensor, x: Tensor, pattern):
        ctx.save_for_backward(values, x)
        ctx.pattern = pattern
        return Tensor._wrap(_kernels.run_csr_mm(pattern.crow, pattern.col, values._np(), x._np()))

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


def _mm(pattern, values, x):
    return SparseMm.apply(values, x, pattern)


_sparse_ops.set_mm(_mm)
