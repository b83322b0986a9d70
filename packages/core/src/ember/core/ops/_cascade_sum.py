"""PyTorch's cascade summation of nll_loss's CPU kernels, replayed in a 16-bit dtype.

NOTE [ nll_loss's cascade sum ]
PyTorch's `nll_loss_out_frame` and `nll_loss2d_forward_out_frame` reduce in the input's own dtype through
8 partial sums: each counted element is added to level 0; after element `i`, level j is added into level
j + 1 (and cleared) while `i` is a multiple of `step ** (j + 1)`, `step = 2 ** max(4, ceil_log2(n) // 8)`. An
ignored element is skipped whole, its flush too. The levels are then added in order. In float32 this is
within rounding of numpy's pairwise sum; in float16/bfloat16, where every addition rounds, it is the only
way to print PyTorch's loss, so the kernels replay it there. Each level is a set of segments summed left to
right; the segments of a level are summed together, one position at a time.
"""

from __future__ import annotations

import numpy as np

_LEVELS = 8


_WIDE = 64  # runs longer than this (ignored elements at the flush positions merge runs) are summed one by one


def _segment_sums(values: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Left-to-right sums (rounding each addition in values' dtype) of the runs that `ends` closes, and the
    sum of the open run after the last end: (closed sums, [open sum]). Short runs are added a position at a
    time across all of them; a long run by `np.add.accumulate`, which adds in order."""
    seg = np.concatenate(([0], np.cumsum(ends)[:-1])) if values.size else np.zeros(0, np.int64)
    nseg = int(seg[-1]) + 1 if values.size else 1
    starts = np.searchsorted(seg, np.arange(nseg))
    lengths = np.diff(np.append(starts, values.size))
    pos = np.arange(values.size) - starts[seg]
    short = pos < _WIDE
    grid = np.zeros((nseg, min(int(lengths.max()) if values.size else 1, _WIDE) or 1), values.dtype)
    grid[seg[short], pos[short]] = values[short]
    acc = np.zeros(nseg, values.dtype)
    for col in grid.T:
        acc = acc + col
    for k in np.flatnonzero(lengths > _WIDE):
        run = np.concatenate(([acc[k]], values[starts[k] + _WIDE:starts[k] + lengths[k]]))
        acc[k] = np.add.accumulate(run)[-1]
    closed = int(np.count_nonzero(ends))
    return acc[:closed], acc[closed:]


def cascade_sum(values: np.ndarray, index: np.ndarray, n: int) -> np.ndarray:
    """The sum of `values` (counted elements, in their dtype) at linear positions `index` of `n`, as PyTorch's
    nll_loss kernels add them (NOTE [ nll_loss's cascade sum ]); a 0-d array of values' dtype."""
    step = 1 << max(4, (int(n - 1).bit_length() if n > 1 else 0) // _LEVELS)
    dt = values.dtype
    partials = []
    for level in range(_LEVELS - 1):
        ends = index % (step ** (level + 1)) == 0
        closed, rest = _segment_sums(values, ends)
        partials.append(rest[0] if rest.size else dt.type(0))
        values, index = closed, index[ends]
    partials.append(_segment_sums(values, np.zeros(values.size, bool))[1][0])
    total = dt.type(0)
    for p in partials:
        total = dt.type(total + p)
    return np.asarray(total, dt)
