"""`ASGD`: averaged stochastic gradient descent, as PyTorch's single-tensor implementation, and its
multi-tensor (`foreach=True`) one, whose arithmetic rounds differently."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ember import autograd as ea
from ember.core import Tensor
from ember.optim.optimizer import Optimizer, _check_capturable, _refuse_sparse

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Averaged SGD (Polyak & Juditsky, 1992): p = p (1 - lambd eta) - eta g, with the step size
    eta = lr / (1 + lambd lr t)^alpha; `state["ax"]` averages the iterates from step `t0` on.

    Composed of tensor ops (no fused kernel), so it runs on every device ember has.

    Args:
        params: parameters or parameter groups.
        lr: learning rate.
        lambd: decay term.
        alpha: power of the step-size decay.
        t0: step at which averaging starts.
        weight_decay: L2 penalty added to the gradient.
    """

    _tensor_scalars = ("step", "eta", "mu")

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-2, lambd: float = 1e-4,
                 alpha: float = 0.75, t0: float = 1e6, weight_decay: float = 0, foreach: bool | None = None,
                 maximize: bool = False, differentiable: bool = False, capturable: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def step(self, closure: Callable | None = None):
        """One ASGD update of every parameter with a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            _refuse_sparse(group, "ASGD does not support sparse gradients")
            lr, lambd, alpha, t0 = float(group["lr"]), group["lambd"], group["alpha"], group["t0"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                _check_capturable(group, p, "params, mus, etas, and state_steps")
                state = self.state[p]
                if not state:
                    # PyTorch keeps eta and mu in float32 scalars: round through them the same way
                    state["step"] = ea.tensor(0.0)
                    state["eta"] = ea.tensor(lr)
                    state["mu"] = ea.tensor(1.0)
                    state["ax"] = ea.zeros_like(p)
                grad = -p.grad if group["maximize"] else p.grad
                param, ax = p, state["ax"]
                if p.is_complex():  # as PyTorch: the real and imaginary parts step as real numbers
                    grad, param, ax = ea.view_as_real(grad), ea.view_as_real(p), ea.view_as_real(ax)
                state["step"].add_(1)
                if group["weight_decay"] != 0:
                    grad = grad.add(param, alpha=group["weight_decay"])
                eta = float(state["eta"])
                if group["foreach"]:
                    _foreach_update(param, grad, ax, eta, float(state["mu"]), lambd)
                    # PyTorch's foreach path evaluates the new eta in the float32 step tensor's arithmetic
                    state["eta"].copy_(lr / ((1 + lambd * lr * state["step"]) ** alpha))
                else:
                    param.mul_(1 - lambd * eta)
                    param.add_(grad, alpha=-eta)
                    if float(state["mu"]) != 1:
                        ax.add_(param.sub(ax).mul_(float(state["mu"])))
                    else:
                        ax.copy_(param)
                    state["eta"].fill_(lr / ((1 + lambd * lr * float(state["step"])) ** alpha))
                state["mu"].fill_(1 / max(1, float(state["step"]) - t0))
        return loss


def _foreach_update(param: Tensor, grad: Tensor, ax: Tensor, eta: float, mu: float, lambd: float) -> None:
    """PyTorch's multi-tensor order of operations: p -= eta (g + lambd p) and ax += mu (p - ax), with no
    copy shortcut at mu == 1 (the single-tensor path scales p first and copies ax)."""
    param.sub_(grad.add(param, alpha=lambd).mul(eta))
    ax.add_(param.sub(ax).mul_(mu))
