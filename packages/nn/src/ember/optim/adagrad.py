"""`Adagrad` (lr_decay, initial_accumulator_value), as PyTorch."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ember import autograd as ea
from ember.core import Tensor
from ember.core.ops.optim_kernels import adagrad_step
from ember.core.sparse import SparseTensor
from ember.optim.optimizer import Optimizer, _check_fused, _check_tensor_lr, _step_tensor
from ember.optim.sparse_adam import _sparse_rows

__all__ = ["Adagrad"]


def _sparse_adagrad(p: Tensor, grad: SparseTensor, state_sum: Tensor, step: float, group: dict) -> None:
    """PyTorch's sparse path: the coalesced gradient's rows update the sum and the parameter, nothing else."""
    if group["maximize"]:
        grad = -grad
    if group["weight_decay"] != 0:
        raise RuntimeError("weight_decay option is not compatible with sparse gradients")
    clr = float(group["lr"]) / (1 + (step - 1) * group["lr_decay"])
    grad = grad.coalesce()
    if grad._nnz() == 0:
        return
    rows_of, rows, values = _sparse_rows(p, grad)
    sums = rows_of(state_sum)
    sums.index_add_(0, rows, values.pow(2))
    std = sums[rows].sqrt_().add_(group["eps"])
    rows_of(p).index_add_(0, rows, values / std, alpha=-clr)


class Adagrad(Optimizer):
    """s += g^2; p -= lr / (1 + (t - 1) lr_decay) * g / (sqrt(s) + eps)."""

    _tensor_scalars = ("step",)

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0, eps: float = 1e-10,
                 foreach: bool | None = None, *, maximize: bool = False, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        _check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        _check_fused(fused, differentiable, foreach)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = ea.tensor(0.0)
                state["sum"] = ea.full_like(p, initial_accumulator_value, memory_format=ea.preserve_format)

    def step(self, closure: Callable | None = None):
        """One Adagrad update of every parameter with a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                step = float(_step_tensor(state)) + 1
                state["step"].fill_(step)
                if type(p.grad) is SparseTensor:
                    _sparse_adagrad(p, p.grad, state["sum"], step, group)
                    continue
                adagrad_step(p, p.grad, state["sum"], step, float(group["lr"]), group["lr_decay"], group["eps"],
                             group["weight_decay"], group["maximize"])
        return loss
