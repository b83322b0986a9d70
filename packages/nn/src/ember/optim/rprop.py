"""`Rprop`: resilient backpropagation, as PyTorch's single-tensor implementation."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ember import autograd as ea
from ember.core import Tensor
from ember.optim.optimizer import Optimizer, _check_capturable, _refuse_sparse, _step_tensor

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Rprop (Riedmiller & Braun, 1993): each element keeps its own step size, multiplied by
    `etas[1]` while the gradient keeps its sign and by `etas[0]` when it flips (clamped to
    `step_sizes`); the parameter moves by -sign(g) * step_size, and not at all right after a flip.

    Composed of tensor ops (no fused kernel), so it runs on every device ember has.

    Args:
        params: parameters or parameter groups.
        lr: initial step size of every element.
        etas: (decrease, increase) factors, 0 < etas[0] < 1 < etas[1].
        step_sizes: (minimum, maximum) step size.
    """

    _tensor_scalars = ("step",)

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-2,
                 etas: tuple[float, float] = (0.5, 1.2), step_sizes: tuple[float, float] = (1e-6, 50), *,
                 capturable: bool = False, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def step(self, closure: Callable | None = None):
        """One Rprop update of every parameter with a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            _refuse_sparse(group, "Rprop does not support sparse gradients")
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                _check_capturable(group, p)
                state = self.state[p]
                if not state:
                    state["step"] = ea.tensor(0.0)
                    state["prev"] = ea.zeros_like(p)
                    lr = float(group["lr"])  # a complex element is two real ones: each starts at lr
                    state["step_size"] = ea.full_like(p.grad, complex(lr, lr) if p.is_complex() else lr)
                _step_tensor(state).add_(1)
                grad = -p.grad if group["maximize"] else p.grad
                param, prev, step_size = p, state["prev"], state["step_size"]
                if p.is_complex():  # as PyTorch: real and imaginary parts step as real numbers
                    grad, param, prev, step_size = (ea.view_as_real(t) for t in (grad, p, prev, step_size))
                sign = grad.mul(prev).sign()
                # the sign becomes the step-size factor: etaplus where it kept, etaminus where it flipped
                factor = ea.where(sign.gt(0), ea.full_like(sign, etaplus), sign)
                factor = ea.where(factor.lt(0), ea.full_like(sign, etaminus), factor)
                factor = ea.where(factor.eq(0), ea.ones_like(sign), factor)
                step_size.mul_(factor).clamp_(step_size_min, step_size_max)
                grad = ea.where(factor.eq(etaminus), ea.zeros_like(grad), grad)  # no move right after a flip
                param.addcmul_(grad.sign(), step_size, value=-1)
                prev.copy_(grad)
        return loss
