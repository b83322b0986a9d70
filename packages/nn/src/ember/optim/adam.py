"""`Adam` and `AdamW` (with amsgrad and maximize), as PyTorch."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ember import autograd as ea
from ember.core import Tensor
from ember.core.ops.optim_kernels import adam_step
from ember.optim.optimizer import Optimizer

__all__ = ["Adam", "AdamW"]


def _check_args(lr: float, betas: tuple[float, float], eps: float, weight_decay: float) -> None:
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class Adam(Optimizer):
    """Adam (Kingma & Ba, 2015): m = lerp(m, g, 1 - beta1), v = beta2 v + (1 - beta2) g^2,
    p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps).

    `weight_decay` adds weight_decay * p to the gradient (L2); `decoupled_weight_decay=True` (AdamW)
    multiplies p by 1 - lr * weight_decay instead.
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 amsgrad: bool = False, *, foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        _check_args(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

    def _init_state(self, p: Tensor, amsgrad: bool) -> dict:
        state = self.state[p]
        if not state:
            state["step"] = ea.tensor(0.0)
            state["exp_avg"] = ea.zeros_like(p).contiguous()
            state["exp_avg_sq"] = ea.zeros_like(p).contiguous()
            if amsgrad:
                state["max_exp_avg_sq"] = ea.zeros_like(p).contiguous()
        return state

    def step(self, closure: Callable | None = None):
        """One Adam update of every parameter with a gradient; returns `closure()`'s loss if given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            amsgrad = group["amsgrad"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self._init_state(p, amsgrad)
                step = float(state["step"]) + 1
                state["step"].fill_(step)
                adam_step(p, p.grad, state["exp_avg"], state["exp_avg_sq"], state.get("max_exp_avg_sq"), step,
                          float(group["lr"]), beta1, beta2, group["eps"], group["weight_decay"], amsgrad,
                          group["maximize"], group["decoupled_weight_decay"])
        return loss


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter, 2019): p *= 1 - lr * weight_decay."""

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 1e-2,
                 amsgrad: bool = False, *, maximize: bool = False, foreach: bool | None = None,
                 capturable: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
