"""`baddbmm_` and `addmv_` into a self whose elements share memory (an expanded tensor), as PyTorch's CPU
kernels compute them.

NOTE [ In-place products into an expanded self ]
PyTorch refuses most in-place writes into a tensor with a stride-0 dimension (NOTE [ Writing into
overlapping memory ] in dispatch.py), but not these two: their kernels update each output element
in place, one after the other, so every address receives the updates of all the elements that
share it, in the kernel's order. ember replays that order on the CPU:
- `baddbmm_`: the small-product kernel (contraction * rows * cols < 400) runs over (batch, row,
  col) in C order, each element `r = beta * r + alpha * p` (`alpha * p` alone when beta == 0), in
  the op's math dtype (float32 for bfloat16/float16) rounded to the tensor's dtype after each store.
  Larger products run one `addmm_` per batch: an expanded batch dim computes as above, an expanded
  row or column raises PyTorch's overlap error. An empty contraction zeroes the tensor when
  beta == 0 and otherwise raises (PyTorch's `mul_`).
- `addmv_` (self `(m,)` expanded from one element): a row-major (or any non-column-major) matrix
  runs BLAS's transposed gemv, `y = beta * y + alpha * dot(row_i, vec)` for each row i in turn; a
  column-major one runs the plain gemv, which first scales y by beta m times (unless beta is 0 or
  1), then adds `alpha * vec[j] * mat[i, j]` over columns j and rows i in order (beta == 0 resets y
  to 0 at each row of the first column, so only the last row's first-column term survives).
  bfloat16/float16 are not exact: PyTorch's reduced-precision gemv runs rows on several threads
  (with beta == 0 the stored value is whichever row's thread writes last); ember takes the order above.
Operands that require grad, non-CPU tensors and mismatched dtypes take the ordinary path (which
refuses the overlap).
"""

from __future__ import annotations

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import INTERNAL_OVERLAP_MESSAGE
from ember.core.ops import shape as S
from ember.core.ops._util import wrap
from ember.core.tensor import Tensor

__all__ = ["baddbmm_expanded", "addmv_expanded"]

_SMALL_BADDBMM = 400  # PyTorch's bound on contraction * rows * cols for its element-wise baddbmm kernel


def _zero_dims(t: Tensor) -> list[int]:
    return [d for d, (n, s) in enumerate(zip(t._shape, t._strides)) if s == 0 and n > 1]


def _applies(self: Tensor, *operands: Tensor) -> bool:
    """Same dtype everywhere, CPU, nothing recording a graph, and scalars the dtype admits."""
    if self.device.type != "cpu" or any(t._dtype is not self._dtype or t.device != self.device for t in operands):
        return False
    return not any(t._requires_grad for t in (self, *operands)) and self._dtype is not dtypes.bool


def _math_dtype(t: Tensor) -> np.dtype:
    if t._dtype in (dtypes.bfloat16, dtypes.float16):
        return np.dtype(np.float32)
    return np.dtype(np.int64) if not (t._dtype.is_floating_point or t._dtype.is_complex) else t._dtype.np


def _scalars(t: Tensor, beta, alpha):
    """beta and alpha as the kernel holds them (None where the ordinary path must reject them)."""
    if not (t._dtype.is_floating_point or t._dtype.is_complex) and (isinstance(beta, float) or
                                                                    isinstance(alpha, float)):
        return None
    m = _math_dtype(t)
    return m.type(beta), m.type(alpha)


def _write(self: Tensor, zero: list[int], values: np.ndarray) -> Tensor:
    """Store one value per address: `values` has self's shape without its stride-0 dims."""
    view = self
    for d in zero:
        view = S.slice(view, d, 0, 1, 1)
    S.copy_(view, wrap(np.ascontiguousarray(values.astype(self._dtype.np).reshape(view._shape))))
    return self


def _sequence(v: np.ndarray, terms: np.ndarray, beta, alpha, store: np.dtype) -> np.ndarray:
    """`v = beta * v + alpha * terms[k]` for each k in order, rounded to `store` after each update."""
    math = v.dtype
    if beta == 0:
        return (alpha * terms[-1]).astype(store)
    for term in terms:
        v = (v * beta + alpha * term).astype(store).astype(math)
    return v


def baddbmm_expanded(self: Tensor, prod: Tensor, batch1: Tensor, batch2: Tensor, beta, alpha) -> Tensor | None:
    """`self.baddbmm_(batch1, batch2)` for a self with a stride-0 dim; None where the ordinary path decides."""
    zero = _zero_dims(self)
    scalars = _scalars(self, beta, alpha)
    if not zero or scalars is None or self._shape != prod._shape or not _applies(self, batch1, batch2):
        return None
    beta, alpha = scalars
    if self.numel() == 0:
        return self
    _, rows, cols = self._shape
    k = batch1._shape[-1]
    if k == 0:
        if beta != 0:
            raise RuntimeError(INTERNAL_OVERLAP_MESSAGE)
        return _write(self, zero, np.zeros([n for d, n in enumerate(self._shape) if d not in zero]))
    if k * rows * cols >= _SMALL_BADDBMM and zero != [0]:
        raise RuntimeError(INTERNAL_OVERLAP_MESSAGE)
    math = _math_dtype(self)
    kept = [d for d in range(3) if d not in zero]
    p = np.transpose(prod._np().astype(math), zero + kept)
    p = p.reshape(-1, *p.shape[len(zero):])  # the writers of each address, in the kernel's order
    now = self._np()[tuple(0 if d in zero else slice(None) for d in range(3))].astype(math)
    with np.errstate(over="ignore"):
        return _write(self, zero, _sequence(now, p, beta, alpha, self._dtype.np))


def addmv_expanded(self: Tensor, prod: Tensor, mat: Tensor, vec: Tensor, beta, alpha) -> Tensor | None:
    """`self.addmv_(mat, vec)` for a `(m,)` self expanded from one element; None where the ordinary path decides."""
    scalars = _scalars(self, beta, alpha)
    if not _zero_dims(self) or scalars is None or self._shape != prod._shape or not _applies(self, mat, vec):
        return None
    beta, alpha = scalars
    m, n = mat._shape
    store, math = self._dtype.np, _math_dtype(self)
    y = self._np()[:1].astype(math)
    if n == 0:
        if beta != 0:
            raise RuntimeError(INTERNAL_OVERLAP_MESSAGE)
        return _write(self, [0], np.zeros(1))
    s0, s1 = mat._strides
    with np.errstate(over="ignore"):
        if not (s0 == 1 and (n == 1 or s1 >= max(1, m))):  # the transposed gemv, row by row
            return _write(self, [0], _sequence(y, prod._np().astype(math)[:, None], beta, alpha, store))
        if beta != 0 and beta != 1:
            for _ in range(m):
                y = (y * beta).astype(store).astype(math)
        a = mat._np().astype(math)
        z = (alpha * vec._np().astype(math))[:, None]
        if self._dtype in (dtypes.bfloat16, dtypes.float16):  # row sums in float32, added (or stored) in turn
            sums = (z * a.T).sum(0)
            return _write(self, [0], _sequence(y, sums[:, None], 1 if beta != 0 else 0, math.type(1), store))
        terms = (z * a.T).astype(math)  # (n, m): column j's terms, row by row
        if beta == 0:
            y, terms = np.zeros_like(y), terms.reshape(-1)[m - 1:]  # the first column's resets leave its last row
        total = np.add.accumulate(np.concatenate([y, terms.reshape(-1)]))[-1:]
        return _write(self, [0], total)
