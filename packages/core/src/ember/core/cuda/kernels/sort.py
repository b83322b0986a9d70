"""Bitonic sort of rows in shared memory: one block per row, `size` (a power of two >= the row
length) slots of (value, index), sorted by a stable order (ties by index; NaN above every
number, as PyTorch: last ascending, first descending); padding slots sort after everything.
The first `k` slots are written out, so topk is a sort that writes fewer.

Layout assumption: `km` rows are (row-index shape, values strides, input strides, indices
strides) over the dims other than the sorted one; `rm[0]` holds that dim's (input, values,
indices) strides.
"""

from __future__ import annotations

from functools import cache

from numba import cuda
from numba import types as nbt

from ember.core.cuda.kernels.reduce import _offset


@cuda.jit(device=True)
def _before(va, ia, vb, ib, n, desc):
    """Whether slot a precedes slot b."""
    if ia >= n or ib >= n:
        return ib >= n and (ia < n or ia < ib)
    na = va != va
    nb = vb != vb
    if na or nb:
        if na and nb:
            return ia < ib
        return na if desc else nb
    if va == vb:
        return ia < ib
    return va > vb if desc else va < vb


def sort_function(size: int, acc_t, threads: int):
    def kernel(nrows, n, km, rm, vals, v_off, idx, i_off, x, x_off, desc, k):
        sv = cuda.shared.array(size, acc_t)
        si = cuda.shared.array(size, nbt.int64)
        tid = cuda.threadIdx.x
        o = cuda.blockIdx.x
        sx = rm[0, 0]
        svs = rm[0, 1]
        sis = rm[0, 2]
        while o < nrows:
            px = _offset(o, x_off, km, 2)
            pv = _offset(o, v_off, km, 1)
            pi = _offset(o, i_off, km, 3)
            for j in range(tid, size, threads):
                sv[j] = acc_t(x[px + j * sx]) if j < n else acc_t(0)
                si[j] = j
            cuda.syncthreads()
            kk = 2
            while kk <= size:
                jj = kk // 2
                while jj > 0:
                    for i in range(tid, size, threads):
                        m = i ^ jj
                        if m > i:
                            up = (i & kk) == 0
                            swap = _before(sv[m], si[m], sv[i], si[i], n, desc) if up else \
                                _before(sv[i], si[i], sv[m], si[m], n, desc)
                            if swap:
                                tv = sv[i]
                                sv[i] = sv[m]
                                sv[m] = tv
                                ti = si[i]
                                si[i] = si[m]
                                si[m] = ti
                    cuda.syncthreads()
                    jj //= 2
                kk *= 2
            for j in range(tid, k, threads):
                vals[pv + j * svs] = sv[j]
                idx[pi + j * sis] = si[j]
            cuda.syncthreads()
            o += cuda.gridDim.x

    return kernel


@cache
def sort(size: int, acc_t, threads: int):
    return cuda.jit(sort_function(size, acc_t, threads))
