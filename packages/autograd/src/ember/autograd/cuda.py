"""`ember.autograd.cuda`, i.e. `torch.cuda`: re-exports `ember.core.cuda` (devices, streams, memory).

Importing it touches no GPU. Where ember.core has no CUDA support, `is_available()` is False.
"""

from __future__ import annotations

__all__ = ["is_available", "device_count"]

try:
    from ember.core import cuda as _impl
except ImportError:  # a core without its CUDA backend
    _impl = None

if _impl is not None:
    globals().update({_k: _v for _k, _v in vars(_impl).items() if not _k.startswith("_")})


def is_available() -> bool:
    """Whether a CUDA device (or Numba's CUDA simulator) can be used."""
    return _impl is not None and _impl.is_available()


def device_count() -> int:
    """How many CUDA devices there are."""
    return _impl.device_count() if is_available() else 0


def __getattr__(name: str):
    if _impl is not None and not name.startswith("__"):
        return getattr(_impl, name)
    raise AttributeError(f"module 'ember.autograd.cuda' has no attribute '{name}'")
