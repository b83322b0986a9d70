"""Storage: one flat byte buffer on one device, shared by every view of it.

A storage owns its memory (a numpy uint8 array on the CPU, a device array handed out by the
caching allocator on CUDA) and a version counter that every in-place write bumps, so that the
autograd layer can tell when a tensor it saved has been modified. Memory goes back the moment
the last tensor holding the storage dies: nothing else keeps a reference.
"""

from __future__ import annotations

import numpy as np

from ember.core.device import CPU, device

__all__ = ["Storage"]


class Storage:
    """A flat buffer of `nbytes` bytes on `device`, with a version counter."""

    __slots__ = ("data", "nbytes", "device", "version", "_block", "_shared", "__weakref__")

    def __init__(self, data, nbytes: int, dev: device = CPU, block=None) -> None:
        self.data = data
        self.nbytes = nbytes
        self.device = dev
        self.version = 0
        self._block = block
        self._shared = None

    @classmethod
    def cpu(cls, nbytes: int) -> Storage:
        """A new, uninitialised CPU buffer of `nbytes` bytes."""
        return cls(np.empty(nbytes, dtype=np.uint8), nbytes)

    @classmethod
    def wrap_cpu(cls, buf: np.ndarray) -> Storage:
        """A storage over an existing contiguous uint8 numpy buffer (no copy)."""
        return cls(buf, buf.nbytes)

    def bump(self) -> None:
        """Record an in-place write (autograd checks saved tensors against this counter)."""
        self.version += 1

    def data_ptr(self) -> int:
        if self.device.type == "cpu":
            return self.data.ctypes.data
        return self.data.__cuda_array_interface__["data"][0]

    def __repr__(self) -> str:
        return f"Storage(nbytes={self.nbytes}, device={self.device}, version={self.version})"
