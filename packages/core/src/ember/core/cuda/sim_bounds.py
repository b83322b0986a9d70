"""A pytest plugin for CUDA-simulator runs (`pytest -p ember.core.cuda.sim_bounds`): a kernel that indexes an
array with a negative integer fails with IndexError.

The simulator runs kernels on numpy arrays, so an index past an array's end already raises; a negative
one would wrap around silently (as it does on the device), hiding an offset computed wrong. No ember kernel
indexes from the end, so in a test run every negative index is a bug.
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["install"]


def _check(idx) -> None:
    for k in idx if isinstance(idx, tuple) else (idx,):
        if isinstance(k, int | np.integer) and not isinstance(k, bool) and k < 0:
            raise IndexError(f"negative index {k} in a CUDA kernel (the simulator's bounds check)")


def install() -> None:
    """Patch the simulator's in-kernel array type so that negative integer indices raise."""
    from numba.cuda.simulator.cudadrv import devicearray as sim

    cls = sim.FakeWithinKernelCUDAArray
    if getattr(cls, "_ember_bounds", False):
        return
    get, put = cls.__getitem__, cls.__setitem__

    def getitem(self, idx):
        _check(idx)
        return get(self, idx)

    def setitem(self, idx, val):
        _check(idx)
        put(self, idx, val)

    cls.__getitem__, cls.__setitem__ = getitem, setitem
    cls._ember_bounds = True


def pytest_configure(config) -> None:
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        install()
