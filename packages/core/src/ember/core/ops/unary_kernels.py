"""Eager CPU kernels of the float32/float64 transcendental unary ops: loops over the scalar functions of
`ember.core.ops.vector_math.SCALAR`, the ones ember.jit's fused kernels inline, so eager and fused give the
same bits (NOTE [ Eager and fused transcendentals share one implementation ]).

Each op gets two Numba loops over 1-D C-contiguous arrays (compiled once per dtype on first use, cached on
disk; an array of any ndim runs as its flat view, NOTE [ One compile per dtype ]): a serial one, which LLVM
vectorizes for the float32 forms and float64 exp, tanh, sigmoid and silu, and a `prange` one from
`PARALLEL_MIN` elements (each element is computed alone, so the bits do not depend on the thread count). Any
layout: an F-order array runs as its transpose, any other view is copied row-major first (numpy's result
layout).

NOTE [ float32 sin and cos past 2^29 ]
`sin32`/`cos32` reduce the argument in float64 by Cody-Waite, exact below 2^29 only (NOTE [ Vectorized sin and
cos in fused kernels ]): past it `torch.sin(torch.tensor(1e30))` came out -0.8415 where the true value, and
PyTorch's, is -0.7912. The float32 loops of `sin` and `cos` also flag values at or past `EXACT_FROM` (an OR
in the loop, which stays vectorized), and where there are any, `_exact` computes those again in
float64 through numpy's fully reduced sin/cos and rounds them once; the rest keep the loop's bits. ember.jit's
fused kernels keep the branch-free forms, so a fused group and eager differ there (and only there).
"""

from __future__ import annotations

from functools import cache

import numpy as np

__all__ = ["NAMES", "PARALLEL_MIN", "EXACT_FROM", "implementation", "quick", "unary"]

