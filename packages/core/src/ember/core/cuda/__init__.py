"""`ember.core.cuda`: devices, streams, events, memory statistics and the CUDA kernels.

Importing this module is cheap and touches no GPU: `numba.cuda` is imported, and the CUDA
kernels are registered against the ops, on first use (the first CUDA tensor, stream or query).
The memory functions report the caching allocator's statistics under PyTorch's names.

Example:
    >>> import ember.core.cuda as cuda
    >>> callable(cuda.is_available)
    True
"""

from __future__ import annotations

import threading
import warnings
from typing import Any

from ember.core import device_backends as _backends
from ember.core.cuda.allocator import OutOfMemoryError
from ember.core.cuda.nvml import (
    clock_rate, device_memory_used, list_gpu_processes, memory_usage, power_draw, temperature, utilization,
)
from ember.core.device import device as _device_type

__all__ = [
    "is_available", "device_count", "current_device", "set_device", "synchronize", "Stream", "Event",
    "current_stream", "default_stream", "stream", "set_stream", "memory_allocated", "max_memory_allocated",
    "memory_reserved", "max_memory_reserved", "memory_stats", "reset_peak_memory_stats", "empty_cache", "ipc_collect",
    "memory_summary", "memory_snapshot", "OutOfMemoryError", "sync_count", "manual_seed", "manual_seed_all",
    "to_device", "to_host", "copy_device_to_host", "device_storage", "grow_storage", "record_stream",
    "init", "is_initialized", "get_device_name", "get_device_capability", "get_device_properties",
    "mem_get_info", "device", "record_memory_history", "device_of", "get_arch_list", "get_gencode_flags",
    "get_rng_state", "set_rng_state", "get_rng_state_all", "set_rng_state_all", "seed", "seed_all", "initial_seed",
    "memory_cached", "max_memory_cached", "reset_max_memory_allocated", "reset_max_memory_cached",
    "has_half", "has_magma", "get_sync_debug_mode", "set_sync_debug_mode", "is_current_stream_capturing",
    "memory_stats_as_nested_dict", "is_bf16_supported", "is_tf32_supported", "utilization", "memory_usage",
    "temperature", "power_draw", "clock_rate", "device_memory_used", "CudaError", "DeferredCudaCallError",
    "cudaStatus", "check_error", "get_per_process_memory_fraction", "set_per_process_memory_fraction",
    "reset_accumulated_memory_stats", "list_gpu_processes", "get_allocator_backend", "get_stream_from_external",
]

has_half = True
has_magma = False

class CudaError(RuntimeError):
    """A CUDA runtime call failed with error `code` (`torch.cuda.CudaError`)."""

    def __init__(self, code: int) -> None:
        self.code = code
        super().__init__(f"CUDA error ({code})")


class DeferredCudaCallError(Exception):
    """A call queued until CUDA's initialization failed when it ran (`torch.cuda.DeferredCudaCallError`)."""


class cudaStatus:  # noqa: N801 - PyTorch's name
    """The two CUDA runtime results PyTorch names."""

    SUCCESS: int = 0
    ERROR_NOT_READY: int = 34


def check_error(res: int) -> None:
    """Raise CudaError for a CUDA runtime result other than success (0)."""
    if res != cudaStatus.SUCCESS:
        raise CudaError(res)


_local = threading.local()
_init_lock = threading.Lock()
_initialized = False


def _lazy_init() -> None:
    """Register the CUDA kernels of every op (once, on the first CUDA tensor); without a usable
    device, raise a RuntimeError saying why instead of Numba's driver error."""
    global _initialized
    if _initialized:
        return
    with _init_lock:
        if _initialized:
            return
        if not is_available():
            raise RuntimeError(f"CUDA is not available: {_unavailable_reason()}")
        from ember.core.cuda import registry

        registry.register_all()
        _initialized = True


def is_available() -> bool:
    """Whether a CUDA device (or Numba's CUDA simulator) can be used."""
    try:
        from numba import cuda
    except ImportError:
        return False
    return bool(cuda.is_available())


def _unavailable_reason() -> str:
    """Why no CUDA device can be used, with Numba's own message (cleaned of its layout)."""
    try:
        from numba.cuda.cudadrv.driver import driver
    except ImportError as e:
        return f"numba-cuda is not installed or cannot be imported ({e})"
    err = getattr(driver, "initialization_error", None)
    if not err:
        return "no NVIDIA GPU was found (the driver reports no device)"
    text = " ".join(str(err).split()).removeprefix("Error at driver init:").strip().rstrip(":").strip()
    return f"no NVIDIA driver or GPU was found (Numba: {text})"


def device_count() -> int:
    """How many CUDA devices there are (1 in the simulator)."""
    if not is_available():
        return 0
    from numba import cuda

    return len(cuda.gpus)


