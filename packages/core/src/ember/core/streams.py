"""`torch.Stream` and `torch.Event`: device-generic streams and events. On the CPU, work runs as it is
issued, so a stream is always idle and synchronizing does nothing; recording a CPU event raises, as
in PyTorch. On CUDA they wrap `ember.core.cuda`'s `Stream` and `Event`."""

from __future__ import annotations

from ember.core.device import device as _device

__all__ = ["Stream", "Event"]

_NO_CPU_EVENTS = "cpu backend doesn't support events."


def _resolve(device) -> _device:
    """`device`, or the accelerator (CUDA) where one is available, else the CPU."""
    if device is not None:
        return _device(device) if not isinstance(device, int) else _device("cuda", device)
    from ember.core import cuda

    return _device("cuda", cuda.current_device()) if cuda.is_available() else _device("cpu")


class Stream:
    """A device's queue of work (`torch.Stream(device=None, *, priority=0)`); a context manager that
    makes it the current stream of its device."""

    def __init__(self, device=None, *, priority: int = 0) -> None:
        d = _resolve(device)
        self.device_type = d.type
        self.priority = priority
        self._impl = None
        if d.type == "cuda":
            from ember.core import cuda

            self._impl = cuda.Stream(d, priority)
            self.device_index = self._impl.device_index
        else:
            self.device_index = -1
        self._ctx = None

    @property
    def device(self) -> _device:
        return _device(self.device_type) if self.device_index < 0 else _device(self.device_type, self.device_index)

    @property
    def stream_id(self) -> int:
        return 0 if self._impl is None else self._impl.cuda_stream

    def query(self) -> bool:
        """Whether all work queued on the stream has finished (always, on the CPU)."""
        return True if self._impl is None else self._impl.query()

    def synchronize(self) -> None:
        """Wait for the stream's work (nothing to wait for on the CPU)."""
        if self._impl is not None:
            self._impl.synchronize()

    def wait_event(self, event: Event) -> None:
        """Make later work on this stream wait for `event`."""
        if self._impl is not None:
            self._impl.wait_event(event._cuda_event())

    def wait_stream(self, stream: Stream) -> None:
        """Make later work on this stream wait for the work queued so far on `stream`."""
        if self._impl is None:
            raise RuntimeError(_NO_CPU_EVENTS)
        self._impl.wait_stream(stream._impl)

    def record_event(self, event: Event | None = None) -> Event:
        """Record `event` (a new one by default) on this stream; returns it."""
        event = Event(self.device) if event is None else event
        event.record(self)
        return event

    def __enter__(self) -> Stream:
        if self._impl is not None:
            from ember.core import cuda

            self._ctx = cuda.stream(self._impl)
            self._ctx.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._ctx is not None:
            self._ctx.__exit__(*exc)
            self._ctx = None

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and (other.device, other._impl) == (self.device, self._impl)

    def __hash__(self) -> int:
        return hash((self.device_type, self.device_index, self._impl))

    def __repr__(self) -> str:
        return (f"torch.Stream device_type={self.device_type}, device_index={self.device_index}, "
                f"stream_id={self.stream_id}")


class Event:
    """A marker in a stream's work (`torch.Event(device=None, *, enable_timing=False, blocking=False,
    interprocess=False)`)."""

    def __init__(self, device=None, *, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False) -> None:
        d = _resolve(device)
        self.device_type = d.type
        self.device_index = -1 if d.type == "cpu" else d.index
        self.enable_timing = enable_timing
        self._impl = None
        if d.type == "cuda":
            from ember.core import cuda

            self._impl = cuda.Event(enable_timing, blocking, interprocess)

    @property
    def device(self) -> _device:
        return _device(self.device_type) if self.device_index < 0 else _device(self.device_type, self.device_index)

    def _cuda_event(self):
        if self._impl is None:
            raise RuntimeError(_NO_CPU_EVENTS)
        return self._impl

    def record(self, stream: Stream | None = None) -> None:
        """Mark the work queued so far on `stream` (default: the current one); CPU events cannot."""
        self._cuda_event().record(None if stream is None else stream._impl)

    def wait(self, stream: Stream | None = None) -> None:
        """Make `stream` wait for this event (nothing to wait for on the CPU)."""
        if self._impl is not None:
            self._impl.wait(None if stream is None else stream._impl)

    def query(self) -> bool:
        """Whether the recorded work has finished."""
        return True if self._impl is None else self._impl.query()

    def synchronize(self) -> None:
        """Wait for the recorded work."""
        if self._impl is not None:
            self._impl.synchronize()

    def elapsed_time(self, end_event: Event) -> float:
        """Milliseconds between this event and `end_event`, both made with `enable_timing=True`."""
        if not (self.enable_timing and end_event.enable_timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        return self._cuda_event().elapsed_time(end_event._cuda_event())

    def __repr__(self) -> str:
        return f"torch.Event device_type={self.device_type}, device_index={self.device_index}, event_flag=0"
