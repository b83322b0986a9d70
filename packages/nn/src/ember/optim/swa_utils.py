"""`torch.optim.swa_utils`: stochastic weight averaging and EMA of a model's weights (`AveragedModel`),
the SWA learning-rate schedule (`SWALR`) and the batch-norm statistics refresh (`update_bn`)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from copy import deepcopy
from typing import Any

from ember import autograd as ea
from ember.core import Tensor
from ember.nn.modules.module import Module
from ember.nn.modules.normalization import _BatchNorm
from ember.optim.lr_scheduler import LRScheduler, _per_group, _warn_get_lr_called_within_step
from ember.optim.optimizer import Optimizer

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn"]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """In-place EMA over lists of tensors: ema = lerp(ema, current, 1 - decay)."""
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _) -> None:
        with ea.no_grad():
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                if p_ema.is_floating_point() or p_ema.is_complex():
                    p_ema.lerp_(p_model, 1 - decay)
                else:
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """In-place running mean over lists of tensors: avg = lerp(avg, current, 1 / (n + 1))."""

    def swa_update(averaged_param_list, current_param_list, num_averaged) -> None:
        with ea.no_grad():
            for p_avg, p_model in zip(averaged_param_list, current_param_list, strict=True):
                if p_avg.is_floating_point() or p_avg.is_complex():
                    p_avg.lerp_(p_model, float(1 / (num_averaged + 1)))
                else:
                    p_avg.add_((p_model - p_avg) / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    """EMA of one tensor: returns decay * ema + (1 - decay) * current."""
    _check_decay(decay)

    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged) -> Tensor:
        with ea.no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> Callable:
    """Running mean of one tensor: returns avg + (current - avg) / (n + 1)."""

    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged) -> Tensor:
        with ea.no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of `model` whose parameters (and with `use_buffers`, buffers) are the running average
    (SWA, default) or an EMA (`multi_avg_fn=get_ema_multi_avg_fn(decay)`) of `model`'s over the calls
    of `update_parameters(model)`; `n_averaged` counts them.

    >>> import ember.autograd as torch
    >>> from ember import nn
    >>> net = nn.Linear(2, 1)
    >>> swa = AveragedModel(net)
    >>> swa.update_parameters(net); int(swa.n_averaged)
    1
    """

    def __init__(self, model: Module, device=None, avg_fn: Callable | None = None,
                 multi_avg_fn: Callable | None = None, use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", ea.tensor(0, dtype=ea.long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """The averaged model's forward."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Fold `model`'s current parameters into the average (the first call copies them)."""
        if self.use_buffers:
            ours = list(itertools.chain(self.module.parameters(), self.module.buffers()))
            theirs = list(itertools.chain(model.parameters(), model.buffers()))
        else:
            ours, theirs = list(self.parameters()), list(model.parameters())
        ours = [p.detach() for p in ours]
        theirs = [p.detach().to(a.device) for a, p in zip(ours, theirs)]
        n = int(self.n_averaged)
        with ea.no_grad():
            if n == 0:
                for a, p in zip(ours, theirs):
                    a.copy_(p)
            elif self.multi_avg_fn is not None:
                self.multi_avg_fn(ours, theirs, self.n_averaged)
            elif self.avg_fn is not None:
                for a, p in zip(ours, theirs):
                    a.copy_(self.avg_fn(a, p, self.n_averaged.to(a.device)))
            else:
                # PyTorch: lerp where foreach kernels exist (CUDA), the running-mean formula elsewhere
                for a, p in zip(ours, theirs):
                    if a.device.type == "cuda":
                        get_swa_multi_avg_fn()([a], [p], self.n_averaged)
                    else:
                        a.copy_(get_swa_avg_fn()(a, p, self.n_averaged.to(a.device)))
            if not self.use_buffers:
                for b_swa, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                    b_swa.copy_(b_model.detach().to(b_swa.device))
            self.n_averaged.add_(1)


def update_bn(loader: Iterable[Any], model: Module, device=None) -> None:
    """Recompute the running statistics of every batch norm of `model` by one pass over `loader`
    (a cumulative average: momentum None), as needed after averaging weights."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with ea.no_grad():
        for input in loader:
            if isinstance(input, list | tuple):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's lr to `swa_lr` over `anneal_epochs` epochs ("cos" or "linear"), then hold it."""

    def __init__(self, optimizer: Optimizer, swa_lr: float | list[float], anneal_epochs: int = 10,
                 anneal_strategy: str = "cos", last_epoch: int = -1) -> None:
        swa_lrs = _per_group(optimizer, "swa_lr", swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def get_lr(self) -> list[float]:
        _warn_get_lr_called_within_step(self)
        # the lr before annealing is recovered from the current one, so other schedulers may run first
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def state_dict(self) -> dict[str, Any]:
        """Everything but the optimizer and the anneal function (restored from its name)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
