"""`SparseAdam`: Adam that updates only the rows a gradient touches (embedding tables).

NOTE [ SparseAdam on dense gradients ]
PyTorch's SparseAdam takes the sparse COO gradients of `nn.Embedding(sparse=True)` and updates the
moments and the parameter only at the rows the gradient stores: every looked-up row but
`padding_idx`, even one whose gradient is exactly zero (a masked position still decays its moments
and moves). ember has no sparse layout: every gradient is dense, `Embedding(sparse=True)` included.
So `F.embedding`/`F.embedding_bag` with `sparse=True` mark the looked-up rows in a boolean mask kept
on the weight (`weight._sparse_grad_rows`, one flag per row), and this SparseAdam updates exactly the
marked rows, in PyTorch's order of operations, then clears the mask (as does its `zero_grad`).
A gradient of a parameter without a mask (not from a sparse embedding) is what PyTorch calls a dense
gradient: `step` raises PyTorch's RuntimeError for it, before changing anything of its group.
Limits: rows are marked at forward time, so a forward under grad mode whose backward never runs
before the next `step` (and no `SparseAdam.zero_grad` in between) adds its rows too; and a weight
that a sparse embedding and dense ops both use (tied weights) passes as sparse, where PyTorch's
accumulated gradient would be dense and refused.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from ember import autograd as ea
from ember.core import Tensor
from ember.optim.optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """Masked Adam: the moments and the parameter change only at the rows a sparse embedding looked up
    (NOTE [ SparseAdam on dense gradients ]), with Adam's bias corrections.

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
        complex_params = [[i, j] for i, group in enumerate(self.param_groups)
                          for j, p in enumerate(group["params"]) if p.is_complex()]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not support complex "
                             "parameters")

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients and forget the rows marked by sparse embeddings since the last step."""
        for group in self.param_groups:
            for p in group["params"]:
                marked = p.__dict__.get("_sparse_grad_rows")
                if marked is not None:
                    marked.zero_()
        super().zero_grad(set_to_none)

    def step(self, closure: Callable | None = None):
        """One masked Adam update of every parameter with a gradient.

        Raises:
            RuntimeError: a parameter's gradient is dense (not from a sparse embedding), as PyTorch's.
        """
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None and p.__dict__.get("_sparse_grad_rows") is None:
                    raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
            beta1, beta2 = group["betas"]
            lr, eps = float(group["lr"]), group["eps"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = ea.zeros_like(p)
                    state["exp_avg_sq"] = ea.zeros_like(p)
                state["step"] += 1
                grad = -p.grad if group["maximize"] else p.grad
                marked = p.__dict__["_sparse_grad_rows"]
                touched = marked.clone()
                marked.zero_()
                rows = ea.nonzero(touched).flatten()
                if rows.numel() == 0:
                    continue
                values = grad[rows]
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                old_avg = exp_avg[rows]
                avg_update = values.sub(old_avg).mul_(1 - beta1)
                exp_avg[rows] = old_avg + avg_update
                old_avg_sq = exp_avg_sq[rows]
                avg_sq_update = values.pow(2).sub_(old_avg_sq).mul_(1 - beta2)
                exp_avg_sq[rows] = old_avg_sq + avg_sq_update
                numer = avg_update.add_(old_avg)
                denom = avg_sq_update.add_(old_avg_sq).sqrt_().add_(eps)
                step = state["step"]
                step_size = lr * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
                p[rows] = p[rows] + (-step_size * numer.div_(denom))
        return loss
