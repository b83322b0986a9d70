"""The scatter loops of NOTE [ Indexing through (outer, dim, inner) views ] (in `_index_kernels`), at module
level so that Numba's disk cache serves them in every process: defined in a factory, they closed over the jitted
`apply`, whose pickle carries a per-process id, so each process missed the cache and recompiled them (seconds on
the first scatter). Imported on first use by `_index_kernels.scatter3`."""

import numba

from ember.core.ops._index_kernels import ADD, MAX, MIN, MUL, SET


@numba.njit(cache=True, nogil=True, inline="always")
def apply(old, v, mode):  # the new value of an element `old` receiving `v`
    if mode == ADD:
        return old + v
    if mode == MUL:
        return old * v
    if mode == MAX:
        return v if v > old or v != v else old
    if mode == MIN:
        return v if v < old or v != v else old
    return v


# t: (O, size, I) written in place, in index order; idx/src: (O, K, I), any strides; every idx in [0, size)
@numba.njit(cache=True, nogil=True)
def scatter(t, idx, src, mode):
    n_o, n_k, n_i = idx.shape
    for o in range(n_o):
        if n_i == 1:  # the last dim: 1-D rows index faster than the 3-D arrays
            tr, ir, sr = t[o, :, 0], idx[o, :, 0], src[o, :, 0]
            for k in range(n_k):
                j = ir[k]
                tr[j] = apply(tr[j], sr[k], mode)
        elif idx.strides[2] == 0:  # one index per row (index_add_, index_copy_): whole rows, vectorized
            for k in range(n_k):
                tr, sr = t[o, idx[o, k, 0]], src[o, k]
                if mode == ADD:
                    for i in range(n_i):
                        tr[i] += sr[i]
                elif mode == SET:  # a loop: `tr[:] = sr` compiles numba's shape-mismatch message (seconds, cold)
                    for i in range(n_i):
                        tr[i] = sr[i]
                else:
                    for i in range(n_i):
                        tr[i] = apply(tr[i], sr[i], mode)
        else:
            to, io, so = t[o], idx[o], src[o]
            for k in range(n_k):
                for i in range(n_i):
                    j = io[k, i]
                    to[j, i] = apply(to[j, i], so[k, i], mode)


# the same, counting the writes to each element in `count` (t's shape, zeros); without `include_self`
# the first write to an element replaces it (scatter_reduce's include_self=False, and its mean)
@numba.njit(cache=True, nogil=True)
def scatter_counted(t, idx, src, mode, include_self, count):
    n_o, n_k, n_i = idx.shape
    for o in range(n_o):
        for k in range(n_k):
            for i in range(n_i):
                j = idx[o, k, i]
                v = src[o, k, i]
                c = count[o, j, i]
                t[o, j, i] = v if c == 0 and not include_self else apply(t[o, j, i], v, mode)
                count[o, j, i] = c + 1


# scatter_reduce's mean: each element written to, over its count (+1 with include_self); `floor` for ints
@numba.njit(cache=True, nogil=True)
def mean_counted(t, count, extra, floor):
    n_o, n, n_i = t.shape
    for o in range(n_o):
        for j in range(n):
            for i in range(n_i):
                c = count[o, j, i]
                if c:
                    t[o, j, i] = t[o, j, i] // (c + extra) if floor else t[o, j, i] / (c + extra)
