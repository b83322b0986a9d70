"""CUDA kernels of mm, bmm and dot: the tiled shared-memory GEMM of `kernels.matmul`.

A cuBLAS fast path (CuPy or nvmath over `__cuda_array_interface__`) would pay on a real GPU;
the Numba GEMM is what runs everywhere, the simulator included.
"""

from __future__ import annotations

from ember.core import dtypes
from ember.core.cuda import launch_util as lu
from ember.core.cuda.kernels import matmul as KM
from ember.core.dispatch import get_op
from ember.core.tensor import Tensor

__all__ = ["register", "gemm"]

# 16 x 16 tiles on a GPU; 8 x 8 in the simulator, which runs one OS thread per CUDA thread
TILE = 8 if lu.SIMULATOR else 16


def _acc(dt: dtypes.dtype):
    return lu.compute_type(dt)


def gemm(a: Tensor, b: Tensor, c: Tensor) -> Tensor:
    """c[z] = a[z] @ b[z] for 3-D a (B, m, k), b (B, k, n) and c (B, m, n), any strides."""
    bat, m, k = a._shape
    n = b._shape[2]
    if bat * m * n == 0:
        return c
    if k == 0:
        return c.fill_(0)
    t = TILE
    grid = (-(-n // t), -(-m // t), bat)
    kern = KM.gemm(t, _acc(c._dtype))
    kern[grid, (t, t), lu.stream()](m, n, k, lu.typed(a), a._offset, *a._strides, lu.typed(b), b._offset,
                                    *b._strides, lu.typed(c), c._offset, *c._strides)
    return c


def _mm(a, b, *, out=None):
    c = lu.prepare_out(out, (a._shape[0], b._shape[1]), a._dtype, a._storage.device, "mm")
    gemm(a.unsqueeze(0), b.unsqueeze(0), c.unsqueeze(0))
    return c


def _bmm(a, b, *, out=None):
    c = lu.prepare_out(out, (a._shape[0], a._shape[1], b._shape[2]), a._dtype, a._storage.device, "bmm")
    return gemm(a, b, c)


def _dot(a, b, *, out=None):
    c = lu.prepare_out(out, (), a._dtype, a._storage.device, "dot")
    gemm(a.view(1, 1, -1), b.view(1, -1, 1), c.view(1, 1, 1))
    return c


def register() -> None:
    for name, fn in (("mm", _mm), ("bmm", _bmm), ("dot", _dot)):
        get_op(name).register("cuda")(fn)


def ptx_cases():
    from numba import types as T

    i = T.int64
    for label, arr, acc in (("float32", T.float32[::1], T.float32), ("float64", T.float64[::1], T.float64),
                            ("float16", T.float16[::1], T.float32), ("int64", T.int64[::1], T.int64)):
        yield (f"gemm[{label}]", KM.gemm_function(16, acc),
               (i, i, i, arr, i, i, i, i, arr, i, i, i, i, arr, i, i, i, i))
