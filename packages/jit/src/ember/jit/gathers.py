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

NCF's other cat joins its GMF branch, the product of a user's and an item's rows, to the MLP's output:
a `mul` of two lookups that only the cat reads is made by the same node, which gathers both rows and
writes their product into its column block in one pass (`numba_nn.rows_gather_product`: one IEEE product
per element, eager's `mul`); the lookups, which the product's backward reads, are written out by it too
(allowed where nothing reads them before the cat and nothing writes between them and the cat), and any
other operand of the cat is copied into its block: `fused[embedding, embedding, mul, cat]`, one node for
four (two lookups, the `mul`, the `cat`). In the backward, each lookup's gradient is `embedding_backward`
of the product's gradient times the other lookup: a `mul` that only the scatter reads joins it,
`fused[mul, embedding_backward]` (`numba_nn.rows_scatter_product_into`: each product rounded, then added in
eager's order, so eager's bits), which drops the `mul`'s pass and its two (M, D) results.
"""

from __future__ import annotations

import numpy as np

from ember.core.ops import numba_nn
from ember.core.ops.embedding import _check_values, _flat_indices, _rows
from ember.core.tensor import Tensor
from ember.jit.graph import OpNode, Ref, _reads

__all__ = ["fuse_gathers"]

_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def fuse_gathers(g) -> int:
    """Replace each `cat` of embedding lookups in `g` (NOTE [ Gathers into a cat ]); returns how many."""
    from ember.jit.fusion import FusedOp, _strides_ok

    producer = {o: n for n in g.nodes if isinstance(n, OpNode) for o in n.outs if o is not None}
    position = {id(n): k for k, n in enumerate(g.nodes)}
    reads: dict[int, int] = {}
    readers: dict[int, list] = {}
    for k, n in enumerate(g.nodes):
        r: set[int] = set()
        _reads(n.reads(), r)
        for b in r:
            reads[b] = reads.get(b, 0) + 1
            readers.setdefault(b, []).append(k)
    keep: set[int] = set()
    _reads((g.output, g.end_binds, [c[1] for c in g.checks]), keep)
    if g.backward is not None:
        _reads((g.backward.saved, g.backward.targets), keep)
    ctx = (producer, position, reads, readers, keep, _strides_ok)
    replaced: dict[int, OpNode] = {}
    dropped: set[int] = set()
    for n in g.nodes:
        parts = _parts(g, n, ctx)
        if parts is None:
            continue
        args: list = []  # the copied buffer, a lookup's (weight, indices), a product's two pairs
        for kind, nodes in parts:
            args += [nodes[0]] if kind == "copy" else [x for e in (nodes[1:] if kind == "product" else nodes)
                                                       for x in e.args[:2]]
        run, outs = _runner(g.buffers[n.outs[0]], parts, n)
        args = tuple(args)
        names = [op for kind, _ in parts for op in {"lookup": ["embedding"], "product": ["embedding", "embedding",
                                                                                          "mul"], "copy": []}[kind]]
        name = f"fused[{', '.join(names)}, cat]"
        # needs_check: like the lookups, it validates index values (kept should its result ever be dead)
        replaced[id(n)] = OpNode(FusedOp(name, (*names, "cat")), run, args, {}, [n.outs[0], *outs], (),
                                 tuple_out=True, needs_check=True)
        dropped |= {id(e) for kind, nodes in parts if kind != "copy" for e in nodes}
    if replaced:
        g.nodes = [replaced.get(id(n), n) for n in g.nodes if id(n) not in dropped]
    return len(replaced) + _fuse_scatters(g, FusedOp, keep)


def _fuse_scatters(g, fused_op, keep: set) -> int:
    """Replace each `embedding_backward` of a `mul` that only it reads by one scatter of the rows' products
    (NOTE [ Gathers into a cat ]: NCF's GMF gradients); returns how many. `keep`: what leaves the plan."""
    producer = {o: n for n in g.nodes if isinstance(n, OpNode) for o in n.outs if o is not None}
    position = {id(n): k for k, n in enumerate(g.nodes)}
    readers: dict[int, list] = {}
    for k, n in enumerate(g.nodes):
        r: set[int] = set()
        _reads(n.reads(), r)
        for b in r:
            readers.setdefault(b, []).append(k)
    replaced: dict[int, OpNode] = {}
    dropped: set[int] = set()
    for n in g.nodes:
        if not (isinstance(n, OpNode) and n.op.name == "embedding_backward" and not n.kwargs and not n.bumps
                and 4 <= len(n.args) <= 5 and isinstance(n.args[0], Ref) and isinstance(n.args[1], Ref)
                and type(n.args[2]) is int and type(n.args[3]) is int and (len(n.args) == 4 or n.args[4] is False)
                and len(n.outs) == 1 and n.outs[0] is not None):
            continue
        grad = n.args[0].index
        m = producer.get(grad)
        if (m is None or m.op.name != "mul" or m.kwargs or m.bumps or len(m.args) != 2
                or not all(isinstance(a, Ref) for a in m.args) or readers.get(grad) != [position[id(n)]]
                or grad in keep or id(m) in dropped):
            continue
        gb, ib = g.buffers[grad], g.buffers[n.args[1].index]
        ops = [g.buffers[a.index] for a in m.args]
        if (gb.device.type != "cpu" or np.dtype(gb.dtype.np) not in _DTYPES or len(gb.shape) < 1
                or any(b.shape != gb.shape or b.dtype is not gb.dtype or b.device != gb.device for b in ops)
                or ib.shape != gb.shape[:-1] or np.dtype(ib.dtype.np).kind not in "iu"
                or any(not isinstance(x, OpNode) or x.bumps or x.op.mutates
                       for x in g.nodes[position[id(m)] + 1:position[id(n)]])):
            continue
        run = _scatter_runner(gb, n, m)
        replaced[id(n)] = OpNode(fused_op("fused[mul, embedding_backward]", ("mul", "embedding_backward")), run,
                                 (*m.args, n.args[1]), {}, [n.outs[0]], (), tuple_out=True)
        dropped.add(id(m))
    if replaced:
        g.nodes = [replaced.get(id(n), n) for n in g.nodes if id(n) not in dropped]
    return len(replaced)


def _scatter_runner(grad, backward: OpNode, mul: OpNode):
    """`run(a, b, indices)` -> (the weight's gradient,): embedding_backward(a * b, indices, ...) in one pass."""
    shape, dt = tuple(grad.shape), np.dtype(grad.dtype.np)
    d = shape[-1]
    num_weights, skip = backward.args[2], backward.args[3]
    scatter = numba_nn.rows_scatter_product_into()
    mul_kernel, backward_kernel, rest = mul.kernel, backward.kernel, backward.args[2:]

    def run(a, b, i):
        if a._shape != shape or b._shape != shape or a._dtype.np != dt or b._dtype.np != dt or i._shape != shape[:-1]:
            return (backward_kernel(mul_kernel(a, b), i, *rest),)  # re-pointed at this replay: eager's two ops
        idx = _flat_indices(i)
        out = np.empty((num_weights, d), dt)
        (x, rx), (y, ry) = _rows(a, idx.size, d), _rows(b, idx.size, d)
        if scatter(x, rx, y, ry, idx, out, int(skip)) >= 0:
            _check_values(idx, num_weights, False)
        return (Tensor._wrap(out),)

    run.exact, run.dispatchers = True, (scatter,)  # eager's bits; its kernel (ember.jit.background)
    return run


def _lookup(g, a, res, ctx, alone: bool, until: int):
    """The embedding node making buffer `a` (a Ref), a lookup the cat's gather can do, else None: read by nothing
    else where `alone`, else only by nodes after position `until` (the cat), where the gather then makes it."""
    producer, position, reads, readers, keep, _ = ctx
    e = producer.get(a.index) if isinstance(a, Ref) else None
    if (e is None or e.op.name != "embedding" or e.kwargs or e.bumps or len(e.args) < 2
            or not all(isinstance(x, Ref) for x in e.args[:2])):
        return None
    if alone and (reads.get(a.index) != 1 or a.index in keep):
        return None
    w, i = g.buffers[e.args[0].index], g.buffers[e.args[1].index]
    if (len(w.shape) != 2 or w.dtype is not res.dtype or w.device != res.device or i.shape != res.shape[:-1]
            or np.dtype(i.dtype.np).kind not in "iu"):
        return None
    # nothing between the lookup and the cat writes: the gather, made at the cat, reads what the lookup read
    if any(isinstance(m, OpNode) and (m.bumps or m.op.mutates) or not isinstance(m, OpNode)
           for m in g.nodes[position[id(e)] + 1:until]):
        return None
    return e


def _parts(g, n, ctx) -> list | None:
    """What `n` (a cat along the last dim) reads, as ("lookup", [embedding]) (a lookup only the cat reads),
    ("product", [mul, embedding, embedding]) (a product of two lookups that only the cat reads; the lookups
    may be read later) or ("copy", [Ref, its shape]) (any other operand of the result's dtype); None where no
    part is a lookup or a product."""
    producer, position, reads, readers, keep, strides_ok = ctx
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
    at = position[id(n)]
    out = []
    for a in n.args[0]:
        if not isinstance(a, Ref):
            return None
        e = _lookup(g, a, res, ctx, True, at)
        if e is not None:
            out.append(("lookup", [e]))
            continue
        m = producer.get(a.index)
        if (m is not None and m.op.name == "mul" and not m.kwargs and not m.bumps and len(m.args) == 2
                and reads.get(a.index) == 1 and a.index not in keep):
            es = [_lookup(g, x, res, ctx, False, at) for x in m.args]
            if (all(es) and es[0] is not es[1] and g.buffers[a.index].shape == g.buffers[m.args[1].index].shape
                    == g.buffers[m.args[0].index].shape and g.buffers[a.index].dtype is res.dtype
                    and all(k == position[id(m)] or k > at for e in es for k in readers[e.outs[0]])):
                out.append(("product", [m, *es]))
                continue
        b = g.buffers[a.index]
        if b.dtype is not res.dtype or b.device != res.device or b.shape[:-1] != res.shape[:-1]:
            return None
        out.append(("copy", [a, tuple(b.shape)]))
    if len(out) < 2 or all(kind == "copy" for kind, _ in out):
        return None
    return out


def _runner(res, parts: list, cat: OpNode):
    """`run(*operands)` -> (result, *lookups): each lookup's rows into its column block of the result, each product
    of two lookups (made, as they are read later) into its block, any other operand copied into its block; the
    operands are each part's (weight, indices) pairs or the copied tensor. Also the lookups' buffers made."""
    shape, dt = tuple(res.shape), np.dtype(res.dtype.np)
    rows = int(np.prod(shape[:-1]))
    gather, product = numba_nn.rows_gather(), numba_nn.rows_gather_product()
    cat_kernel, cat_args = cat.kernel, cat.args[1:]
    plan = []  # (kind, eager kernels, their extra arguments) per part
    outs = []
    for kind, nodes in parts:
        if kind == "copy":
            plan.append((kind, nodes[1], None))
            continue
        es = nodes[-2:] if kind == "product" else nodes
        plan.append((kind, [e.kernel for e in es] + ([nodes[0].kernel] if kind == "product" else []),
                     [e.args[2:] for e in es]))
        if kind == "product":
            outs += [e.outs[0] for e in es]

    def eager(ts):  # a table re-pointed at this replay: eager's lookups, products and cat
        parts_, made, k = [], [], 0
        for kind, kernels, extra in plan:
            if kind == "copy":
                parts_.append(ts[k])
                k += 1
            elif kind == "lookup":
                parts_.append(kernels[0](ts[k], ts[k + 1], *extra[0]))
                k += 2
            else:
                a = kernels[0](ts[k], ts[k + 1], *extra[0])
                b = kernels[1](ts[k + 2], ts[k + 3], *extra[1])
                parts_.append(kernels[2](a, b))
                made += [a, b]
                k += 4
        return (cat_kernel(parts_, *cat_args), *made)

    def run(*ts):
        out = np.empty(shape, dt)
        flat = out.reshape(rows, shape[-1])
        made, c, k = [], 0, 0
        for kind, geometry, _ in plan:
            if kind == "copy":
                x = ts[k]._np()
                if x.shape != geometry or x.dtype != dt:  # re-pointed (a constant): eager's cat casts and checks
                    return eager(ts)
                d = x.shape[-1]
                np.copyto(flat[:, c:c + d], x.reshape(rows, d))
                k += 1
                c += d
                continue
            pairs = ts[k:k + (4 if kind == "product" else 2)]
            ws = [t._np() for t in pairs[0::2]]
            d = ws[0].shape[1] if ws[0].ndim == 2 else -1
            if not all(w.ndim == 2 and w.dtype == dt and w.flags.c_contiguous and w.shape[1] == d for w in ws) or \
                    c + d > shape[-1]:
                return eager(ts)
            if any(i._shape != shape[:-1] for i in pairs[1::2]):  # the kernels write `rows` rows, no more
                return eager(ts)
            if kind == "lookup":
                idx = _flat_indices(pairs[1])
                if gather(ws[0], idx, flat, c) >= 0:
                    _check_values(idx, ws[0].shape[0], False)
            else:
                ia, ib = _flat_indices(pairs[1]), _flat_indices(pairs[3])
                a, b = np.empty((rows, d), dt), np.empty((rows, d), dt)
                if product(ws[0], ia, ws[1], ib, a, b, flat, c) >= 0:  # eager's mul: one IEEE product per element
                    _check_values(ia, ws[0].shape[0], False)
                    _check_values(ib, ws[1].shape[0], False)
                made += [Tensor._wrap(a.reshape(shape[:-1] + (d,))), Tensor._wrap(b.reshape(shape[:-1] + (d,)))]
            k += len(pairs)
            c += d
        if c != shape[-1]:
            return eager(ts)
        return (Tensor._wrap(out), *made)

    run.exact, run.dispatchers = True, (gather, product)  # copies and eager's products; its kernels
    return run, outs
