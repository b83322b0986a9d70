"""The raw device memory under the caching allocator: Numba-CUDA device arrays and events.

`NumbaRawBackend` is what production allocators sit on; tests use a fake backend with fake
pointers instead. This module never imports `numba.cuda` at import time (it would initialise
CUDA or the simulator): every method imports it when first called.

It also provides an External Memory Management (EMM) plugin, so that Numba's own allocations
(`cuda.to_device`, `cuda.device_array` outside ember) come from a caching pool too. The plugin
only works on a real GPU: the simulator has no EMM interface.
"""

from __future__ import annotations

import ctypes
import functools
import weakref
from collections.abc import Hashable
from contextlib import AbstractContextManager
from typing import Any

import numpy as np

from ember.core.cuda.allocator import CachingAllocator, OutOfMemoryError, RawOutOfMemory

__all__ = ["NumbaRawBackend", "NumbaSegment", "SIMULATOR_TOTAL_MEMORY", "make_emm_plugin", "install_emm_plugin"]

SIMULATOR_TOTAL_MEMORY = 16 * 1024**3
"""The capacity `NumbaRawBackend.total_memory()` reports under the simulator (host RAM backs it)."""

_CUDA_ERROR_OUT_OF_MEMORY = 2  # CUresult CUDA_ERROR_OUT_OF_MEMORY


def _cuda():
    from numba import cuda

    return cuda


def _simulating() -> bool:
    from numba import config

    return bool(config.ENABLE_CUDASIM)


def _is_cuda_oom(exc: BaseException) -> bool:
    """Whether `exc` is the driver's out-of-memory error (numba's CudaAPIError carries the CUresult)."""
    from numba.cuda.cudadrv.driver import CudaAPIError

    return isinstance(exc, CudaAPIError) and int(exc.code) == _CUDA_ERROR_OUT_OF_MEMORY


class NumbaSegment:
    """A segment of `NumbaRawBackend`: a 1-D uint8 device array of `nbytes` bytes.

    The backend drops `array` on free, so stale references to the segment (e.g. from freed
    blocks) do not keep the device memory alive.
    """

    __slots__ = ("array", "nbytes")

    def __init__(self, array: Any, nbytes: int) -> None:
        self.array = array
        self.nbytes = nbytes

    def __repr__(self) -> str:
        state = "freed" if self.array is None else "live"
        return f"NumbaSegment(nbytes={self.nbytes}, {state})"


class NumbaRawBackend:
    """Segments are `numba.cuda.device_array(nbytes, dtype=uint8)` on device `device_index`.

    `view(segment, offset, nbytes)` is the slice `segment.array[offset:offset + nbytes]`: a 1-D
    uint8 device array aliasing the segment (on a GPU a `DeviceNDArray`, in the simulator a
    `FakeCUDAArray`); typed views come from its `.view(dtype)`. Its bound stream is the default
    stream, so copies must pass their stream explicitly. Streams are numba stream objects, or
    None for the default stream. Under the simulator, `total_memory()` is
    `SIMULATOR_TOTAL_MEMORY` (16 GiB), addresses are those of the host buffers that stand in
    for device memory, and events complete at once (the simulator runs synchronously).
    """

    def __init__(self, device_index: int = 0) -> None:
        self.device_index = device_index
        self._simulated = _simulating()

    def _on_device(self) -> AbstractContextManager:
        """Make this backend's device current (allocations and events belong to its context)."""
        return _cuda().gpus[self.device_index]

    def malloc(self, nbytes: int) -> NumbaSegment:
        """A new device array; numba's CUDA out-of-memory error becomes `RawOutOfMemory`."""
        cuda = _cuda()
        try:
            with self._on_device():
                array = cuda.device_array(nbytes, dtype=np.uint8)
        except (MemoryError, OutOfMemoryError) as exc:  # host RAM in the simulator; the EMM pool
            raise RawOutOfMemory(f"cuda:{self.device_index}: cannot allocate {nbytes} bytes: {exc}") from exc
        except Exception as exc:
            if not self._simulated and _is_cuda_oom(exc):
                raise RawOutOfMemory(f"cuda:{self.device_index}: cannot allocate {nbytes} bytes: {exc}") from exc
            raise
        return NumbaSegment(array, nbytes)

    def free(self, segment: NumbaSegment) -> None:
        """Drop the segment's array and flush Numba's queue of pending device frees."""
        segment.array = None
        if self._simulated:
            return
        # Numba queues the cuMemFree of a dead array and flushes the queue only now and then;
        # flush it, so that empty_cache() really gives the memory back to the device.
        cuda = _cuda()
        with self._on_device():
            deallocations = getattr(cuda.current_context().memory_manager, "deallocations", None)
            if deallocations is not None:
                deallocations.clear()

    def address(self, segment: NumbaSegment) -> int:
        if self._simulated:
            return segment.array.ctypes.data
        return segment.array.__cuda_array_interface__["data"][0]

    def total_memory(self) -> int:
        if self._simulated:
            return SIMULATOR_TOTAL_MEMORY
        with self._on_device():
            return _cuda().current_context().get_memory_info().total

    def view(self, segment: NumbaSegment, offset: int, nbytes: int) -> Any:
        return segment.array[offset:offset + nbytes]

    def record_event(self, stream: Hashable | None) -> Any:
        """A `numba.cuda.event()` recorded on `stream` (None: the default stream)."""
        cuda = _cuda()
        with self._on_device():
            # Timing costs a little on every record; the simulator's events take no arguments.
            event = cuda.event() if self._simulated else cuda.event(timing=False)
            event.record(0 if stream is None else stream)
        return event

    def event_query(self, event: Any) -> bool:
        return True if self._simulated else event.query()

    def event_synchronize(self, event: Any) -> None:
        event.synchronize()


