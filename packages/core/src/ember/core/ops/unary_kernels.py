"""Eager CPU kernels of the float32/float64 transcendental unary ops: loops over the scalar functions of
`ember.core.ops.vector_math.SCALAR`, the ones ember.jit's fused kernels inline, so eager and fused give the
same bits (NOTE [ Eager and fused transcendentals share one implementation ]).

Each op gets two Numba loops over C-contiguous arrays (compiled per dtype and ndim on first use, cached on
disk): a serial one, which LLVM vectorizes for the float32 forms and float64 exp, tanh, sigmoid and silu,
and a `prange` one from `PARALLEL_MIN` elements (each element is computed alone, so the bits do not depend
on the thread count). Any layout: an
F-order array runs as its transpose, any other view is copied row-major first (numpy's result layout).
"""

from __future__ import annotations

from functools import cache

import numpy as np

__all__ = ["NAMES", "PARALLEL_MIN", "implementation", "quick", "unary"]

NAMES = ("exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
         "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "silu")
# as ember.jit's `config.fuse_parallel_min`: below it a thread pool's start-up costs more than it saves (2 cores)
PARALLEL_MIN = 1 << 20
_FLOATS = frozenset({np.dtype(np.float32), np.dtype(np.float64)})
# name -> dtype -> ndim -> the serial loop's compiled entry for writable C-contiguous arrays: a small tensor's
# call skips the dispatcher's typing of its arguments (NOTE [ The cost of a small call ] in `quick`)
_ENTRY: dict = {}


@cache
def _loops(name: str) -> tuple:
    """(serial, parallel) Numba loops `o = f(x)` elementwise over C-contiguous arrays of one dtype and shape (any
    ndim, flattened inside: no Python-side reshape), `f` the op's float32 or float64 function."""
    import numba

    from ember.core.ops.vector_math import GENERIC

    f = GENERIC[name]  # a module global: the closure's cache key is the same in every process
    # error_model="numpy": no ZeroDivisionError branch, which would keep LLVM from vectorizing the loop
    opts = {"cache": True, "nogil": True, "error_model": "numpy", "no_cfunc_wrapper": True}

    @numba.njit(**opts)
    def serial(x, o):
        xf, of = x.reshape(-1), o.reshape(-1)
        for i in range(xf.shape[0]):
            of[i] = f(xf[i])

    @numba.njit(**opts, parallel=True)
    def parallel(x, o):
        xf, of = x.reshape(-1), o.reshape(-1)
        for i in numba.prange(xf.shape[0]):
            of[i] = f(xf[i])

    return serial, parallel


def unary(name: str, x: np.ndarray, dtype=None, out: np.ndarray | None = None) -> np.ndarray | None:
    """Op `name` of `x` computed in `dtype` (x's by default) into a new array or `out` (of that dtype and x's
    shape), as the numpy ufunc call `ufunc(x, out=out, dtype=dtype)` would; None where the dtype is neither
    float32 nor float64 (the caller's numpy path: complex, 16-bit floats)."""
    dt = x.dtype
    if dtype is not None:
        dt = np.dtype(dtype)
    if dt not in _FLOATS or x.dtype.kind not in "fiub" or (out is not None and out.dtype != dt):
        return None
    if x.dtype != dt:
        x = x.astype(dt)
    serial, parallel = _loops(name)
    kernel = serial if x.size < PARALLEL_MIN else parallel
    if x.flags.c_contiguous:
        if out is None:
            r = np.empty(x.shape, dt)
            if kernel is serial and x.flags.writeable:
                kernel(x, r)
                _ENTRY.setdefault(name, {}).setdefault(dt, {})[x.ndim] = _entry(kernel, x, r)
                return r
        elif out.flags.c_contiguous:
            kernel(x, out)
            return out
        else:
            r = np.empty(x.shape, dt)
        kernel(x, r)
    else:
        if not x.flags.f_contiguous:
            x = np.ascontiguousarray(x)  # a view with gaps: copied row-major, as numpy lays out its result
        r = np.empty_like(x)  # x's order
        if x.flags.c_contiguous:
            kernel(x, r)
        else:  # an F-order pair runs as its C-order transposes
            kernel(x.T, r.T)
    if out is None:
        return r
    np.copyto(out, r)
    return out


def quick(name: str):
    """`run(x)`: op `name` of `x` into a new array through the serial loop's compiled entry, or None where that
    does not apply (an input of another dtype, ndim or layout, or the first call with it: `unary` finds the entry).

    NOTE [ The cost of a small call ]
    On a 10x10 tensor numpy's ufunc call takes about 0.9 us, a Numba dispatcher's call 0.6 us before the
    result's allocation (0.5 us). A fresh row-major result of a writable row-major input below `PARALLEL_MIN`
    calls the serial loop's compiled entry directly (0.4 us), found by the input's dtype and ndim, which fix
    the argument types it was compiled for; and the elementwise kernel calls `run` before it switches numpy's
    floating-point warnings off (0.3 us), which these loops never raise."""
    fast = _ENTRY.setdefault(name, {})
    empty = np.empty

    def run(x):
        by_ndim = fast.get(x.dtype)
        entry = None if by_ndim is None else by_ndim.get(x.ndim)
        if entry is None:
            return None
        fl = x.flags
        if not (fl.c_contiguous and fl.writeable and x.size < PARALLEL_MIN):
            return None
        r = empty(x.shape, x.dtype)
        entry(x, r)
        return r

    return run


def implementation(name: str, fallback):
    """Op `name`'s CPU implementation `(x, dtype=None, out=None)`, numpy's signature: `quick`, else `unary`, else
    `fallback` (numpy's ufunc or formula) for the dtypes they leave."""
    run = quick(name)

    def impl(x, dtype=None, out=None):
        r = run(x) if out is None and (dtype is None or dtype is x.dtype) else None
        if r is None:
            r = unary(name, x, dtype, out)
        return fallback(x, dtype=dtype, out=out) if r is None else r

    impl.__name__ = name
    return impl


def _entry(kernel, *args):
    """The compiled entry of `kernel`'s overload for `args`' Numba types."""
    import numba

    return kernel.overloads[tuple(numba.typeof(a) for a in args)].entry_point
