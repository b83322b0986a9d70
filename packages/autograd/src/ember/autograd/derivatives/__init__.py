"""The derivative table: one entry per differentiable primitive op, keyed by the op's name.

Entries are declared by area (elementwise, views and copies, reductions and linear algebra,
indexing and joining, neural-network kernels, special functions) in PyTorch's vocabulary; see NOTE [ Derivative
entries ] in `_entry.py` for the form. `NOT_DIFFERENTIABLE` names the ops declared
differentiable in core whose gradient is zero almost everywhere or undefined; the completeness
test checks that every other differentiable op has an entry.
"""

from __future__ import annotations

from ember.autograd.derivatives import complex, elementwise, fft, indexing, linalg, nn, nn_extra, reduce, shape, special
from ember.autograd.derivatives._entry import Derivative

__all__ = ["TABLE", "Derivative"]

TABLE: dict[str, Derivative] = {}
for _module in (elementwise, shape, reduce, indexing, linalg, nn, nn_extra, complex, fft, special):
    for _entry in _module.ENTRIES:
        if _entry.op_name in TABLE:
            raise RuntimeError(f"two derivative entries for op '{_entry.op_name}'")
        TABLE[_entry.op_name] = _entry
