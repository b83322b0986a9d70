"""The helpers `torch.utils.checkpoint` exports beside `checkpoint`: input detaching and checks, the device-RNG
state pair, and the switches PyTorch's checkpoint reads (`set_checkpoint_early_stop`, the debug flag)."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterable
from typing import Any

from ember.core.tensor import Tensor

__all__ = ["CheckpointError", "DefaultDeviceType", "check_backward_validity", "detach_variable", "get_device_states",
           "set_device_states", "set_checkpoint_early_stop", "set_checkpoint_debug_enabled"]

_state = {"early_stop": None, "debug": None}  # None: each checkpoint call's own argument decides


class CheckpointError(RuntimeError):
    """A non-reentrant checkpoint whose recomputation differs from its forward (PyTorch's class)."""


def detach_variable(inputs: tuple[Any, ...]) -> tuple[Any, ...]:
    """Each tensor of the tuple `inputs` detached, keeping its `requires_grad`; other values as they are."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for inp in inputs:
        if isinstance(inp, Tensor):
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            inp = x
        out.append(inp)
    return tuple(out)


def check_backward_validity(inputs: Iterable[Any]) -> None:
    """Warn, as PyTorch's reentrant checkpoint does, when no tensor input requires grad."""
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


def get_device_states(*args) -> tuple[list[int], list[Tensor]]:
    """The devices of the CUDA tensors among `args` and their generators' states (empty for CPU tensors)."""
    from ember.core import random as _random

    devices = sorted({a.device.index or 0 for a in args if isinstance(a, Tensor) and a.device.type == "cuda"})
    return devices, [_random.default_generator_for(f"cuda:{i}").get_state() for i in devices]


def set_device_states(devices: list[int], states: list[Tensor], *, device_type: str | None = None) -> None:
    """Restore the generator states `get_device_states` returned."""
    from ember.core import random as _random

    for i, state in zip(devices, states):
        _random.default_generator_for(f"{device_type or 'cuda'}:{i}").set_state(state)


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool):
    """Within the block, whether a non-reentrant checkpoint's recomputation stops once every saved tensor is back
    (overriding each call's `early_stop`)."""
    prev, _state["early_stop"] = _state["early_stop"], enable
    try:
        yield
    finally:
        _state["early_stop"] = prev


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None):
    """PyTorch's switch for the recomputation traces its `CheckpointError` carries; kept as a flag."""
    prev, _state["debug"] = _state["debug"], enabled
    try:
        yield
    finally:
        _state["debug"] = prev


class DefaultDeviceType:
    """The device type whose RNG states a checkpoint saves when no input is on an accelerator."""

    _default_device_type: str | None = None

    @staticmethod
    def set_device_type(device: str = "cuda") -> None:
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type() -> str:
        """The type set, else the available accelerator's ("cuda" with a GPU), else "cpu"."""
        if not DefaultDeviceType._default_device_type:
            from ember.core.device_backends import backend

            try:
                has_gpu = backend("cuda").is_available()
            except RuntimeError:
                has_gpu = False
            DefaultDeviceType._default_device_type = "cuda" if has_gpu else "cpu"
        return DefaultDeviceType._default_device_type
