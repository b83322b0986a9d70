"""`GradScaler`: loss scaling for float16 training, with PyTorch's skip-and-update schedule.

The loss is multiplied by the scale before `backward`, so small float16 gradients do not flush
to zero; `unscale_` divides the gradients back (in place) and records whether any is inf/NaN;
`step` skips the optimizer step when one was; `update` then halves the scale (`backoff_factor`)
after a skipped step, or doubles it (`growth_factor`) after `growth_interval` good steps in a
row. The scale and the growth tracker are a float32 and an int32 tensor, as in PyTorch, and the
inverse scale is computed in float64 and rounded to float32 as PyTorch does, so a run compares
step by step with PyTorch's.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from enum import Enum
from typing import Any

import numpy as np

from ember.core import dtypes
from ember.core.creation import full
from ember.core.tensor import Tensor

from ember.autograd.grad_mode import no_grad

__all__ = ["GradScaler", "OptState", "_amp_foreach_non_finite_check_and_unscale_", "_amp_update_scale_"]


def _one_element(t: Tensor, name: str) -> None:
    if t.numel() != 1:
        raise RuntimeError(f"{name} must be a 1-element tensor.")


def _of_dtype(t: Tensor, name: str, dt, kind: str) -> None:
    if t.dtype is not dt:
        raise RuntimeError(f"{name} must be a{kind} tensor.")


def _amp_foreach_non_finite_check_and_unscale_(self: list, found_inf: Tensor, inv_scale: Tensor) -> None:
    """PyTorch's fused unscale: multiplies every tensor of `self` in place by `inv_scale` (in float32 for 16-bit
    tensors) and sets `found_inf` to 1.0 when any held an inf or NaN; `found_inf` is left as it is otherwise."""
    _one_element(inv_scale, "inv_scale")
    _one_element(found_inf, "found_inf")
    _of_dtype(inv_scale, "inv_scale", dtypes.float32, " float")
    _of_dtype(found_inf, "found_inf", dtypes.float32, " float")
    inv = float(inv_scale.item())
    with no_grad():
        for t in self:
            if not t.dtype.is_floating_point:
                name = dtypes.TORCH_NAMES.get(t.dtype.name, t.dtype.name)
                raise NotImplementedError(
                    f"\"_amp_foreach_non_finite_check_and_unscale_cpu\" not implemented for '{name}'")
            if not bool(t.isfinite().all().item()):
                found_inf.fill_(1.0)
            if inv != 1.0:
                if t.dtype in (dtypes.float16, dtypes.bfloat16):
                    t.copy_(t.float().mul_(inv))
                else:
                    t.mul_(inv)


def _amp_update_scale_(self: Tensor, growth_tracker: Tensor, found_inf: Tensor, scale_growth_factor: float,
                       scale_backoff_factor: float, growth_interval: int) -> Tensor:
    """PyTorch's scale update, in place on the float32 scale `self` and int32 `growth_tracker`: back off when
    `found_inf` is nonzero, else count a good step and grow (unless to inf) after `growth_interval` of them."""
    _one_element(growth_tracker, "growth_tracker")
    _one_element(self, "current_scale")
    _one_element(found_inf, "found_inf")
    _of_dtype(growth_tracker, "growth_tracker", dtypes.int32, "n int")
    _of_dtype(self, "current_scale", dtypes.float32, " float")
    _of_dtype(found_inf, "found_inf", dtypes.float32, " float")
    scale = np.float32(self.item())
    tracker = int(growth_tracker.item())
    if found_inf.item() != 0:  # NaN counts as found, as C's truth test
        scale, tracker = np.float32(scale * np.float32(scale_backoff_factor)), 0
    elif tracker + 1 == growth_interval:
        grown = np.float32(scale * np.float32(scale_growth_factor))
        scale, tracker = (grown if not np.isinf(grown) else scale), 0
    else:
        tracker += 1
    self.fill_(float(scale))
    growth_tracker.fill_(tracker)
    return self


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state() -> dict[str, Any]:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """Scale the loss, unscale and check the gradients, skip steps with inf/NaN, adapt the scale.

    Args:
        device: "cuda" (PyTorch's default) or "cpu". A CUDA scaler without a GPU warns and
            disables itself: every method then passes through (`scale` returns its input,
            `step` just steps).
        init_scale, growth_factor, backoff_factor, growth_interval: the schedule (see the module).
        enabled: False makes the same pass-through.

    Example:
        >>> import ember.autograd as torch
        >>> scaler = torch.amp.GradScaler("cpu", init_scale=8.0)
        >>> scaler.scale(torch.tensor(2.0)).item()
        16.0
    """

    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = str(device)
        self._enabled = bool(enabled)
        if self._device == "cuda" and self._enabled and not _cuda_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                          stacklevel=2)
            self._enabled = False
        if self._enabled:
            if not growth_factor > 1.0:
                raise ValueError("The growth factor must be > 1.0.")
            if not backoff_factor < 1.0:
                raise ValueError("The backoff factor must be < 1.0.")
        self._init_scale = init_scale
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._init_growth_tracker = 0
        self._scale: Tensor | None = None
        self._growth_tracker: Tensor | None = None
        self._per_optimizer_states: defaultdict = defaultdict(_refresh_per_optimizer_state)

    def _lazy_init(self, dev) -> None:
        self._scale = full((), self._init_scale, dtype=dtypes.float32, device=dev)
        self._growth_tracker = full((), self._init_growth_tracker, dtype=dtypes.int32, device=dev)

    def scale(self, outputs):
        """`outputs` (a tensor, or lists/tuples of them) times the scale; itself when disabled."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init(outputs.device)
            return outputs * self._scale.to(outputs.device)
        if isinstance(outputs, list | tuple):
            return type(outputs)(self.scale(o) for o in outputs)
        if hasattr(outputs, "__iter__"):
            return map(self.scale, outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _unscale_grads_(self, optimizer, inv_scale: float, allow_fp16: bool) -> dict:
        found: dict = {}
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    g = p.grad
                    if g is None:
                        continue
                    if not allow_fp16 and g.dtype is dtypes.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    key = str(g.device)
                    bad = not bool(g.isfinite().all().item())
                    found[key] = found.get(key, False) or bad
                    g.mul_(inv_scale)
        return {k: full((1,), 1.0 if v else 0.0, dtype=dtypes.float32, device=k) for k, v in found.items()}

    def unscale_(self, optimizer) -> None:
        """Divide `optimizer`'s gradients by the scale in place and record inf/NaN ones; at most
        once per optimizer between `update`s, and before `step`."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # PyTorch: self._scale.double().reciprocal().float()
        inv = float(np.float32(1.0 / np.float64(self._scale.item())))
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv, False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """`optimizer.step(*args, **kwargs)` unless the (unscaled) gradients hold inf/NaN; returns
        what it returns, or None when the step is skipped."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale: float | Tensor | None = None) -> None:
        """Back off after a skipped step, grow after `growth_interval` good ones (or set `new_scale`)."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            elif isinstance(new_scale, Tensor) and new_scale.numel() == 1 and new_scale.dtype is dtypes.float32 \
                    and not new_scale.requires_grad:
                self._scale.copy_(new_scale.reshape(()))
            else:
                raise ValueError("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                                 "torch.FloatTensor with requires_grad=False.")
        else:
            found = [v for s in self._per_optimizer_states.values() for v in s["found_inf_per_device"].values()]
            if len(found) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            self._update_scale(sum(v.item() for v in found) > 0)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _update_scale(self, found_inf: bool) -> None:
        _amp_update_scale_(self._scale.reshape(1), self._growth_tracker.reshape(1),
                           full((1,), 1.0 if found_inf else 0.0, dtype=dtypes.float32), self._growth_factor,
                           self._backoff_factor, self._growth_interval)

    def _check_scale_growth_tracker(self, funcname: str) -> None:
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)

    def get_scale(self) -> float:
        """The current scale (the initial one before the first `scale`); 1.0 when disabled."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else int(self._growth_tracker.item())

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict[str, Any]:
        """scale, growth_factor, backoff_factor, growth_interval and _growth_tracker; {} when disabled."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        if self._enabled:
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = state["_growth_tracker"] = None
        state["_per_optimizer_states"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)


def _cuda_available() -> bool:
    from ember.core import cuda

    try:
        return bool(cuda.is_available())
    except Exception:  # a broken driver counts as no GPU, as PyTorch's check does
        return False


class CudaGradScaler(GradScaler):
    """`torch.cuda.amp.GradScaler(...)`: PyTorch's deprecated spelling of `GradScaler("cuda", ...)`."""

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


class CpuGradScaler(GradScaler):
    """`torch.cpu.amp.GradScaler(...)`: PyTorch's deprecated spelling of `GradScaler("cpu", ...)`."""

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        warnings.warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", init_scale, growth_factor, backoff_factor, growth_interval, enabled)

