"""`SparseAdam`: Adam that updates only the rows a sparse gradient stores (embedding tables), as PyTorch's.

`nn.Embedding(sparse=True)` and `EmbeddingBag(sparse=True)` give their weight a sparse COO gradient: every
looked-up row but `padding_idx`, even one whose gradient is exactly zero. SparseAdam coalesces it and updates
the moments and the parameter at those rows only (`_sparse_rows`), in PyTorch's order of operations; a dense
gradient is refused with PyTorch's error before anything of its group changes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from ember import autograd as ea
from ember.core import Tensor
from ember.core.sparse import SparseTensor, _linear
from ember.optim.optimizer import Optimizer

__all__ = ["SparseAdam"]


def _sparse_rows(p: Tensor, grad: SparseTensor) -> tuple[Callable[[Tensor], Tensor], Tensor, Tensor]:
    """(a row view of a tensor shaped as `p`, the positions of the coalesced `grad`'s stored slices in it, their
    values): a parameter of sparse_dim 1 (an embedding table) is its own row view."""
    sd = grad.sparse_dim()
    idx = grad._sp_indices._np()
    if sd == 1:
        return (lambda t: t), Tensor._wrap(idx[0].copy()), grad._sp_values
    shape = (math.prod(p.shape[:sd]),) + tuple(p.shape[sd:])
    return (lambda t: t.view(shape)), Tensor._wrap(_linear(idx, tuple(p.shape[:sd]))), grad._sp_values


class SparseAdam(Optimizer):
    """Adam over the rows a sparse gradient stores, with Adam's bias corrections (PyTorch's SparseAdam).

    Args:
        params: parameters or parameter groups (real), trained through `Embedding(sparse=True)`.
        lr: learning rate (> 0).
        betas: coefficients of the moment averages.
        eps: added to the denominator (> 0).
        maximize: ascend instead of descend.
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, maximize: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize}
        super().__init__(params, defaults)
        sparse_params = [[i, j] for i, group in enumerate(self.param_groups)
                         for j, p in enumerate(group["params"]) if p.is_sparse]
        if sparse_params:
            raise ValueError(f"Sparse params at indices {sparse_params}: SparseAdam requires dense parameter tensors")
        complex_params = [[i, j] for i, group in enumerate(self.param_groups)
                          for j, p in enumerate(group["params"]) if p.is_complex()]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not support complex "
                             "parameters")

    def step(self, closure: Callable | None = None):
        """One Adam update of the stored rows of every parameter's sparse gradient.

        Raises:
            RuntimeError: a parameter's gradient is dense, as PyTorch's (before its group changes).
        """
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None and type(p.grad) is not SparseTensor:
                    raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
            beta1, beta2 = group["betas"]
            lr, eps = float(group["lr"]), group["eps"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = ea.zeros_like(p).contiguous()
                    state["exp_avg_sq"] = ea.zeros_like(p).contiguous()
                state["step"] += 1
                grad = (-p.grad if group["maximize"] else p.grad).coalesce()
                if grad._nnz() == 0:
                    continue
                rows_of, rows, values = _sparse_rows(p, grad)
                exp_avg, exp_avg_sq = rows_of(state["exp_avg"]), rows_of(state["exp_avg_sq"])
                old_avg = exp_avg[rows]
                avg_update = values.sub(old_avg).mul_(1 - beta1)
                exp_avg.index_add_(0, rows, avg_update)
                old_avg_sq = exp_avg_sq[rows]
                avg_sq_update = values.pow(2).sub_(old_avg_sq).mul_(1 - beta2)
                exp_avg_sq.index_add_(0, rows, avg_sq_update)
                numer = avg_update.add_(old_avg)
                denom = avg_sq_update.add_(old_avg_sq).sqrt_().add_(eps)
                step = state["step"]
                step_size = lr * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
                rows_of(p).index_add_(0, rows, -step_size * numer.div_(denom))
        return loss
