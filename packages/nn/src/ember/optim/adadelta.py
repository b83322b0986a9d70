"""`Adadelta`, as PyTorch, over a fused per-parameter kernel."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ember import autograd as ea
from ember.core import Tensor
from ember.core.ops.optim_kernels import adadelta_step
from ember.optim.optimizer import Optimizer, _check_capturable, _check_tensor_lr, _refuse_sparse, _step_tensor

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """v = rho v + (1 - rho) g^2; delta = sqrt(u + eps) / sqrt(v + eps) g; u = rho u + (1 - rho) delta^2;
    p -= lr delta."""

    _tensor_scalars = ("step",)

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach: bool | None = None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False) -> None:
        _check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    def step(self, closure: Callable | None = None):
        """One Adadelta update of every parameter with a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            _refuse_sparse(group, "Adadelta does not support sparse gradients")
            for p in group["params"]:
                if p.grad is None:
                    continue
                _check_capturable(group, p, xla=False)
                state = self.state[p]
                if not state:
                    state["step"] = ea.tensor(0.0)
                    state["square_avg"] = ea.zeros_like(p, memory_format=ea.preserve_format)
                    state["acc_delta"] = ea.zeros_like(p, memory_format=ea.preserve_format)
                _step_tensor(state).fill_(float(state["step"]) + 1)
                adadelta_step(p, p.grad, state["square_avg"], state["acc_delta"], float(group["lr"]), group["rho"],
                              group["eps"], group["weight_decay"], group["maximize"])
        return loss
