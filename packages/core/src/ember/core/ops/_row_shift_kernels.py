"""Private Numba kernels of `row_shift` (NOTE there): the max-shift of small softmax and cross-entropy rows.

Plain loops on (M, C) C-contiguous float32/float64 rows (C > 0); IEEE arithmetic only (no fastmath): each value
is the one numpy's `x - max` gives.
"""

from __future__ import annotations

import numba


@numba.njit(cache=True, nogil=True)
def _row_max(x, i):
    """The max of row `i`, NaN if the row holds one (np.maximum's)."""
    m = x[i, 0]
    for j in range(1, x.shape[1]):
        v = x[i, j]
        if v > m or v != v:
            m = v
    return m


@numba.njit(cache=True, nogil=True)
def shift(x, z):
    """z = x - max(row); False (z unfinished) at the first row whose max is not finite."""
    for i in range(x.shape[0]):
        m = _row_max(x, i)
        if not m - m == 0:  # inf or NaN
            return False
        for j in range(x.shape[1]):
            z[i, j] = x[i, j] - m
    return True


@numba.njit(cache=True, nogil=True)
def shift_at(x, t, ignore_index, z, xt, wt):
    """Cross-entropy's rows: z = x - max(row), xt = x[i, t_i] - max (t_i 0 where ignored), wt = 1 where t_i counts
    (else 0); the count of rows that count, or -1 (z unfinished) at a target out of range, a max or an x[i, t_i]
    that is not finite."""
    c = x.shape[1]
    n = 0
    for i in range(x.shape[0]):
        k = t[i]
        if k == ignore_index:
            k = 0
            wt[i] = 0
        elif k < 0 or k >= c:
            return -1
        else:
            wt[i] = 1
            n += 1
        m = _row_max(x, i)
        d = x[i, k] - m
        if not (m - m == 0 and d - d == 0):
            return -1
        xt[i] = d
        for j in range(c):
            z[i, j] = x[i, j] - m
    return n
