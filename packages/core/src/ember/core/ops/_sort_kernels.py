"""Private Numba CPU kernels of sort, topk, kthvalue, median and mode, in the order PyTorch's CPU kernels
leave equal elements.

NOTE [ Order among equal elements ]
PyTorch's CPU sort (`stable=False`), topk and mode run the C++ standard library's introsort,
introselect and heap select (libstdc++'s: median-of-three pivot moved to the front, unguarded
Hoare partition, insertion sort below 16 elements, heapsort past 2 log2(n) levels), and kthvalue
runs PyTorch's own median-of-three quickselect. None of them is stable, so which of several equal
values comes first (and which index a beam search keeps) is fixed by those algorithms' exact
steps: the routines below take the same steps on (value, index) pairs, comparing values only with
PyTorch's comparators (NaN above every number). `stable=True` sorts, median and max/min order ties
by index and need none of this.

Imported by `sorting.py` on first use. Layout: every array is (rows, n) C-contiguous; values are in a
dtype Numba compares (bool as uint8, half precision as float32, both exact).
"""

from __future__ import annotations

import functools

import numba
import numpy as np

_OPTS = {"cache": True, "nogil": True}
_THRESHOLD = 16  # libstdc++'s _S_threshold: introsort leaves runs this short to the insertion sort
_i64 = np.int64

# NOTE [ No literal arguments ]
# A compiled function called from another with a constant argument (`0`, `False`) is compiled for that constant's
# literal type, a signature of its own: `_adjust_heap` was compiled 8 times by a first topk and median (first and
# hole each 0 or not, desc False or a bool). The positions below are passed as `_i64(0)`, plain int64, so each
# routine compiles once per dtype and order; median and mode keep their literal `desc=False`, whose folded
# comparisons are worth the second compile (median of 64 rows of 21: 7.3 µs, 9.3 µs with a runtime bool).


@numba.njit(**_OPTS, inline="always")
def _before(a, b, desc):
    # PyTorch's KeyValueCompAsc / KeyValueCompDesc (and topk's comparators): NaN above every number
    if desc:
        return a > b or (a != a and b == b)
    return a < b or (a == a and b != b)


@numba.njit(**_OPTS, inline="always")
def _swap(v, ix, i, j):
    t = v[i]
    v[i] = v[j]
    v[j] = t
    u = ix[i]
    ix[i] = ix[j]
    ix[j] = u


@numba.njit(**_OPTS)
def _lg(n):
    r = -1
    while n:
        n >>= 1
        r += 1
    return r


@numba.njit(**_OPTS, inline="always")
def _unguarded_linear_insert(v, ix, last, desc):
    val, vi = v[last], ix[last]
    nxt = last - 1
    while _before(val, v[nxt], desc):
        v[last], ix[last] = v[nxt], ix[nxt]
        last = nxt
        nxt -= 1
    v[last], ix[last] = val, vi


@numba.njit(**_OPTS, inline="always")
def _insertion_sort(v, ix, first, last, desc):
    if first == last:
        return
    for i in range(first + 1, last):
        if _before(v[i], v[first], desc):
            val, vi = v[i], ix[i]
            for j in range(i, first, -1):
                v[j], ix[j] = v[j - 1], ix[j - 1]
            v[first], ix[first] = val, vi
        else:
            _unguarded_linear_insert(v, ix, i, desc)


@numba.njit(**_OPTS, inline="always")
def _final_insertion_sort(v, ix, first, last, desc):
    # libstdc++'s two branches as one: a guarded insertion sort of the first 16, unguarded inserts past them (one
    # inlined copy of the insertion sort, not two: each copy cost ~0.7 s of the first compile)
    head = min(last, first + _THRESHOLD)
    _insertion_sort(v, ix, first, head, desc)
    for i in range(head, last):
        _unguarded_linear_insert(v, ix, i, desc)


@numba.njit(**_OPTS)
def _move_median_to_first(v, ix, result, a, b, c, desc):
    if _before(v[a], v[b], desc):
        if _before(v[b], v[c], desc):
            _swap(v, ix, result, b)
        elif _before(v[a], v[c], desc):
            _swap(v, ix, result, c)
        else:
            _swap(v, ix, result, a)
    elif _before(v[a], v[c], desc):
        _swap(v, ix, result, a)
    elif _before(v[b], v[c], desc):
        _swap(v, ix, result, c)
    else:
        _swap(v, ix, result, b)


