"""`torch.accelerator`: the device-agnostic view of the current accelerator, which for ember is CUDA
(Numba's) when a GPU is present and nothing otherwise."""

from __future__ import annotations

import contextlib

from ember.autograd import device as _device

__all__ = ["current_accelerator", "is_available", "device_count", "current_device_index", "current_device_idx",
           "set_device_index", "set_device_idx", "device_index", "synchronize", "current_stream", "empty_cache",
           "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "reset_peak_memory_stats"]


def _cuda():
    import ember.torch.cuda as cuda

    return cuda


def is_available() -> bool:
    """Whether an accelerator (a CUDA GPU) can be used."""
    return _cuda().is_available()


def current_accelerator(check_available: bool = False):
    """`device("cuda")` where CUDA is built in (ember always has the backend; with `check_available`, only
    when a GPU is present), else None."""
    if check_available and not is_available():
        return None
    return _device("cuda") if is_available() else None


def device_count() -> int:
    """How many accelerator devices there are (0 without a GPU)."""
    return _cuda().device_count() if is_available() else 0


def current_device_index() -> int:
    """The index of the current accelerator device."""
    if not is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return _cuda().current_device()


current_device_idx = current_device_index


def set_device_index(device) -> None:
    """Make `device` (an index or a device) the current accelerator device."""
    _cuda().set_device(device)


set_device_idx = set_device_index


@contextlib.contextmanager
def device_index(device):
    """Run the block with `device` as the current accelerator device (None: leave it)."""
    if device is None or not is_available():
        yield
        return
    old = current_device_index()
    set_device_index(device)
    try:
        yield
    finally:
        set_device_index(old)


def synchronize(device=None) -> None:
    """Wait for the work queued on the accelerator (nothing to wait for without one)."""
    if is_available():
        _cuda().synchronize(device)


def current_stream(device=None):
    """The accelerator's current stream."""
    return _cuda().current_stream(device)


def empty_cache() -> None:
    """Return the caching allocator's free blocks to the device."""
    if is_available():
        _cuda().empty_cache()


def _stat(name: str):
    def stat(device=None) -> int:
        return getattr(_cuda(), name)(device) if is_available() else 0

    stat.__name__ = name
    stat.__doc__ = f"`torch.cuda.{name}` of the current accelerator (0 without one)."
    return stat


memory_allocated = _stat("memory_allocated")
max_memory_allocated = _stat("max_memory_allocated")
memory_reserved = _stat("memory_reserved")
max_memory_reserved = _stat("max_memory_reserved")


def reset_peak_memory_stats(device=None) -> None:
    """Reset the peak counters of the caching allocator."""
    if is_available():
        _cuda().reset_peak_memory_stats(device)
