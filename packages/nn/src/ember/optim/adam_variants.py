"""`Adamax`, `NAdam`, `RAdam`: Adam's relatives, as PyTorch, over fused per-parameter kernels."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ember import autograd as ea
from ember.core import Tensor
from ember.core.ops.optim_kernels import adamax_step, nadam_scalars, nadam_step, radam_step
from ember.optim.adam import _check_args
from ember.optim.optimizer import Optimizer, _check_capturable, _refuse_sparse, _step_tensor

__all__ = ["Adamax", "NAdam", "RAdam"]


def _next_step(state: dict) -> float:
    step = float(_step_tensor(state)) + 1
    state["step"].fill_(step)
    return step


class Adamax(Optimizer):
    """Adam with the infinity norm: u = max(beta2 u, |g| + eps), p -= lr / (1 - beta1^t) * m / u."""

    _tensor_scalars = ("step",)

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 foreach: bool | None = None, *, maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        _check_args(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def step(self, closure: Callable | None = None):
        """One Adamax update of every parameter with a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            _refuse_sparse(group, "Adamax does not support sparse gradients")
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                _check_capturable(group, p)
                state = self.state[p]
                if not state:
                    state["step"] = ea.tensor(0.0)
                    state["exp_avg"] = ea.zeros_like(p, memory_format=ea.preserve_format)
                    state["exp_inf"] = ea.zeros_like(p, memory_format=ea.preserve_format)
                adamax_step(p, p.grad, state["exp_avg"], state["exp_inf"], _next_step(state), float(group["lr"]),
                            beta1, beta2, group["eps"], group["weight_decay"], group["maximize"])
        return loss


class NAdam(Optimizer):
    """Adam with Nesterov momentum and a momentum schedule mu_t = beta1 (1 - 0.96^(t psi) / 2)."""

    _tensor_scalars = ("step", "mu_product")

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False) -> None:
        _check_args(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def step(self, closure: Callable | None = None):
        """One NAdam update of every parameter with a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            _refuse_sparse(group, "NAdam does not support sparse gradients")
            beta1, beta2 = group["betas"]
            lr = float(group["lr"])
            for p in group["params"]:
                if p.grad is None:
                    continue
                _check_capturable(group, p, "params, mu_products and state_steps")
                state = self.state[p]
                if not state:
                    state["step"] = ea.tensor(0.0)
                    state["mu_product"] = ea.tensor(1.0)
                    state["exp_avg"] = ea.zeros_like(p, memory_format=ea.preserve_format)
                    state["exp_avg_sq"] = ea.zeros_like(p, memory_format=ea.preserve_format)
                step = _next_step(state)
                mu, _, _ = nadam_scalars(step, lr, beta1, group["momentum_decay"], 0.0)
                # PyTorch keeps the product in a default-dtype tensor: round through it the same way
                state["mu_product"].mul_(mu)
                _, coef_grad, coef_avg = nadam_scalars(step, lr, beta1, group["momentum_decay"],
                                                       float(state["mu_product"]))
                nadam_step(p, p.grad, state["exp_avg"], state["exp_avg_sq"], step, lr, beta1, beta2, group["eps"],
                           group["weight_decay"], coef_grad, coef_avg, group["maximize"],
                           group["decoupled_weight_decay"])
        return loss


class RAdam(Optimizer):
    """Rectified Adam: plain momentum SGD until the variance estimate is tractable, then Adam with a
    rectification factor."""

    _tensor_scalars = ("step",)

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        _check_args(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def step(self, closure: Callable | None = None):
        """One RAdam update of every parameter with a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            _refuse_sparse(group, "RAdam does not support sparse gradients")
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                _check_capturable(group, p)
                state = self.state[p]
                if not state:
                    state["step"] = ea.tensor(0.0)
                    state["exp_avg"] = ea.zeros_like(p, memory_format=ea.preserve_format)
                    state["exp_avg_sq"] = ea.zeros_like(p, memory_format=ea.preserve_format)
                radam_step(p, p.grad, state["exp_avg"], state["exp_avg_sq"], _next_step(state), float(group["lr"]),
                           beta1, beta2, group["eps"], group["weight_decay"], group["maximize"],
                           group["decoupled_weight_decay"])
        return loss
