"""`cat` of embedding lookups fused into one gather (part of `config.fuse`).

NOTE [ Gathers into a cat ]
NCF concatenates a user's and an item's embedding rows (`cat((emb_u(u), emb_i(i)), -1)`): eager
gathers each table's rows into a new array, then `cat` copies both into a third (on 1024 rows of
64: the lookups 15 us each, the cat 30-48 us). Where a `cat` along the last dim reads only lookups
that nothing else reads (`embedding` of a 2-D CPU weight in the result's float dtype, every lookup
over indices of the same shape), the plan runs one node instead: each table's rows are copied
straight into their column block of the result (`numba_nn.rows_gather`), the indices checked as they
are read, so an index out of range raises eager's IndexError ("index out of range in self"), at
the cat rather than at its lookup. The same values are copied, so the same bits. A weight whose
geometry changed at a replay (`.data =` another shape or layout) goes through the lookups and the
cat as eager does. The backward (`embedding_backward`) reads only the indices, so it is unchanged.
"""

from __future__ import annotations

import numpy as np

from ember.core.ops import numba_nn
from ember.core.ops.embedding import _check_values, _flat_indices
from ember.core.tensor import Tensor
from ember.jit.graph import OpNode, Ref, _reads

__all__ = ["fuse_gathers"]

_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def fuse_gathers(g) -> int:
    """Replace each `cat` of embedding lookups in `g` (NOTE [ Gathers into a cat ]); returns how many."""
    from ember.jit.fusion import FusedOp, _strides_ok

    producer = {o: n for n in g.nodes if isinstance(n, OpNode) for o in n.outs if o is not None}
    reads: dict[int, int] = {}
    for n in g.nodes:
        r: set[int] = set()
        _reads(n.reads(), r)
        for b in r:
            reads[b] = reads.get(b, 0) + 1
    keep: set[int] = set()
    _reads((g.output, g.end_binds, [c[1] for c in g.checks]), keep)
    if g.backward is not None:
        _reads((g.backward.saved, g.backward.targets), keep)
    replaced: dict[int, OpNode] = {}
    dropped: set[int] = set()
    for n in g.nodes:
        lookups = _lookups(g, n, producer, reads, keep, _strides_ok)
        if lookups is None:
            continue
        args = tuple(a for e in lookups for a in e.args[:2])
        run = _runner(g.buffers[n.outs[0]], lookups, n)
        name = f"fused[{', '.join(['embedding'] * len(lookups))}, cat]"
        # needs_check: like the lookups, it validates index values (kept should its result ever be dead)
        replaced[id(n)] = OpNode(FusedOp(name, ("embedding",) * len(lookups) + ("cat",)), run, args, {},
                                 [n.outs[0]], (), tuple_out=True, needs_check=True)
        dropped |= {id(e) for e in lookups}
    if replaced:
        g.nodes = [replaced.get(id(n), n) for n in g.nodes if id(n) not in dropped]
    return len(replaced)


def _lookups(g, n, producer: dict, reads: dict, keep: set, strides_ok) -> list | None:
    """The embedding nodes whose results `n` (a cat along the last dim) alone reads, or None."""
    if not (isinstance(n, OpNode) and n.op.name == "cat" and not n.bumps and len(n.outs) == 1
            and n.outs[0] is not None and n.args and isinstance(n.args[0], (list, tuple)) and len(n.args) <= 2
            and all(k == "out" and v is None for k, v in n.kwargs.items())):
        return None
    res = g.buffers[n.outs[0]]
    nd = len(res.shape)
    dim = n.args[1] if len(n.args) == 2 else 0
    if (type(dim) is not int or nd < 2 or not -nd <= dim < nd or dim % nd != nd - 1 or res.device.type != "cpu"
            or np.dtype(res.dtype.np) not in _DTYPES or strides_ok(res.shape, res.strides) != "a"
            or not all(res.shape)):
        return None
    out = []
    for a in n.args[0]:
        e = producer.get(a.index) if isinstance(a, Ref) else None
        if (e is None or e.op.name != "embedding" or e.kwargs or e.bumps or len(e.args) < 2 or reads.get(a.index) != 1
                or a.index in keep or not all(isinstance(x, Ref) for x in e.args[:2])):
            return None
        w, i = g.buffers[e.args[0].index], g.buffers[e.args[1].index]
        if (len(w.shape) != 2 or w.dtype is not res.dtype or w.device != res.device or i.shape != res.shape[:-1]
                or np.dtype(i.dtype.np).kind not in "iu"):
            return None
        out.append(e)
    return out if len(out) >= 2 else None


def _runner(res, lookups: list, cat: OpNode):
    """`run(w0, i0, w1, i1, ...)` -> (result,): each table's rows into their column block of the result."""
    shape, dt = tuple(res.shape), np.dtype(res.dtype.np)
    kernels = [e.kernel for e in lookups]
    extra = [e.args[2:] for e in lookups]
    cat_kernel, cat_args = cat.kernel, cat.args[1:]
    gather = numba_nn.rows_gather()
    rows = int(np.prod(shape[:-1]))

    def run(*ts):
        ws = [t._np() for t in ts[0::2]]
        if not all(w.ndim == 2 and w.dtype == dt and w.flags.c_contiguous for w in ws) or \
                sum(w.shape[1] for w in ws) != shape[-1]:  # re-pointed at this replay: eager's lookups and cat
            parts = [k(w, i, *x) for k, w, i, x in zip(kernels, ts[0::2], ts[1::2], extra)]
            return (cat_kernel(parts, *cat_args),)
        out = np.empty(shape, dt)
        flat = out.reshape(rows, shape[-1])
        c = 0
        for w, i in zip(ws, ts[1::2]):
            idx = _flat_indices(i)
            if gather(w, idx, flat, c) >= 0:
                _check_values(idx, w.shape[0], False)
            c += w.shape[1]
        return (Tensor._wrap(out),)

    return run
