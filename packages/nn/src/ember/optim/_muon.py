"""`Muon`: momentum SGD whose update is orthogonalized by a Newton-Schulz iteration, as PyTorch."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from ember import autograd as ea
from ember.core import Tensor
from ember.optim.optimizer import Optimizer, _refuse_sparse

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


def _zeropower_via_newtonschulz(grad: Tensor, ns_coefficients: tuple[float, float, float], ns_steps: int,
                                eps: float) -> Tensor:
    """Approximately orthogonalize the 2-D `grad` (U S V^T -> U S' V^T, S' near 1) by `ns_steps` quintic
    Newton-Schulz iterations X <- a X + (b A + c A^2) X with A = X X^T, in bfloat16 as PyTorch."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    x = grad.bfloat16()
    tall = grad.shape[0] > grad.shape[1]
    if tall:
        x = x.T
    x = x.div(x.norm().clamp(min=eps))
    for _ in range(ns_steps):
        gram = x @ x.T
        # addmm in float32 rounded once to bfloat16, as PyTorch's bfloat16 addmm (ember's rounds each term)
        gram32 = gram.float()
        gram_update = ea.addmm(gram32, gram32, gram32, beta=b, alpha=c).bfloat16()
        x = ea.addmm(x.float(), gram_update.float(), x.float(), beta=a).bfloat16()
    return x.T if tall else x


def _adjust_lr(lr: float, adjust_lr_fn: str | None, param_shape) -> float:
    rows, cols = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    """Muon (Jordan et al., 2024) for 2-D parameters: B = mu B + (1 - mu) g (a lerp), the update
    (g lerped toward B with Nesterov) is orthogonalized by Newton-Schulz, p *= 1 - lr weight_decay,
    p -= lr' O with lr' adjusted to the matrix's shape (`adjust_lr_fn`: "original" or
    "match_rms_adamw").

    Args:
        params: 2-D parameters or parameter groups (others raise ValueError).
        lr: learning rate.
        weight_decay: decoupled weight decay.
        momentum: momentum factor.
        nesterov: use Nesterov momentum.
        ns_coefficients: (a, b, c) of the quintic iteration.
        eps: floor of the norm the iteration starts by dividing by.
        ns_steps: Newton-Schulz iterations.
        adjust_lr_fn: None/"original" (sqrt(max(1, rows / cols))) or "match_rms_adamw" (0.2 sqrt(max(rows, cols))).
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-3, weight_decay: float = 0.1,
                 momentum: float = 0.95, nesterov: bool = True,
                 ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B, DEFAULT_C), eps: float = EPS,
                 ns_steps: int = DEFAULT_NS_STEPS, adjust_lr_fn: str | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ("original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum, "nesterov": nesterov,
                    "ns_coefficients": ns_coefficients, "eps": eps, "ns_steps": ns_steps,
                    "adjust_lr_fn": adjust_lr_fn}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{p.size()}")

    def step(self, closure: Callable | None = None):
        """One Muon update of every parameter with a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            _refuse_sparse(group, "Muon does not support sparse gradients")
            lr, momentum = float(group["lr"]), group["momentum"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.is_complex():
                    raise RuntimeError("Muon does not support complex parameters")
                grad = p.grad
                if grad.ndim != 2:
                    raise ValueError("Param gradient must be a 2D matrix")
                state = self.state[p]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = ea.zeros_like(grad)
                buf = state["momentum_buffer"]
                buf.lerp_(grad, 1 - momentum)
                update = grad.lerp(buf, momentum) if group["nesterov"] else buf
                update = _zeropower_via_newtonschulz(update, group["ns_coefficients"], group["ns_steps"],
                                                     group["eps"])
                p.mul_(1 - lr * group["weight_decay"])
                # in the parameter's dtype: ember's add_ would scale the bfloat16 update in bfloat16
                p.add_(update.to(p.dtype), alpha=-_adjust_lr(lr, group["adjust_lr_fn"], p.shape))
        return loss
