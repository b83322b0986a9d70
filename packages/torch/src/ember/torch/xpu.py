"""`torch.xpu`: Intel's GPU backend, which ember does not have. The queries a device-agnostic program makes
first (`is_available()`, `device_count()`, the memory counters) answer as PyTorch's build without XPU does;
the calls that need a device raise its AssertionError."""

from __future__ import annotations

from collections import OrderedDict

__all__ = ["is_available", "is_initialized", "device_count", "init", "synchronize", "current_device", "set_device",
           "get_device_name", "get_device_properties", "get_device_capability", "get_arch_list", "empty_cache",
           "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed", "get_rng_state",
           "get_rng_state_all", "is_bf16_supported", "is_tf32_supported", "memory_allocated",
           "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats", "mem_get_info",
           "current_stream"]


def _refuse(*args, **kwargs):
    raise AssertionError("Torch not compiled with XPU enabled")


init = synchronize = current_device = set_device = get_device_name = get_device_properties = _refuse
get_device_capability = initial_seed = get_rng_state = mem_get_info = current_stream = _refuse


def is_available() -> bool:
    return False


def is_initialized() -> bool:
    return False


def device_count() -> int:
    return 0


def get_arch_list() -> list:
    return []


def get_rng_state_all() -> list:
    return []


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def is_tf32_supported() -> bool:
    return False


def empty_cache() -> None:
    """Nothing is cached without the device."""


def manual_seed(seed: int) -> None:
    """Seeding is deferred until the device initialises, which it never does here."""


manual_seed_all = manual_seed


def seed() -> None:
    """As `manual_seed`: nothing to seed."""


seed_all = seed


def memory_allocated(device=None) -> int:
    return 0


max_memory_allocated = memory_reserved = max_memory_reserved = memory_allocated


def memory_stats(device=None) -> OrderedDict:
    return OrderedDict()
