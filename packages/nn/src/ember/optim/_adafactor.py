"""`Adafactor`: Adam with a factored second moment, as PyTorch's single-tensor implementation."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ember import autograd as ea
from ember.core import Tensor
from ember.optim.optimizer import Optimizer, _refuse_sparse

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """Adafactor (Shazeer & Stern, 2018), in PyTorch's variant: no first moment; for a matrix (or
    a stack of matrices) the second moment is kept as its row and column means only, so the state
    costs O(rows + cols). beta2_t = 1 - t^beta2_decay; the step is relative to the parameter's RMS
    (at least eps[1]) and the update's RMS is clipped to `d`.

    Composed of tensor ops (no fused kernel), so it runs on every device ember has.

    Args:
        params: parameters or parameter groups.
        lr: learning rate (the relative step is min(lr, 1/sqrt(t))).
        beta2_decay: decay exponent of the second-moment average (<= 0).
        eps: (eps1, eps2): eps1 floors the variance estimate (None: the dtype's eps), eps2 the
            parameter RMS.
        d: clipping threshold of the update's RMS (>= 1).
        weight_decay: decoupled weight decay (p *= 1 - lr * weight_decay).
    """

    _tensor_scalars = ("step",)

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple[float | None, float] = (None, 1e-3), d: float = 1.0, weight_decay: float = 0.0, *,
                 foreach: bool | None = None, maximize: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def step(self, closure: Callable | None = None):
        """One Adafactor update of every parameter with a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            _refuse_sparse(group, "Adafactor does not support sparse gradients")
            lr = float(group["lr"])
            eps1, eps2 = group["eps"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.is_complex():
                    raise RuntimeError("Adafactor does not support complex parameters")
                state = self.state[p]
                grad = p.grad
                if not state:
                    state["step"] = ea.tensor(0.0)
                    if grad.dim() > 1:
                        state["row_var"] = grad.new_zeros((*grad.shape[:-1], 1))
                        state["col_var"] = grad.new_zeros((*grad.shape[:-2], 1, grad.shape[-1]))
                    else:
                        state["variance"] = ea.zeros_like(grad)
                if group["maximize"]:
                    grad = -grad
                e1 = ea.finfo(p.dtype).eps if eps1 is None else eps1
                state["step"].add_(1)
                t = float(state["step"])
                one_minus_beta2_t = t ** group["beta2_decay"]
                rho_t = min(lr, 1 / t ** 0.5)
                alpha = max(eps2, p.norm(2).item() / p.numel() ** 0.5) * rho_t
                if group["weight_decay"] != 0:
                    p.mul_(1 - lr * group["weight_decay"])
                if grad.dim() > 1:
                    row_var, col_var = state["row_var"], state["col_var"]
                    row_var.lerp_(ea.norm(grad, dim=-1, keepdim=True).square_().div_(grad.shape[-1]),
                                  one_minus_beta2_t)
                    col_var.lerp_(ea.norm(grad, dim=-2, keepdim=True).square_().div_(grad.shape[-2]),
                                  one_minus_beta2_t)
                    var_estimate = row_var @ col_var
                    var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=e1))
                else:
                    state["variance"].lerp_(grad * grad, one_minus_beta2_t)
                    var_estimate = state["variance"].clone()
                update = var_estimate.clamp_(min=e1 * e1).rsqrt_().mul_(grad)
                denom = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * group["d"]))
                p.add_(update, alpha=-alpha / denom)
        return loss
