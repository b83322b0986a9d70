"""`torch.mps`: Apple's Metal backend, which ember does not have: `is_available()` is False and the calls that
need the device raise PyTorch's own RuntimeError for a build without it, so code that checks first runs."""

from __future__ import annotations

__all__ = ["is_available", "device_count", "synchronize", "empty_cache", "manual_seed", "seed", "get_rng_state",
           "set_rng_state", "current_allocated_memory", "driver_allocated_memory", "recommended_max_memory",
           "set_per_process_memory_fraction"]


def _missing(what: str) -> RuntimeError:
    return RuntimeError(f"Cannot execute {what}() without MPS backend.")


def is_available() -> bool:
    """False: ember has no Metal backend (`torch.backends.mps.is_available()` agrees)."""
    return False


def device_count() -> int:
    return 0


def synchronize() -> None:
    raise _missing("deviceSynchronize")


def empty_cache() -> None:
    raise _missing("emptyCache")


def manual_seed(seed: int) -> None:
    """Nothing to seed without the device (PyTorch returns as quietly)."""


def seed() -> None:
    raise _missing("getDefaultGenerator")


def get_rng_state(device="mps"):
    raise _missing("getDefaultGenerator")


def set_rng_state(new_state, device="mps") -> None:
    raise _missing("getDefaultGenerator")


def current_allocated_memory() -> int:
    raise _missing("getCurrentAllocatedMemory")


def driver_allocated_memory() -> int:
    raise _missing("getDriverAllocatedMemory")


def recommended_max_memory() -> int:
    raise _missing("getRecommendedMaxMemory")


def set_per_process_memory_fraction(fraction: float) -> None:
    raise _missing("setMemoryFraction")
