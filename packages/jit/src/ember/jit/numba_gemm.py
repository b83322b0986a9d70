"""The GEMM a whole-plan run calls (NOTE [ The whole plan as one function ] in ember.jit.wholeplan).

One cached Numba function per operand layout, shared by every run: a run's own compile then types a call
instead of instantiating `np.dot`'s BLAS glue again (each run is another source, so another compile)."""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["gemm"]


@numba.njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def gemm(a, b, out):
    """`out = a @ b` through BLAS (`a`, `b` C- or F-contiguous matrices, `out` a C-contiguous one)."""
    np.dot(a, b, out)
