"""Tiled matrix multiply: C[b] = A[b] @ B[b] over strided operands, through shared memory.

Layout assumption: one block of `tile` x `tile` threads computes one `tile` x `tile` tile of
C for batch `blockIdx.z`; threadIdx.x runs along C's columns, threadIdx.y along its rows. Each
step stages a tile of A and one of B in shared memory (zero-padded at the edges), so every
element of A and B is read from global memory once per tile of C instead of once per product.
"""

from __future__ import annotations

from functools import cache

from numba import cuda

__all__ = ["gemm_function", "gemm"]


def gemm_function(tile: int, acc_t):
    """The kernel for `tile` x `tile` tiles accumulating in `acc_t`."""

    def kernel(m, n, k, a, a_off, a_sb, a_sm, a_sk, b, b_off, b_sb, b_sk, b_sn, c, c_off, c_sb, c_sm, c_sn):
        sa = cuda.shared.array((tile, tile), acc_t)
        sb = cuda.shared.array((tile, tile), acc_t)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        row = cuda.blockIdx.y * tile + ty
        col = cuda.blockIdx.x * tile + tx
        z = cuda.blockIdx.z
        pa = a_off + z * a_sb + row * a_sm
        pb = b_off + z * b_sb + col * b_sn
        acc = acc_t(0)
        for t0 in range(0, k, tile):
            ka = t0 + tx
            sa[ty, tx] = acc_t(a[pa + ka * a_sk]) if row < m and ka < k else acc_t(0)
            kb = t0 + ty
            sb[ty, tx] = acc_t(b[pb + kb * b_sk]) if kb < k and col < n else acc_t(0)
            cuda.syncthreads()
            for kk in range(tile):
                acc += sa[ty, kk] * sb[kk, tx]
            cuda.syncthreads()
        if row < m and col < n:
            c[c_off + z * c_sb + row * c_sm + col * c_sn] = acc

    return kernel


@cache
def gemm(tile: int, acc_t):
    return cuda.jit(gemm_function(tile, acc_t))