class _DriverRawBackend(NumbaRawBackend):
    """cuMemAlloc/cuMemFree for the EMM plugin's pool.

    The plugin cannot sit on `NumbaRawBackend`: once installed, `cuda.device_array` calls the
    plugin itself. Segments are driver pointers (`CUdeviceptr`); views are integer addresses,
    which the plugin wraps in Numba memory pointers. Always called with the plugin's context
    current (Numba makes it current before calling `memalloc`).
    """

    def malloc(self, nbytes: int) -> Any:
        from numba.cuda.cudadrv.driver import driver

        try:
            return driver.cuMemAlloc(nbytes)
        except Exception as exc:
            if _is_cuda_oom(exc):
                raise RawOutOfMemory(f"cuda:{self.device_index}: cannot allocate {nbytes} bytes: {exc}") from exc
            raise

    def free(self, segment: Any) -> None:
        from numba.cuda.cudadrv.driver import driver

        driver.cuMemFree(segment)

    def address(self, segment: Any) -> int:
        return int(segment)

    def total_memory(self) -> int:
        from numba.cuda.cudadrv.driver import driver

        return driver.cuMemGetInfo()[1]

    def view(self, segment: Any, offset: int, nbytes: int) -> int:
        return int(segment) + offset


@functools.cache
def make_emm_plugin() -> type:
    """The class `EmberMemoryManager`: a Numba EMM plugin serving device memory from a caching pool.

    Created on first call, since it subclasses Numba's `HostOnlyCUDAMemoryManager` and this
    module must not import `numba.cuda` at import time. Numba makes one instance per context;
    each has its own `CachingAllocator` (attribute `allocator`) over cuMemAlloc. Numba's
    `memalloc` has no stream argument, so every block belongs to the default stream: a block is
    reused only by work queued after the default-stream work before its free, which the legacy
    default stream orders after all blocking streams. `get_ipc_handle` comes from Numba's
    `GetIpcHandleMixin` (the handle of the segment plus the block's offset in it). Real GPU only.
    """
    from numba import cuda
    from numba.cuda.cudadrv.driver import AutoFreePointer, driver

    class EmberMemoryManager(cuda.GetIpcHandleMixin, cuda.HostOnlyCUDAMemoryManager):
        """Numba's device allocations, served by ember's caching allocator (see `make_emm_plugin`)."""

        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            # Made lazily: set_memory_manager() instantiates the class with context=None.
            self._allocator: CachingAllocator | None = None

        @property
        def allocator(self) -> CachingAllocator:
            """This context's pool (created on first use, and again after a reset)."""
            if self._allocator is None:
                device_index = self.context.device.id
                self._allocator = CachingAllocator(_DriverRawBackend(device_index), device_index)
            return self._allocator

        def initialize(self) -> None:
            self._allocator = self.allocator

        def memalloc(self, size: int):
            allocator = self.allocator
            block = allocator.malloc(size)
            # AutoFreePointer: the block returns to the pool when the last array using it dies.
            return AutoFreePointer(weakref.proxy(self.context), ctypes.c_void_p(block.ptr), size,
                                   finalizer=functools.partial(allocator.free, block))

        def get_memory_info(self):
            free, total = driver.cuMemGetInfo()
            cached = self.allocator.memory_reserved() - self.allocator.memory_allocated()
            return cuda.MemoryInfo(free=free + cached, total=total)

        def reset(self) -> None:
            super().reset()
            if self._allocator is not None:
                self._allocator.empty_cache()
            self._allocator = None  # the context's reset frees whatever is still allocated

        @property
        def interface_version(self) -> int:
            return 1

    return EmberMemoryManager


def __getattr__(name: str) -> type:
    # `EmberMemoryManager` on demand; `_numba_memory_manager` is what Numba looks up when
    # NUMBA_CUDA_MEMORY_MANAGER=ember.core.cuda.raw_backends names this module.
    if name in ("EmberMemoryManager", "_numba_memory_manager"):
        return make_emm_plugin()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def install_emm_plugin() -> None:
    """Make Numba allocate all device memory through `EmberMemoryManager` (call before any CUDA use).

    ember's own `NumbaRawBackend` segments then come from the plugin's pool as well, so they
    are cached twice; install it only when Numba allocations outside ember matter.
    """
    _cuda().set_memory_manager(make_emm_plugin())
