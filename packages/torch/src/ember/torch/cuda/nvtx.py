"""`torch.cuda.nvtx`: NVTX range and marker annotations for Nsight. ember emits no NVTX events (it
links no NVTX library); the calls keep PyTorch's return values (range depth, range ids) so
annotated programs run unchanged."""

from __future__ import annotations

import itertools
import threading
from contextlib import contextmanager

__all__ = ["range_push", "range_pop", "range_start", "range_end", "mark", "range"]

_local = threading.local()
_ids = itertools.count(1)


def _stack() -> list:
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


def range_push(msg: str) -> int:
    """Open a nested range; returns its zero-based depth."""
    stack = _stack()
    stack.append(msg)
    return len(stack) - 1


def range_pop() -> int:
    """Close the innermost range; returns its depth, or -1 when none is open."""
    stack = _stack()
    if not stack:
        return -1
    stack.pop()
    return len(stack)


def range_start(msg: str) -> int:
    """Open a range that may span threads; returns its id for `range_end`."""
    return next(_ids)


def range_end(range_id: int) -> None:
    """Close the range `range_start` opened."""


def mark(msg: str) -> None:
    """An instantaneous marker."""


@contextmanager
def range(msg: str, *args, **kwargs):  # noqa: A001 - PyTorch's name
    """`with range("step {}", i):` a range around the block (the message formatted with the arguments)."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