NAMES = ("exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
         "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "silu")
# as ember.jit's `config.fuse_parallel_min`: below it a thread pool's start-up costs more than it saves (2 cores)
PARALLEL_MIN = 1 << 20
_FLOATS = frozenset({np.dtype(np.float32), np.dtype(np.float64)})
# op -> |x| from which its float32 form is recomputed in float64 (NOTE [ float32 sin and cos past 2^29 ])
EXACT_FROM = {"sin": 2.0 ** 29, "cos": 2.0 ** 29}
# name -> dtype -> the serial loop's compiled entry for writable 1-D C-contiguous arrays: a small tensor's
# call skips the dispatcher's typing of its arguments (NOTE [ The cost of a small call ] in `quick`)
_ENTRY: dict = {}


@cache
def _loops(name: str) -> tuple:
    """(serial, parallel) Numba loops `o = f(x)` elementwise over 1-D C-contiguous arrays of one dtype and size,
    `f` the op's float32 or float64 function.

    NOTE [ One compile per dtype ]
    Numba compiles a function once per argument type, and an array's ndim is part of its type: loops taking
    the arrays as they come compiled every transcendental again for each ndim a program used (0.3-0.7 s of CPU
    each, on top of the first's 0.6-1.0 s). They take the flat views of C-contiguous operands (`ravel()`, no
    copy) instead, so a dtype compiles once whatever the shapes; the same loop over the same values in the same
    order, so the same bits."""
    import numba

    from ember.core.ops.vector_math import GENERIC

    f = GENERIC[name]  # a module global: the closure's cache key is the same in every process
    # error_model="numpy": no ZeroDivisionError branch, which would keep LLVM from vectorizing the loop
    opts = {"cache": True, "nogil": True, "error_model": "numpy", "no_cfunc_wrapper": True}
    if name in EXACT_FROM:
        return _counting_loops(f, EXACT_FROM[name], opts)

    @numba.njit(**opts)
    def serial(x, o):
        for i in range(x.shape[0]):
            o[i] = f(x[i])

    @numba.njit(**opts, parallel=True)
    def parallel(x, o):
        for i in numba.prange(x.shape[0]):
            o[i] = f(x[i])

    return serial, parallel


def _counting_loops(f, limit: float, opts: dict) -> tuple:
    """`_loops`' pair for sin and cos: each also returns whether any finite value is at or past `limit` in magnitude
    where the operands are float32 (float64's libm forms reduce exactly). The serial loop ORs a flag in the same
    pass (5-15% on top of the loop; an integer count there cost 1.6x, its lanes twice float32's width); the
    parallel one checks in a second pass, as its reductions have no OR."""
    import numba

    @numba.njit(**opts)
    def serial(x, o):
        big = False
        for i in range(x.shape[0]):
            o[i] = f(x[i])
            a = abs(x[i])
            big |= (a >= limit) & (a < np.inf)
        return big and o.itemsize == 4

    @numba.njit(**opts, parallel=True)
    def parallel(x, o):
        for i in numba.prange(x.shape[0]):
            o[i] = f(x[i])
        big = False
        if o.itemsize == 4:
            for i in range(x.shape[0]):
                a = abs(x[i])
                big |= (a >= limit) & (a < np.inf)
        return big

    return serial, parallel


def _exact(name: str, x: np.ndarray, o: np.ndarray) -> None:
    """Recompute in float64 the values of float32 `o` = op(`x`) (flat views) whose arguments the loop's reduction
    leaves inexact (NOTE [ float32 sin and cos past 2^29 ])."""
    a = np.abs(x)
    at = np.flatnonzero((a >= EXACT_FROM[name]) & (a < np.inf))
    o[at] = getattr(np, name)(x[at].astype(np.float64))


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
                xf, rf = x.ravel(), r.ravel()
                if kernel(xf, rf):
                    _exact(name, xf, rf)
                _ENTRY.setdefault(name, {})[dt] = _entry(kernel, xf, rf)
                return r
        elif out.flags.c_contiguous:
            xf, rf = x.ravel(), out.ravel()
            if kernel(xf, rf):
                _exact(name, xf, rf)
            return out
        else:
            r = np.empty(x.shape, dt)
        xf, rf = x.ravel(), r.ravel()
        if kernel(xf, rf):
            _exact(name, xf, rf)
    else:
        if not x.flags.f_contiguous:
            x = np.ascontiguousarray(x)  # a view with gaps: copied row-major, as numpy lays out its result
        r = np.empty_like(x)  # x's order
        xc, rc = (x, r) if x.flags.c_contiguous else (x.T, r.T)  # an F-order pair runs as its C-order transposes
        xf, rf = xc.ravel(), rc.ravel()
        if kernel(xf, rf):
            _exact(name, xf, rf)
    if out is None:
        return r
    np.copyto(out, r)
    return out


def quick(name: str):
    """`run(x)`: op `name` of `x` into a new array through the serial loop's compiled entry, or None where that
    does not apply (an input of another dtype or layout, or the first call with it: `unary` finds the entry).

    NOTE [ The cost of a small call ]
    On a 10x10 tensor numpy's ufunc call takes about 0.9 us, a Numba dispatcher's call 0.6 us before the
    result's allocation (0.5 us). A fresh row-major result of a writable row-major input below `PARALLEL_MIN`
    calls the serial loop's compiled entry directly (0.4 us) on the flat views of both (NOTE [ One compile per
    dtype ]), found by the input's dtype, which fixes the argument types it was compiled for; and the
    elementwise kernel calls `run` before it switches numpy's floating-point warnings off (0.3 us), which these
    loops never raise."""
    fast = _ENTRY.setdefault(name, {})
    empty = np.empty

    def run(x):
        entry = fast.get(x.dtype)
        if entry is None:
            return None
        fl = x.flags
        if not (fl.c_contiguous and fl.writeable and x.size < PARALLEL_MIN):
            return None
        r = empty(x.shape, x.dtype)
        xf, rf = x.ravel(), r.ravel()
        if entry(xf, rf):
            _exact(name, xf, rf)
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
