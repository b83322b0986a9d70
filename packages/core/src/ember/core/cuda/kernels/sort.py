"""Bitonic sort of rows in shared memory: one block per row, `size` (a power of two >= the row
length) slots of (value, index), sorted by a stable order (ties by index; NaN above every
number, as PyTorch: last ascending, first descending); padding slots sort after everything.
The first `k` slots are written out, so topk is a sort that writes fewer. Rows too long for
shared memory run the same network in global memory, one launch per compare-exchange stage
(`global_load`, `global_step`, `global_store`).

Layout assumption: `km` rows are (row-index shape, values strides, input strides, indices
strides) over the dims other than the sorted one; `rm[0]` holds that dim's (input, values,
indices) strides.
"""

from __future__ import annotations

from functools import cache

from numba import cuda
from numba import types as nbt

from ember.core.cuda.kernels.reduce import _offset

__all__ = [
    "sort_function", "global_load_function", "global_step_function", "global_store_function", "global_load",
    "global_step", "global_store", "sort"
]


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


def global_load_function(acc_t):
    """keys/slots (rows, size) contiguous <- the input rows, padded; slot j holds index j."""

    def kernel(total, size, n, km, rm, x, x_off, keys, slots):
        i = cuda.grid(1)
        sx = rm[0, 0]
        while i < total:
            o = i // size
            j = i % size
            keys[i] = acc_t(x[_offset(o, x_off, km, 2) + j * sx]) if j < n else acc_t(0)
            slots[i] = j
            i += cuda.gridsize(1)

    return kernel


def global_step_function():
    """One compare-exchange stage (kk, jj) of the bitonic network over every row."""

    def kernel(total, size, n, kk, jj, keys, slots, desc):
        i = cuda.grid(1)
        while i < total:
            local = i % size
            m = local ^ jj
            if m > local:
                a = i
                b = i - local + m
                up = (local & kk) == 0
                swap = _before(keys[b], slots[b], keys[a], slots[a], n, desc) if up else \
                    _before(keys[a], slots[a], keys[b], slots[b], n, desc)
                if swap:
                    tv = keys[a]
                    keys[a] = keys[b]
                    keys[b] = tv
                    ti = slots[a]
                    slots[a] = slots[b]
                    slots[b] = ti
            i += cuda.gridsize(1)

    return kernel


def global_store_function():
    """The first `k` slots of each sorted row -> values and indices (strided, see the layout)."""

    def kernel(total, size, k, km, rm, keys, slots, vals, v_off, idx, i_off):
        i = cuda.grid(1)
        svs = rm[0, 1]
        sis = rm[0, 2]
        while i < total:
            o = i // k
            j = i % k
            vals[_offset(o, v_off, km, 1) + j * svs] = keys[o * size + j]
            idx[_offset(o, i_off, km, 3) + j * sis] = slots[o * size + j]
            i += cuda.gridsize(1)

    return kernel


@cache
def global_load(acc_t):
    return cuda.jit(global_load_function(acc_t))


@cache
def global_step():
    return cuda.jit(global_step_function())


@cache
def global_store():
    return cuda.jit(global_store_function())


@cache
def sort(size: int, acc_t, threads: int):
    return cuda.jit(sort_function(size, acc_t, threads))