def current_device() -> int:
    """The index of the device that `device("cuda")` means in this thread."""
    return getattr(_local, "index", 0)


def set_device(d) -> None:
    """Make device `d` (an index, "cuda:N" or a device) current in this thread."""
    idx = _device_index(d)
    if idx >= max(device_count(), 1):
        raise RuntimeError(f"set_device: invalid device ordinal {idx}; {device_count()} CUDA device(s) available")
    _local.index = idx


def init() -> None:
    """Register the CUDA kernels now instead of on first use (`torch.cuda.init`)."""
    _lazy_init()


def is_initialized() -> bool:
    return _initialized


class DeviceProperties:
    """What `get_device_properties` reports, under PyTorch's attribute names."""

    def __init__(self, name: str, major: int, minor: int, total_memory: int, multi_processor_count: int) -> None:
        self.name = name
        self.major = major
        self.minor = minor
        self.total_memory = total_memory
        self.multi_processor_count = multi_processor_count

    def __repr__(self) -> str:
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory >> 20}MB, multi_processor_count={self.multi_processor_count})")


def get_device_properties(device=None) -> DeviceProperties:
    """Name, compute capability, memory and multiprocessor count of a device."""
    _lazy_init()
    from numba import cuda

    from ember.core.cuda.streams import SIMULATOR

    idx = _device_index(device)
    if SIMULATOR:
        return DeviceProperties("Numba CUDA simulator", 5, 2, _allocator(idx)._backend.total_memory(), 1)
    dev = cuda.gpus[idx]
    with dev:
        d = cuda.get_current_device()
        name = d.name.decode() if isinstance(d.name, bytes) else str(d.name)
        total = cuda.current_context().get_memory_info().total
        return DeviceProperties(name, *d.compute_capability, total, d.MULTIPROCESSOR_COUNT)


def get_device_name(device=None) -> str:
    return get_device_properties(device).name


def get_device_capability(device=None) -> tuple[int, int]:
    p = get_device_properties(device)
    return p.major, p.minor


def mem_get_info(device=None) -> tuple[int, int]:
    """(free, total) bytes of the device, as the driver sees them (cached blocks count as used)."""
    _lazy_init()
    from numba import cuda

    from ember.core.cuda.streams import SIMULATOR

    idx = _device_index(device)
    if SIMULATOR:
        total = _allocator(idx)._backend.total_memory()
        return total - memory_reserved(idx), total
    with cuda.gpus[idx]:
        info = cuda.current_context().get_memory_info()
        return info.free, info.total


class device:
    """`with ember.core.cuda.device(i):` makes device `i` current inside the block."""

    def __init__(self, device) -> None:
        self.idx = -1 if device is None else _device_index(device)
        self.prev = -1

    def __enter__(self):
        self.prev = current_device()
        if self.idx >= 0:
            set_device(self.idx)
        return self

    def __exit__(self, *exc) -> None:
        if self.idx >= 0:
            set_device(self.prev)


class device_of(device):
    """`with device_of(t):` makes the device of CUDA tensor `t` current inside the block; no-op for others."""

    def __init__(self, obj) -> None:
        super().__init__(None)
        cuda = getattr(obj, "is_cuda", False)
        self.idx = (obj.device.index or 0) if cuda else -1


def get_arch_list() -> list[str]:
    """The architectures ember's kernels are compiled for: Numba compiles them on first use for each
    visible device's compute capability (`sm_XY`), so the list names those; [] without a device."""
    if not is_available():
        return []
    from ember.core.cuda.streams import SIMULATOR

    if SIMULATOR:
        return []
    return sorted({"sm_{}{}".format(*get_device_capability(i)) for i in range(device_count())})


def get_gencode_flags() -> str:
    """NVCC `-gencode` flags for `get_arch_list()` (PyTorch's format)."""
    return " ".join(f"-gencode compute=compute_{a},code={k}_{a}" for k, a in (x.split("_") for x in get_arch_list()))


def _device_index(d) -> int:
    if d is None:
        return current_device()
    if isinstance(d, int):
        return d
    d = _device_type(d)
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return current_device() if d.index is None else d.index


def synchronize(device=None) -> None:
    """Block the host until all queued device work has finished (a counted synchronization)."""
    from ember.core.cuda import streams

    _lazy_init()
    streams.synchronize(device)


def current_stream(device=None):
    """The stream kernels of this thread launch on."""
    from ember.core.cuda import streams

    _lazy_init()
    return streams.current_stream(device)


def default_stream(device=None):
    """The device's legacy default stream."""
    from ember.core.cuda import streams

    _lazy_init()
    return streams.default_stream(device)


def stream(s):
    """`with ember.core.cuda.stream(s):` makes `s` the current stream inside the block."""
    from ember.core.cuda import streams

    return streams.stream(s)


