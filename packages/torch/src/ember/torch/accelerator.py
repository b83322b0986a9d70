"""`torch.accelerator`: the device-generic view of the current accelerator, which for ember is
CUDA when a GPU is present and none otherwise."""

from __future__ import annotations

from ember.core import cuda as _cuda
from ember.core.device import device as _device

__all__ = ["is_available", "current_accelerator", "device_count", "current_device_index", "set_device_index",
           "synchronize"]


def is_available() -> bool:
    """Whether an accelerator (a CUDA GPU) can be used."""
    return _cuda.is_available()


def current_accelerator(check_available: bool = False) -> _device | None:
    """`device("cuda")` where a GPU is present, else None."""
    return _device("cuda") if _cuda.is_available() else None


def device_count() -> int:
    """How many accelerators there are (0 without a GPU)."""
    return _cuda.device_count() if _cuda.is_available() else 0


def current_device_index() -> int:
    """The index of the current accelerator (-1 without one, as PyTorch)."""
    return _cuda.current_device() if _cuda.is_available() else -1


def set_device_index(device) -> None:
    """Make accelerator `device` (an index or a device) the current one."""
    _cuda.set_device(device)


def synchronize(device=None) -> None:
    """Wait for the accelerator's queued work (nothing to wait for without one)."""
    if _cuda.is_available():
        _cuda.synchronize(device)