@numba.njit(**_OPTS)
def _partition_pivot(v, ix, first, last, desc):
    # the pivot is moved to `first`; an unguarded Hoare partition of [first + 1, last) around it
    _move_median_to_first(v, ix, first, first + 1, first + (last - first) // 2, last - 1, desc)
    lo, hi = first + 1, last
    pivot = v[first]  # no swap below touches `first`
    while True:
        while _before(v[lo], pivot, desc):
            lo += 1
        hi -= 1
        while _before(pivot, v[hi], desc):
            hi -= 1
        if not lo < hi:
            return lo
        _swap(v, ix, lo, hi)
        lo += 1


@numba.njit(**_OPTS)
def _push_heap(v, ix, first, hole, top, val, vi, desc):
    parent = (hole - 1) // 2
    while hole > top and _before(v[first + parent], val, desc):
        v[first + hole], ix[first + hole] = v[first + parent], ix[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    v[first + hole], ix[first + hole] = val, vi


@numba.njit(**_OPTS)
def _adjust_heap(v, ix, first, hole, length, val, vi, desc):
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if _before(v[first + child], v[first + child - 1], desc):
            child -= 1
        v[first + hole], ix[first + hole] = v[first + child], ix[first + child]
        hole = child
    if (length & 1) == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        v[first + hole], ix[first + hole] = v[first + child - 1], ix[first + child - 1]
        hole = child - 1
    _push_heap(v, ix, first, hole, top, val, vi, desc)


@numba.njit(**_OPTS)
def _heap_select(v, ix, first, middle, last, desc):
    length = middle - first
    if length >= 2:
        parent = (length - 2) // 2
        while True:
            _adjust_heap(v, ix, first, parent, length, v[first + parent], ix[first + parent], desc)
            if parent == 0:
                break
            parent -= 1
    for i in range(middle, last):
        if _before(v[i], v[first], desc):
            val, vi = v[i], ix[i]
            v[i], ix[i] = v[first], ix[first]
            _adjust_heap(v, ix, first, _i64(0), length, val, vi, desc)


@numba.njit(**_OPTS)
def _sort_heap(v, ix, first, last, desc):
    while last - first > 1:
        last -= 1
        val, vi = v[last], ix[last]
        v[last], ix[last] = v[first], ix[first]
        _adjust_heap(v, ix, first, _i64(0), last - first, val, vi, desc)


@numba.njit(**_OPTS)
def _introsort(v, ix, first, last, desc):
    # std::sort: the recursion on the right part is a stack (disjoint ranges: the order is immaterial)
    # no partition step below 17: skip the stack's allocation (most of a short row's cost); one call of the final
    # insertion sort, inlined once
    top = -1
    if last - first > _THRESHOLD:
        stack = np.empty((2 * _lg(last - first) + 2, 3), np.int64)
        top = 0
        stack[0, 0], stack[0, 1], stack[0, 2] = first, last, 2 * _lg(last - first)
    while top >= 0:
        lo, hi, depth = stack[top, 0], stack[top, 1], stack[top, 2]
        top -= 1
        while hi - lo > _THRESHOLD:
            if depth == 0:
                _heap_select(v, ix, lo, hi, hi, desc)
                _sort_heap(v, ix, lo, hi, desc)
                break
            depth -= 1
            cut = _partition_pivot(v, ix, lo, hi, desc)
            top += 1
            stack[top, 0], stack[top, 1], stack[top, 2] = cut, hi, depth
            hi = cut
    _final_insertion_sort(v, ix, first, last, desc)


@numba.njit(**_OPTS)
def _nth_element(v, ix, first, nth, last, desc):
    if first == last or nth == last:
        return
    depth = 2 * _lg(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(v, ix, first, nth + 1, last, desc)
            _swap(v, ix, first, nth)
            return
        depth -= 1
        cut = _partition_pivot(v, ix, first, last, desc)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(v, ix, first, last, desc)


@numba.njit(**_OPTS)
def sort_rows(v, ix, desc):
    """std::sort of each row of `v` (in place), carrying `ix` (filled with 0..n-1 here)."""
    n = v.shape[1]
    for r in range(v.shape[0]):
        for j in range(n):
            ix[r, j] = j
        _introsort(v[r], ix[r], _i64(0), n, desc)


@numba.njit(**_OPTS)
def topk_rows(v, ix, k, largest, sorted_):
    """PyTorch's topk loop on each row of `v` (in place): a partial sort when k * 64 <= n, else
    nth_element and (when sorted) a sort of the first k - 1; the answer is the first k of each row."""
    n = v.shape[1]
    for r in range(v.shape[0]):
        row, irow = v[r], ix[r]
        for j in range(n):
            irow[j] = j
        if k == 0:
            continue
        if k * 64 <= n:
            _heap_select(row, irow, _i64(0), k, n, largest)
            _sort_heap(row, irow, _i64(0), k, largest)
        else:
            _nth_element(row, irow, _i64(0), k - 1, n, largest)
            if sorted_:
                _introsort(row, irow, _i64(0), k - 1, largest)


@numba.njit(**_OPTS, inline="always")
def _gt_or_nan(a, b):
    return a > b or (a != a and b == b)


@numba.njit(**_OPTS)
def kth_rows(v, ix, k):
    """PyTorch's quick_select_template on each row of `v` (in place, 0-based `k`): median-of-three
    quickselect; the k-th smallest ends at column k."""
    n = v.shape[1]
    for r in range(v.shape[0]):
        a, ia = v[r], ix[r]
        for j in range(n):
            ia[j] = j
        lo, hi = 0, n - 1
        while True:
            if hi <= lo:
                break
            if hi == lo + 1:
                if _gt_or_nan(a[lo], a[hi]):
                    _swap(a, ia, lo, hi)
                break
            p = lo + (hi - lo) // 2
            _swap(a, ia, p, lo + 1)
            if _gt_or_nan(a[lo + 1], a[hi]):
                _swap(a, ia, lo + 1, hi)
            if _gt_or_nan(a[lo], a[hi]):
                _swap(a, ia, lo, hi)
            if _gt_or_nan(a[lo + 1], a[lo]):
                _swap(a, ia, lo + 1, lo)
            i, j = lo + 1, hi
            piv = a[lo]
            while True:
                i += 1
                while _gt_or_nan(piv, a[i]):
                    i += 1
                j -= 1
                while _gt_or_nan(a[j], piv):
                    j -= 1
                if j < i:
                    break
                _swap(a, ia, i, j)
            _swap(a, ia, lo, j)
            if j <= k:
                lo = i
            if j >= k:
                hi = j - 1


@functools.cache  # one answer per row length: nanmedian of every all-NaN row asks it
def first_of_equal(n: int) -> int:
    """The index nth_element(k = 0) leaves first among `n` elements that all compare equal: which of an all-NaN row's
    elements PyTorch's nanmedian names (its comparator finds no NaN below another)."""
    buf = np.full(n, np.nan)
    ix = np.arange(n, dtype=np.int64)
    _nth_element(buf, ix, _i64(0), _i64(0), _i64(n), False)
    return int(ix[0])


@numba.njit(**_OPTS)
def median_rows(v, buf, ix, vals, idx):
    """The lower median of each row of `v` (n >= 1) and its index where a stable sort puts it (the first
    NaN where a row has one): nth_element on the scratch row `buf` finds the value, then the equal
    elements are counted in input order. buf, ix: (n,) scratch."""
    n = v.shape[1]
    k = (n - 1) // 2
    for r in range(v.shape[0]):
        row = v[r]
        at = -1
        for i in range(n):
            if row[i] != row[i]:
                at = i
                break
        if at < 0:
            for i in range(n):
                buf[i] = row[i]
                ix[i] = i
            _nth_element(buf, ix, _i64(0), k, n, False)
            m = buf[k]
            skip = k  # the median's rank among the elements equal to it: k less those below it
            for i in range(n):
                if row[i] < m:
                    skip -= 1
            for i in range(n):
                if row[i] == m:
                    if skip == 0:
                        at = i
                        break
                    skip -= 1
        vals[r] = row[at]
        idx[r] = at


@numba.njit(**_OPTS)
def mode_rows(v, ix, vals, idx):
    """PyTorch's mode on each row of `v` (in place, n >= 1): std::sort by value, then the first
    longest run; its value and the index that ended that run."""
    n = v.shape[1]
    for r in range(v.shape[0]):
        row, irow = v[r], ix[r]
        for j in range(n):
            irow[j] = j
        _introsort(row, irow, _i64(0), n, False)
        best, count = 0, 0
        for i in range(n):
            count += 1
            if i == n - 1 or row[i] != row[i + 1]:
                if count > best:
                    best = count
                    vals[r] = row[i]
                    idx[r] = irow[i]
                count = 0