def set_stream(s) -> None:
    from ember.core.cuda import streams

    streams.set_stream(s)


_SYNC_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_sync_debug_mode(debug_mode: int | str) -> None:
    """Whether an implicit host synchronization (`item()`, `cpu()`, printing) passes (0, "default"),
    warns (1, "warn") or raises RuntimeError (2, "error"); explicit `synchronize` calls always pass."""
    _lazy_init()
    from ember.core.cuda import streams

    if isinstance(debug_mode, str):
        if debug_mode not in _SYNC_DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`")
        debug_mode = _SYNC_DEBUG_MODES[debug_mode]
    streams.set_sync_debug_mode(debug_mode)


def get_sync_debug_mode() -> int:
    """The mode `set_sync_debug_mode` set (0, 1 or 2)."""
    _lazy_init()
    from ember.core.cuda import streams

    return streams.get_sync_debug_mode()


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether bfloat16 tensors work on the device: ember's CUDA kernels take them on every compute
    capability, so True whenever a device is usable."""
    return is_available()


def is_tf32_supported() -> bool:
    """False: ember's CUDA matmuls and convolutions never compute in TF32."""
    return False


def is_current_stream_capturing() -> bool:
    """False: ember records no CUDA graphs (its compiler replays Python-level captures instead)."""
    return False


def get_stream_from_external(data_ptr: int, device=None):
    """An `ExternalStream` over a `cudaStream_t` another library made."""
    from ember.core.cuda import streams

    _lazy_init()
    return streams.ExternalStream(data_ptr, device)


def sync_count() -> int:
    """How many times the host has waited for the device (tests assert it does not grow)."""
    from ember.core.cuda import streams

    return streams.sync_count()


def __getattr__(name: str):
    if name == "default_generators":  # PyTorch's tuple of the devices' default generators (empty without one)
        from ember.core import random

        return tuple(random.default_generator_for(f"cuda:{i}") for i in range(device_count()))
    # the classes exist without a device; making one needs it, as PyTorch's
    if name in ("Stream", "Event", "ExternalStream", "StreamContext"):
        from ember.core.cuda import streams

        return getattr(streams, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --- memory ------------------------------------------------------------------------------
def _allocator(device=None):
    from ember.core.cuda.storage import allocator

    return allocator(_device_index(device))


def memory_allocated(device=None) -> int:
    """Bytes held by live tensors on the device."""
    return _allocator(device).memory_allocated()


def max_memory_allocated(device=None) -> int:
    return _allocator(device).max_memory_allocated()


def memory_reserved(device=None) -> int:
    """Bytes the caching allocator holds from the device (live and cached)."""
    return _allocator(device).memory_reserved()


def max_memory_reserved(device=None) -> int:
    return _allocator(device).max_memory_reserved()


def memory_stats(device=None) -> dict[str, Any]:
    """PyTorch's `memory_stats()` keys (`allocated_bytes.all.current`, `num_alloc_retries`, ...)."""
    return _allocator(device).memory_stats()


def get_allocator_backend() -> str:
    """"native": ember's own caching allocator (PyTorch's other answer is "cudaMallocAsync")."""
    return "native"


def reset_accumulated_memory_stats(device=None) -> None:
    """Zero the running totals (`*.allocated`, `*.freed`) and the `num_*` counters."""
    _allocator(device).reset_accumulated_memory_stats()


def set_per_process_memory_fraction(fraction: float, device=None) -> None:
    """Let ember's allocator on `device` reserve at most `fraction` of the device's memory; a request
    past it raises OutOfMemoryError (after emptying the cache), as PyTorch's."""
    _lazy_init()
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if fraction < 0 or fraction > 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    _allocator(device).set_memory_fraction(fraction)


def get_per_process_memory_fraction(device=None) -> float:
    """The fraction `set_per_process_memory_fraction` set (1.0 by default)."""
    _lazy_init()
    return _allocator(device).memory_fraction()


def memory_stats_as_nested_dict(device=None) -> dict[str, Any]:
    """`memory_stats` with its dotted keys nested (`stats["allocated_bytes"]["all"]["current"]`)."""
    nested: dict[str, Any] = {}
    for key, value in memory_stats(device).items():
        *path, last = key.split(".")
        d = nested
        for part in path:
            d = d.setdefault(part, {})
        d[last] = value
    return nested


def reset_peak_memory_stats(device=None) -> None:
    _allocator(device).reset_peak_memory_stats()


def memory_cached(device=None) -> int:
    """Deprecated name of `memory_reserved` (PyTorch's FutureWarning)."""
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`", FutureWarning,
                  stacklevel=2)
    return memory_reserved(device)


