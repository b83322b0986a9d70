"""`torch.cpu`: the CPU device module (`is_available`, `device_count`, `synchronize`, `amp`)."""

from ember.torch.cpu import amp

__all__ = ["amp", "is_available", "device_count", "current_device", "synchronize"]


def is_available() -> bool:
    """Always: the CPU backend is numpy and Numba."""
    return True


def device_count() -> int:
    return 1


def current_device() -> str:
    return "cpu"


def synchronize(device=None) -> None:
    """Nothing to wait for: CPU kernels run in the calling thread."""
