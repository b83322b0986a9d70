"""The derivative table: one entry per differentiable primitive op, keyed by the op's name.

Entries are declared by area (elementwise, views and copies, reductions and linear algebra,
indexing and joining, neural-network kernels, special functions) in PyTorch's vocabulary; see NOTE [ Derivative
entries ] in `_entry.py` for the form. `NOT_DIFFERENTIABLE` names the ops declared
differentiable in core whose gradient is zero almost everywhere or undefined; the completeness
test checks that every other differentiable op has an entry. At import, each entry's signature
is checked against its op's declaration (`check_signature`): a drift fails loudly, here.
"""

from __future__ import annotations

import inspect

from ember.core.dispatch import get_op

from ember.autograd.derivatives import (attention, complex, elementwise, fft, indexing, linalg, nn, nn_extra, reduce,
                                       shape, special)
from ember.autograd.derivatives._entry import Derivative

__all__ = ["TABLE", "COMPOSITES", "Derivative", "check_signature"]

TABLE: dict[str, Derivative] = {}
for _module in (elementwise, shape, reduce, indexing, linalg, nn, nn_extra, complex, fft, special):
    for _entry in _module.ENTRIES:
        if _entry.op_name in TABLE:
            raise RuntimeError(f"two derivative entries for op '{_entry.op_name}'")
        TABLE[_entry.op_name] = _entry
# the one-node composites' entries, by name (`record.computed`)
COMPOSITES: dict[str, Derivative] = {e.op_name: e for e in (*reduce.COMPOSITE_ENTRIES, *attention.COMPOSITE_ENTRIES,
                                                             *indexing.COMPOSITE_ENTRIES, *linalg.COMPOSITE_ENTRIES,
                                                             *elementwise.COMPOSITE_ENTRIES)}


def check_signature(entry: Derivative, op) -> None:
    """Raise when `entry`'s signature drifted from its op's declaration: the op's argument names
    (`argnames`) must lead the entry's positional parameters, and the entry must have as many
    positional parameters as the op's CPU kernel takes (more only when the kernel takes `*args`)."""
    pos = tuple(entry.params[:entry.n_positional])
    if op.argnames and pos[:len(op.argnames)] != op.argnames:
        raise RuntimeError(f"derivative entry {entry.op_name}{pos}: the op is declared with arguments "
                           f"{op.argnames}; the entry's signature drifted from the op's")
    kernel = op.kernels.get("cpu") or op.kernels.get("any")
    if kernel is None or entry.vararg:
        return
    params = inspect.signature(kernel).parameters.values()
    n = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
    star = any(p.kind is p.VAR_POSITIONAL for p in params)
    if len(pos) < n or (len(pos) > n and not star):
        raise RuntimeError(f"derivative entry {entry.op_name}{pos}: the op's kernel takes {n} positional "
                           f"argument(s){' and *args' if star else ''}; the entry's signature drifted from the op's")


for _entry in TABLE.values():
    check_signature(_entry, get_op(_entry.op_name))