def max_memory_cached(device=None) -> int:
    """Deprecated name of `max_memory_reserved` (PyTorch's FutureWarning)."""
    warnings.warn("`torch.cuda.max_memory_cached` has been renamed to `torch.cuda.max_memory_reserved`",
                  FutureWarning, stacklevel=2)
    return max_memory_reserved(device)


def reset_max_memory_allocated(device=None) -> None:
    """Deprecated: `reset_peak_memory_stats`, which resets every peak (PyTorch's FutureWarning)."""
    warnings.warn("torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, which "
                  "resets /all/ peak memory stats.", FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def reset_max_memory_cached(device=None) -> None:
    """Deprecated: `reset_peak_memory_stats`, which resets every peak (PyTorch's FutureWarning)."""
    warnings.warn("torch.cuda.reset_max_memory_cached now calls torch.cuda.reset_peak_memory_stats, which "
                  "resets /all/ peak memory stats.", FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def empty_cache() -> None:
    """Give every cached, unused segment back to the device."""
    _allocator(None).empty_cache()


def ipc_collect() -> None:
    """Free memory other processes no longer share through CUDA IPC: none is shared here (ember's tensors do
    not cross processes by IPC handles); without a device, PyTorch's RuntimeError."""
    _lazy_init()


def memory_summary(device=None, abbreviated: bool = False) -> str:
    """A readable table of the allocator's statistics."""
    _lazy_init()
    return _allocator(device).memory_summary()


def memory_snapshot(device=None) -> dict:
    """Segments with their blocks, and the trace of allocations and frees (see `record_memory_history`)."""
    return _allocator(device).snapshot()


def record_memory_history(enabled: bool = True, max_entries: int = 100_000, device=None) -> None:
    """Start or stop recording a timestamped trace of allocations and frees for `memory_snapshot`."""
    _allocator(device).record_history(enabled, max_entries)


# --- random ------------------------------------------------------------------------------
def manual_seed(seed: int) -> None:
    """Seed the generator (one generator drives every device, as `ember.core.random` does)."""
    from ember.core import random

    random.manual_seed(seed)


manual_seed_all = manual_seed


def _generator(device="cuda"):
    from ember.core import random

    return random.default_generator_for(f"cuda:{_device_index(device)}")


def get_rng_state(device="cuda"):
    """The state of `device`'s default generator (a uint8 tensor); without a device, the RuntimeError
    of `_lazy_init`, as PyTorch's CUDA build raises."""
    _lazy_init()
    return _generator(device).get_state()


def set_rng_state(new_state, device="cuda") -> None:
    """Restore `device`'s default generator from `get_rng_state`'s tensor."""
    _generator(device).set_state(new_state)


def get_rng_state_all() -> list:
    """`get_rng_state` of every device ([] without one)."""
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state_all(new_states) -> None:
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


def seed() -> None:
    """Seed the current device's generator from the operating system's entropy."""
    _generator().seed()


def seed_all() -> None:
    """Seed every device's generator from one entropy draw."""
    s = _generator(0).seed()
    for i in range(1, device_count()):
        _generator(i).manual_seed(s)


def initial_seed() -> int:
    """The seed of the current device's generator."""
    _lazy_init()
    return _generator().initial_seed()


# --- what core's device-independent code calls -------------------------------------------
def device_storage(nbytes: int, dev):
    """A new storage of `nbytes` bytes on CUDA device `dev`, from its caching allocator."""
    _lazy_init()
    from ember.core.cuda.storage import device_storage as make

    return make(nbytes, dev)


def grow_storage(st, nbytes: int) -> None:
    from ember.core.cuda.storage import grow_storage as grow

    grow(st, nbytes)


def to_device(t, dev, non_blocking: bool = False):
    """A copy of tensor `t` on `dev` (queued on the current stream)."""
    _lazy_init()
    from ember.core.cuda import transfer

    return transfer.to_device(t, dev, non_blocking)


def to_host(t):
    """The elements of CUDA tensor `t` as a numpy array (a counted synchronization)."""
    from ember.core.cuda import transfer

    return transfer.to_host(t)


def copy_device_to_host(dst, src, non_blocking: bool = False):
    from ember.core.cuda import transfer

    return transfer.copy_device_to_host(dst, src, non_blocking)


def record_stream(t, s) -> None:
    """Keep `t`'s memory out of reuse until the work queued on stream `s` so far is done."""
    from ember.core.cuda.storage import record_stream as record

    record(t._storage, s)


from ember.core.cuda import interop as _interop  # noqa: E402 - attaches methods; imports no numba

_interop.attach_methods()
# NOTE [ Device backends ]: core's device-independent code reaches this package only through here
_backends.register_backend("cuda", _backends.Backend(
    is_available=is_available, current_device=current_device, storage=device_storage, grow_storage=grow_storage,
    to_device=to_device, to_host=to_host, copy_to_host=copy_device_to_host, synchronize=synchronize))
