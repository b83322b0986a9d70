"""`RMSprop` (centered, momentum), as PyTorch."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ember import autograd as ea
from ember.core import Tensor
from ember.core.ops.optim_kernels import rmsprop_step
from ember.optim.optimizer import Optimizer, _check_capturable, _check_tensor_lr, _refuse_sparse, _step_tensor

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """v = alpha v + (1 - alpha) g^2; p -= lr g / (sqrt(v - centered mean(g)^2) + eps) (through a
    momentum buffer when momentum > 0)."""

    _tensor_scalars = ("step",)

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-2, alpha: float = 0.99,
                 eps: float = 1e-8, weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 capturable: bool = False, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def step(self, closure: Callable | None = None):
        """One RMSprop update of every parameter with a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            _refuse_sparse(group, "RMSprop does not support sparse gradients")
            for p in group["params"]:
                if p.grad is None:
                    continue
                _check_capturable(group, p)
                state = self.state[p]
                if not state:
                    state["step"] = ea.tensor(0.0)
                    state["square_avg"] = ea.zeros_like(p, memory_format=ea.preserve_format)
                    if group["momentum"] > 0:
                        state["momentum_buffer"] = ea.zeros_like(p, memory_format=ea.preserve_format)
                    if group["centered"]:
                        state["grad_avg"] = ea.zeros_like(p, memory_format=ea.preserve_format)
                _step_tensor(state).fill_(float(state["step"]) + 1)
                rmsprop_step(p, p.grad, state["square_avg"], state.get("grad_avg"), state.get("momentum_buffer"),
                             float(group["lr"]), group["alpha"], group["eps"], group["weight_decay"],
                             group["momentum"], group["centered"], group["maximize"])
        return loss
