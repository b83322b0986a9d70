"""Private Numba CPU kernels of the dim-wise indexing ops (gather, scatter*, index_add_, index_copy_) and the
one-pass bounds check of every index.

NOTE [ Indexing through (outer, dim, inner) views ]
A dim-wise op reads or writes `x[o, idx[o, j, i], i]` where `o` runs over the dims before `dim` and
`i` over those after it. The callers collapse the tensors to such 3-D numpy views (strided, no copy
for a target that is written), so one loop serves every rank, layout and dim, without building the
int64 storage offsets of NOTE [ Indexing by storage offsets ] (a grid of the index's size, then a
fancy read of it: most of gather's and scatter's time). An index broadcast over `o` and `i`
(index_add_, index_copy_) is a stride-0 view; scatter_reduce's include_self=False and mean count
the writes per element. A kernel does not bounds-check: its callers validate every index first
(`index_bounds`). Writes go in index order, so repeated indices leave what the offset path leaves.
Copies (gather, SET) move raw bits (`bits_view`): one compilation serves every dtype of a size.
"""

from __future__ import annotations

from functools import cache

import numpy as np

SET, ADD, MUL, MAX, MIN = 0, 1, 2, 3, 4  # what a scatter does to an element (scatter_cpu's kernels too)
_BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def bits_view(a: np.ndarray) -> np.ndarray | None:
    """`a` viewed as unsigned ints of its item size (None for 16-byte items): what a copy kernel moves."""
    t = _BITS.get(a.dtype.itemsize)
    return None if t is None else a.view(t)


@cache
def index_bounds():
    import numba

    # a: 1-D int64, non-empty; returns its (min, max) in one pass
    @numba.njit(cache=True, nogil=True)
    def bounds(a):
        lo = a[0]
        hi = a[0]
        for i in range(1, a.size):  # branch-free, so that it vectorizes
            lo = min(lo, a[i])
            hi = max(hi, a[i])
        return lo, hi

    return bounds


@cache
def gather3():
    import numba

    # x: (O, size, I), idx/out: (O, K, I), any strides; every idx in [0, size)
    @numba.njit(cache=True, nogil=True)
    def gather(x, idx, out):
        n_o, n_k, n_i = idx.shape
        for o in range(n_o):
            if n_i == 1:  # the last dim: 1-D rows index faster than the 3-D arrays
                xr, ir, orow = x[o, :, 0], idx[o, :, 0], out[o, :, 0]
                for k in range(n_k):
                    orow[k] = xr[ir[k]]
            else:
                xo, io, oo = x[o], idx[o], out[o]
                for k in range(n_k):
                    for i in range(n_i):
                        oo[k, i] = xo[io[k, i], i]

    return gather


@cache
def scatter3():
    """(scatter, scatter_counted, mean_counted): module-level kernels, so that Numba's disk cache serves them in
    every process (defined in this factory, closing over `apply`, they recompiled in each: 9 s a process)."""
    from ember.core.ops import _scatter_jit as k

    return k.scatter, k.scatter_counted, k.mean_counted
