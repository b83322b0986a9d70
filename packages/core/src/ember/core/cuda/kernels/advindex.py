"""Advanced indexing: `x[i0, i1, i2]` with up to three integer index tensors (numpy placement),
read into a result (`index`) or written/accumulated from values (`index_put_`).

Layout assumption: the grid-stride loop runs over the result shape (`meta` row 0); row 1 holds
the strides of the result-shaped operand (the output, or the values broadcast to the result),
row 2 the strides of `x` for the result dims that are plain slices (0 on the broadcast index
dims), rows 3-5 the broadcast strides of each index tensor. `kinfo[k]` is (x stride of the
indexed dim, its size, the index tensor's offset). Negative indices wrap; the op's meta step
has checked every index (NOTE [ The meta step ]), and an index out of range would still only
skip the element (reads give 0), never touch memory outside the tensors.
"""

from __future__ import annotations

from functools import cache

from numba import cuda

__all__ = ["adv_index_function", "adv_index"]


def adv_index_function(put: bool, accumulate: bool, vt):
    def kernel(n, meta, kinfo, nk, a, a_off, x, x_off, i0, i1, i2):
        i = cuda.grid(1)
        step = cuda.gridsize(1)
        nd = meta.shape[1]
        while i < n:
            rem = i
            pa = a_off
            px = x_off
            q0 = kinfo[0, 2]
            q1 = kinfo[1, 2]
            q2 = kinfo[2, 2]
            for d in range(nd - 1, -1, -1):
                s = meta[0, d]
                c = rem % s
                rem //= s
                pa += c * meta[1, d]
                px += c * meta[2, d]
                q0 += c * meta[3, d]
                q1 += c * meta[4, d]
                q2 += c * meta[5, d]
            ok = True
            for k in range(nk):
                j = i0[q0] if k == 0 else (i1[q1] if k == 1 else i2[q2])
                size = kinfo[k, 1]
                if j < 0:
                    j += size
                if j < 0 or j >= size:
                    ok = False
                px += j * kinfo[k, 0]
            if put:
                if ok:
                    if accumulate:
                        cuda.atomic.add(x, px, vt(a[pa]))
                    else:
                        x[px] = a[pa]
            else:
                a[pa] = x[px] if ok else 0
            i += step

    return kernel


@cache
def adv_index(put: bool, accumulate: bool, vt):
    return cuda.jit(adv_index_function(put, accumulate, vt))
