"""The dim-indexed kernel behind gather, scatter(_add), index_select/add/copy/fill and embedding.

Layout assumption: the grid-stride loop runs over an iteration shape (`meta` row 0) with
strides of the destination (row 1), the source (row 2) and the index tensor (row 3); the
indexed side has stride 0 along `dim` and instead moves by `k * dst_ks` (or `k * src_ks`)
with `k = idx[...]`. Negative indices wrap when `wrap` is set. The ops' meta steps raise for
an out-of-range index before launching (NOTE [ The meta step ]); the kernel still skips one
outside `[0, size)` (a gather writes 0 there), so it never touches memory outside its tensors. Accumulation
uses atomics (add, max, min), so repeated indices combine correctly.
"""

from __future__ import annotations

from functools import cache

from numba import cuda

__all__ = ["SET", "ADD", "MAX", "MIN", "dim_index_function", "dim_index"]


SET, ADD, MAX, MIN = range(4)


def dim_index_function(mode: int, vt):
    """The kernel; `mode` stores (SET) or combines atomically (ADD, MAX, MIN); `vt` is the destination's type."""

    def kernel(n, meta, size, wrap, dst, dst_off, dst_ks, src, src_off, src_ks, scalar, use_scalar, alpha, idx,
               idx_off, zero_missing):
        i = cuda.grid(1)
        step = cuda.gridsize(1)
        nd = meta.shape[1]
        while i < n:
            rem = i
            pd = dst_off
            ps = src_off
            pi = idx_off
            for d in range(nd - 1, -1, -1):
                s = meta[0, d]
                c = rem % s
                rem //= s
                pd += c * meta[1, d]
                ps += c * meta[2, d]
                pi += c * meta[3, d]
            k = idx[pi]
            if wrap and k < 0:
                k += size
            if 0 <= k < size:
                v = vt(scalar) if use_scalar else vt(src[ps + k * src_ks])
                if mode == ADD:
                    cuda.atomic.add(dst, pd + k * dst_ks, vt(v * alpha))
                elif mode == MAX:
                    cuda.atomic.max(dst, pd + k * dst_ks, v)
                elif mode == MIN:
                    cuda.atomic.min(dst, pd + k * dst_ks, v)
                else:
                    dst[pd + k * dst_ks] = v
            elif zero_missing:
                dst[pd] = 0
            i += step

    return kernel


@cache
def dim_index(mode: int, vt):
    return cuda.jit(dim_index_function(mode, vt))
