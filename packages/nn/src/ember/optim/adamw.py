"""`torch.optim.adamw`: PyTorch's module path for `AdamW` and its functional `adamw`."""

from __future__ import annotations

from ember.core import Tensor
from ember.optim.adam import AdamW, adam

__all__ = ["AdamW", "adamw"]


def adamw(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor], exp_avg_sqs: list[Tensor],
          max_exp_avg_sqs: list[Tensor], state_steps: list[Tensor], foreach: bool | None = None,
          capturable: bool = False, differentiable: bool = False, fused: bool | None = None,
          grad_scale: Tensor | None = None, found_inf: Tensor | None = None, has_complex: bool = False, *,
          amsgrad: bool, beta1: float, beta2: float, lr: float, weight_decay: float, eps: float,
          maximize: bool) -> None:
    """PyTorch's functional AdamW: `adam` with decoupled weight decay."""
    adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, foreach, capturable, differentiable,
         fused, grad_scale, found_inf, has_complex, True, amsgrad=amsgrad, beta1=beta1, beta2=beta2, lr=lr,
         weight_decay=weight_decay, eps=eps, maximize=maximize)
