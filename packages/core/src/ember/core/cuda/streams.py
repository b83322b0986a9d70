"""CUDA streams and events, the current stream, and the count of host synchronizations.

NOTE [ Asynchronous execution ]
Every kernel is queued on the current stream and the launch returns at once, so Python keeps
issuing while the device works (the paper's Figure 1). The host waits for the device only when
a value is asked for (`item`, `tolist`, `numpy`, `cpu`, printing) or when the user says so
(`synchronize`, `Event.synchronize`, `Stream.synchronize`). Each such wait goes through
`count_sync()`, so tests can assert that a training step performs none.
"""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from numba import cuda as _cuda
from numba import config as _config

__all__ = ["Stream", "ExternalStream", "StreamContext", "Event", "current_stream", "default_stream", "stream",
           "set_stream", "synchronize", "sync_count", "count_sync", "SIMULATOR"]

SIMULATOR = bool(_config.ENABLE_CUDASIM)

_syncs = 0
_sync_debug_mode = 0
_local = threading.local()


def count_sync(explicit: bool = False) -> None:
    """Record one blocking wait of the host for the device; an implicit one (a value read back) warns
    or raises as `set_sync_debug_mode` asks."""
    global _syncs
    _syncs += 1
    if _sync_debug_mode and not explicit:
        if _sync_debug_mode >= 2:
            raise RuntimeError("called a synchronizing CUDA operation")
        warnings.warn("called a synchronizing CUDA operation", UserWarning, stacklevel=3)


def set_sync_debug_mode(mode: int) -> None:
    """0: implicit synchronizations pass; 1: each warns; 2: each raises (`torch.cuda.set_sync_debug_mode`)."""
    global _sync_debug_mode
    _sync_debug_mode = mode


def get_sync_debug_mode() -> int:
    return _sync_debug_mode


def sync_count() -> int:
    """How many times the host has waited for the device since the process started."""
    return _syncs


class Stream:
    """A queue of device work that runs in issue order (`torch.cuda.Stream`).

    Args:
        device: the device the stream belongs to (only device 0 exists in the simulator).
        priority: accepted for PyTorch compatibility; streams are created with default priority.
    """

    def __init__(self, device=None, priority: int = 0, *, _numba_stream=None) -> None:
        from ember.core.cuda import _device_index, _lazy_init

        _lazy_init()  # without a device: PyTorch's RuntimeError, saying why
        self.device_index = _device_index(device)
        self.priority = priority
        self._s = _numba_stream if _numba_stream is not None else _cuda.stream()

    @property
    def device(self):
        from ember.core.device import device

        return device("cuda", self.device_index)

    @property
    def cuda_stream(self) -> int:
        """The raw `cudaStream_t` (0 for the legacy default stream and in the simulator)."""
        return 0 if SIMULATOR else int(self._s)

    def synchronize(self) -> None:
        """Block the host until all work queued on this stream has finished."""
        count_sync(explicit=True)
        self._s.synchronize()

    def query(self) -> bool:
        """Whether all work queued on this stream has finished (never blocks)."""
        e = Event()
        e.record(self)
        return e.query()

    def wait_event(self, event: Event) -> None:
        """Make future work on this stream wait for `event` (the host does not wait)."""
        event.wait(self)

    def wait_stream(self, stream: Stream) -> None:
        """Make future work on this stream wait for the work queued so far on `stream`."""
        e = Event()
        e.record(stream)
        self.wait_event(e)

    def record_event(self, event: Event | None = None) -> Event:
        event = event or Event()
        event.record(self)
        return event

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and other._s is self._s

    def __hash__(self) -> int:
        return hash(id(self._s))

    def __repr__(self) -> str:
        return f"<ember.core.cuda.Stream device=cuda:{self.device_index} cuda_stream={self.cuda_stream:#x}>"


class ExternalStream(Stream):
    """A stream allocated outside ember (`torch.cuda.ExternalStream`): `stream_ptr` is its raw
    `cudaStream_t`, which the other library keeps alive and frees."""

    def __init__(self, stream_ptr: int, device=None, **kwargs) -> None:
        super().__init__(device, _numba_stream=_cuda.external_stream(stream_ptr))


class Event:
    """A marker in a stream's work (`torch.cuda.Event`): record, wait, query, time.

    The simulator runs everything synchronously and records no timings; there
    `elapsed_time` measures the host time between the two `record` calls.
    """

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> None:
        from ember.core.cuda import _lazy_init

        _lazy_init()
        self.enable_timing = enable_timing
        self._e = _cuda.event() if SIMULATOR else _cuda.event(timing=enable_timing)
        self._host_ns: int | None = None

    def record(self, stream: Stream | None = None) -> None:
        """Mark the point reached by the work queued so far on `stream` (default: current)."""
        s = stream or current_stream()
        self._host_ns = time.perf_counter_ns()
        self._e.record(s._s)

    def wait(self, stream: Stream | None = None) -> None:
        """Make `stream` (default: current) wait for this event before running later work."""
        self._e.wait((stream or current_stream())._s)

    def query(self) -> bool:
        """Whether the recorded work has finished (never blocks)."""
        q = getattr(self._e, "query", None)
        return True if q is None else bool(q())

    def synchronize(self) -> None:
        """Block the host until the recorded work has finished."""
        count_sync(explicit=True)
        self._e.synchronize()

    def elapsed_time(self, end_event: Event) -> float:
        """Milliseconds between this event and `end_event` (both recorded and finished)."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self._host_ns is None or end_event._host_ns is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        if SIMULATOR:
            return (end_event._host_ns - self._host_ns) / 1e6
        return float(self._e.elapsed_time(end_event._e))

    def __repr__(self) -> str:
        return f"<ember.core.cuda.Event enable_timing={self.enable_timing}>"


_default: dict[int, Stream] = {}


def default_stream(device=None) -> Stream:
    """The legacy default stream of `device`, which orders with every other stream."""
    from ember.core.cuda import _device_index

    idx = _device_index(device)
    s = _default.get(idx)
    if s is None:
        s = _default[idx] = Stream(idx, _numba_stream=_cuda.default_stream())
    return s


def current_stream(device=None) -> Stream:
    """The stream that kernels of this thread launch on (the default stream unless changed)."""
    s = getattr(_local, "stream", None)
    return s if s is not None else default_stream(device)


def set_stream(s: Stream) -> None:
    """Make `s` the current stream of this thread."""
    _local.stream = s


@contextmanager
def stream(s: Stream | None) -> Iterator[Stream | None]:
    """`with stream(s):` launches on `s` inside the block; `None` changes nothing."""
    if s is None:
        yield None
        return
    prev = getattr(_local, "stream", None)
    _local.stream = s
    try:
        yield s
    finally:
        _local.stream = prev


class StreamContext:
    """`with StreamContext(s):` launches on `s` inside the block (`torch.cuda.StreamContext`, what
    `torch.cuda.stream` returns in PyTorch); `None` changes nothing."""

    def __init__(self, stream: Stream | None) -> None:
        self.stream = stream
        self._prev = None

    def __enter__(self) -> None:
        if self.stream is not None:
            self._prev = getattr(_local, "stream", None)
            _local.stream = self.stream

    def __exit__(self, *exc) -> None:
        if self.stream is not None:
            _local.stream = self._prev


def synchronize(device=None) -> None:
    """Block the host until all work on every stream of the device has finished."""
    count_sync(explicit=True)
    _cuda.synchronize()


def allocator_key(s: Stream):
    """The allocator's pool key for a stream: None for the default stream, else the numba stream."""
    return None if s is _default.get(s.device_index) else s._s
