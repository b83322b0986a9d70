"""`torch.profiler`: `record_function` labels a region (a no-op here, as in PyTorch with no profiler
running); `profile` is not provided, since its reports come from PyTorch's C++ profiler (Kineto)."""

from __future__ import annotations

import contextlib
import enum

from ember.torch._unsupported import unsupported

_WHY = "its measurements come from PyTorch's C++ profiler (Kineto); time ember code with ember.bench or cProfile"
profile = unsupported("torch.profiler.profile", _WHY)
schedule = unsupported("torch.profiler.schedule", _WHY)
tensorboard_trace_handler = unsupported("torch.profiler.tensorboard_trace_handler", _WHY)


class ProfilerActivity(enum.Enum):
    """What a profiler records (accepted for `profile`'s arguments)."""

    CPU = 0
    CUDA = 1


class record_function(contextlib.ContextDecorator):
    """Label a region for a profiler; with none running it does nothing (as in PyTorch)."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None


__all__ = ["profile", "schedule", "tensorboard_trace_handler", "ProfilerActivity", "record_function"]
