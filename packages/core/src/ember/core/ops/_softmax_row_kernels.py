"""Private Numba kernels of `softmax_rows` (NOTE there): the row passes, imported on first use only.

Module-level functions, not closures made inside a factory: Numba keys the disk cache of a closure on its
cell contents, and a cell holding another compiled function pickles with an id new in every process, so a
closure's cache missed in each new process and recompiled (about 4 s).

NOTE [ Compile time of the row passes ]
Numba inlines an `inline="always"` function into its caller's IR and types it again there, which is slow
for `exp32` (about 0.4 s a kernel on a cold cache). So `exp32` is inlined once, into `exp_shifted`, a
function of its own that the kernels call (LLVM inlines it; one call per row): cold, the four kernels a
GPT step compiles took 3.3 s and take 1.9 s, with the same bits and speed. `row_max` (eight lanes, a large IR)
is a called function too: 1.9 -> 1.4 s, the passes 1-4% slower; the short `row_sum` and `all_neginf` stay
inlined (all helpers as calls: 7% slower).
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import types
from numba.extending import overload

from ember.core.ops.vector_exp import exp32

# exp32 is 0 below this (its own cut, in vector_exp)
_ZERO_BELOW = np.float32(-103.97208)


def vexp(x):
    """exp32 for float32 (vectorized), libm's exp for float64 (see the overload)."""


@numba.njit(cache=True, nogil=True, error_model="numpy")
def exp32_masked(x):
    """exp32(x), with an x below exp32's cut to 0 (a masked score, -inf) computed as exp32(0) and then
    selected to 0, exp32's own value there: the same bits, without the denormal products that exp32
    makes on its way to 0 (slow on this CPU: causally masked attention rows took 1.7x as long)."""
    far = x < _ZERO_BELOW
    e = exp32(np.float32(0.0) if far else x)
    return np.float32(0.0) if far else e


@overload(vexp)
def _vexp(x):
    if x == types.float32:
        return lambda x: exp32_masked(x)
    return lambda x: math.exp(x)


# error_model="numpy": no ZeroDivisionError branch, which would keep LLVM from vectorizing the loops
# contract: exp32's polynomial in fused multiply-adds (15% faster, no less accurate)
jit = numba.njit(cache=True, nogil=True, error_model="numpy", fastmath={"contract"}, no_cfunc_wrapper=True)
inline = numba.njit(inline="always", cache=True, nogil=True, error_model="numpy")
U1, U2, U3, U4, U5, U6, U7 = (np.uint64(k) for k in range(1, 8))


@jit
def row_max(x):
    """The max of x, NaN skipped (a NaN makes the row's sum NaN instead); -inf for a row all NaN."""
    n = x.shape[0]
    m0 = m1 = m2 = m3 = m4 = m5 = m6 = m7 = x.dtype.type(-np.inf)
    for k in range(n // 8):
        j = np.uint64(8 * k)  # unsigned: no negative-index fix-up between the eight loads
        m0 = x[j] if x[j] > m0 else m0
        m1 = x[j + U1] if x[j + U1] > m1 else m1
        m2 = x[j + U2] if x[j + U2] > m2 else m2
        m3 = x[j + U3] if x[j + U3] > m3 else m3
        m4 = x[j + U4] if x[j + U4] > m4 else m4
        m5 = x[j + U5] if x[j + U5] > m5 else m5
        m6 = x[j + U6] if x[j + U6] > m6 else m6
        m7 = x[j + U7] if x[j + U7] > m7 else m7
    for j in range(n - n % 8, n):
        m0 = x[j] if x[j] > m0 else m0
    return max(max(max(m0, m1), max(m2, m3)), max(max(m4, m5), max(m6, m7)))


@inline
def row_sum(x):
    """The sum of x in eight lanes, added pairwise at the end."""
    n = x.shape[0]
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = x.dtype.type(0.0)
    for k in range(n // 8):
        j = np.uint64(8 * k)
        s0 += x[j]
        s1 += x[j + U1]
        s2 += x[j + U2]
        s3 += x[j + U3]
        s4 += x[j + U4]
        s5 += x[j + U5]
        s6 += x[j + U6]
        s7 += x[j + U7]
    for j in range(n - n % 8, n):
        s0 += x[j]
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))


@jit
def exp_shifted(x, shift, o):
    """o = exp(x - shift); returns its sum (compiled once, called by the kernels: NOTE [ Compile time of the row
    passes ])."""
    for j in range(x.shape[0]):
        o[j] = vexp(x[j] - shift)
    return row_sum(o)


@jit
def softmax(x, o):
    for i in range(x.shape[0]):
        xi, oi = x[i], o[i]
        r = xi.dtype.type(1.0) / exp_shifted(xi, row_max(xi), oi)  # times 1/sum, as PyTorch's kernel
        for j in range(oi.shape[0]):
            oi[j] = oi[j] * r


@inline
def all_neginf(x):
    """Every entry of x is -inf (NaN is not)."""
    for j in range(x.shape[0]):
        if x[j] != -np.inf:
            return False
    return True


@jit
def safe_softmax(x, o):
    """softmax, then zeros over a row whose every entry is -inf (not NaN): the row pass is softmax's own, so
    every other row gets its bits (NaN rows too), and the test runs only on rows whose max is -inf."""
    for i in range(x.shape[0]):
        xi, oi = x[i], o[i]
        m = row_max(xi)
        r = xi.dtype.type(1.0) / exp_shifted(xi, m, oi)
        for j in range(oi.shape[0]):
            oi[j] = oi[j] * r
        if m == -np.inf and all_neginf(xi):
            for j in range(oi.shape[0]):
                oi[j] = 0.0


@jit
def log_softmax(x, o):
    for i in range(x.shape[0]):
        xi, oi = x[i], o[i]
        m = row_max(xi)
        ls = np.log(exp_shifted(xi, m, oi))
        for j in range(oi.shape[0]):
            oi[j] = (xi[j] - m) - ls


@jit
def softmax_backward(g, y, o):
    for i in range(g.shape[0]):
        gi, yi, oi = g[i], y[i], o[i]
        for j in range(oi.shape[0]):
            oi[j] = gi[j] * yi[j]
        s = row_sum(oi)
        for j in range(oi.shape[0]):  # PyTorch's `(g - s) * y`: a zero y gives -0.0 where g < s, as there
            oi[j] = (gi[j] - s) * yi[j]


@jit
def log_softmax_backward(g, y, o):
    for i in range(g.shape[0]):
        gi, yi, oi = g[i], y[i], o[i]
        s = row_sum(gi)
        for j in range(oi.shape[0]):
            oi[j] = gi[j] - vexp(yi[j]) * s


@jit
def shifted_sums(x, shift, sums):
    scratch = np.empty(x.shape[1], x.dtype)
    for i in range(x.shape[0]):
        xi = x[i]
        shift[i] = row_max(xi)
        sums[i] = exp_shifted(xi, shift[i], scratch)


@jit
def ce_grad(x, coef, o):
    for i in range(x.shape[0]):
        xi, oi = x[i], o[i]
        f = -coef[i] / exp_shifted(xi, row_max(xi), oi)
        for j in range(oi.shape[0]):
            oi[j] = oi[j] * f
