"""Test helpers: float64 inputs that require grad, contiguous or not, from a seeded RNG."""

from __future__ import annotations

import numpy as np

import ember.autograd as E


def make(shape, lo: float = -1.0, hi: float = 1.0, *, noncontig: bool = False, requires_grad: bool = True,
         rng: np.random.Generator | None = None, dtype=np.float64) -> E.Tensor:
    """A tensor of uniform values in [lo, hi); `noncontig` gives it a transposed (column-major) layout."""
    rng = rng if rng is not None else np.random.default_rng(0)
    a = rng.uniform(lo, hi, shape).astype(dtype)
    if noncontig and a.ndim >= 2:
        t = E.from_numpy(np.ascontiguousarray(a.T)).T
    elif noncontig and a.ndim == 1:
        t = E.from_numpy(np.repeat(a, 2))[::2]
    else:
        t = E.from_numpy(a.copy())
    return t.requires_grad_(requires_grad)
