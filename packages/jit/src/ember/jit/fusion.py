"""Fusion of elementwise op nodes into one generated kernel per group (`config.fuse`).

NOTE [ What fuses ]
A node can join a group when it is an op of `codegen.EXPR` called with no keyword but `out=None`,
on the CPU or one CUDA device, whose result is C-contiguous, whose tensor operands have the result's float dtype
(float32 or float64) and a shape that broadcasts to the result's, each readable by the group's
loop (NOTE [ Broadcast operands and epilogue sums ]), and whose other operands are Python numbers
(cast to that dtype, as eager's numpy does under NEP 50). Anything else (another dtype, a mix of
dtypes, a transposed operand, `alpha=`, an `Alias`, an empty result) stays its own
kernel call. Above `config.fuse_libm_max` elements, ops that call libm (sin, log ...; in float64
all but exp, tanh, sigmoid and silu) stay eager's loops too; exp, tanh, sigmoid and silu (and in
float32 sin, cos and the logs) vectorize (ember.jit.vmath) and fuse at any size. On CUDA every op
fuses at any size, each operand the result's shape (C-contiguous) or one value, without sums; the
group becomes a numba.cuda kernel (NOTE [ Fused kernels on CUDA ]).

Groups are grown in node order. A group is closed before a node that reads one of its results
without joining it, before anything that writes (`out=`, in-place ops, call nodes) and before a
node of another shape, dtype or device or whose operands no common loop split reads; a `sum` of one of
its results that the loop can accumulate joins it and closes it. The fused call takes the place
of the group's last node, so every input it reads exists by then. A group's results that anything
outside it reads (later nodes, the plan's outputs, the buffers a captured backward keeps) are
written out; the others live only in registers. Groups of fewer than two nodes are left alone.

NOTE [ Broadcast operands and epilogue sums ]
A group's loop splits its shape at a dim p into rows (the dims before p) and cols (the rest): one
flat loop where every operand is the whole C-contiguous shape ("a") or one value ("b"), else a
rows x cols nest whose inner loop runs along contiguous memory, so LLVM still vectorizes it. The
nest also reads a row ("r": the same cols values for every row, a linear's bias (N,) or (1, N)
against (M, N), a position table (T, D) against (B, T, D)), a column ("c": one value per row,
(M, 1) against (M, N)) and a slice ("s": the whole shape, each row contiguous, the rows one stride
apart, as `narrow` of the columns of a wider matrix gives). `_classify` decides per operand and
split from its shape and strides: broadcast dims (size 1, or stride 0 as `expand` makes) must all
lie on one side of p, the dims it reads must be C-contiguous over their extent (or a slice's). A
group keeps the splits all its operands allow and takes the smallest (the longest inner loop).
Each operand reaches the kernel as the 1-D array of the length the build checked (stride-0 dims
indexed away, then `reshape`; a slice as the 1-D array over its storage from its first element to
its last, with its row stride (`_operands`: the geometry of the replay's view, so never a read
outside its rows); a single value as it is, the kernel reads its first element): should a buffer's
geometry differ at a replay, the reshape raises or copies, and the kernel never reads out of bounds.

A `sum(x, dims, keepdim)` of a group's result (no `dtype=`) closes the group as an accumulation in
the same loop, at the split its dims give; the summed value is written out only if something
else reads it. Numerics, against eager's numpy `add.reduce`:
- over the leading dims (a bias's gradient, `numba_rows.leading_sum` in eager): from 0, row after
  row, in the group's dtype: numpy's order, so eager's bits. A single column (numpy sums it
  pairwise) accumulates in float64 in float32 groups instead.
- over the trailing dims (each row) and over all elements: float64 accumulators (per row; per
  column of the inner block, summed at the end), rounded once to the group's dtype. In float32
  this is more accurate than eager's pairwise float32 sum (within an ulp of the float64 sum of the
  same float32 terms), so it can differ from eager in the last bits; in float64 groups it is a
  sequential float64 sum (error below n * 2**-53, where numpy's pairwise is about log2(n) * 2**-53).
A group with a sum runs its serial kernel at every size (the row-order accumulation is not split
across threads). Sums over middle dims, `mean`, `amax` ... stay their own kernel calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ember.core.tensor import _CSTRIDES, Tensor, contiguous_strides
from ember.jit import codegen, config, cuda_codegen
from ember.jit.graph import Alias, OpNode, Ref, _reads
from ember.jit.launch import launcher

__all__ = ["fuse", "FusedOp"]


@dataclass
class FusedOp:
    """Stands for `Op` on a fused node: its name for the replay's comments and `explain`."""

    name: str
    ops: tuple
    check: None = None
    info: None = None
    view: bool = False
    mutates: bool = False
    differentiable: bool = True


@dataclass
class _Group:
    dtype: object
    shape: tuple
    splits: frozenset  # the loop splits every member's operands allow (`_classify`)
    device: object
    nodes: list = field(default_factory=list)
    results: set = field(default_factory=set)
    reduce: tuple | None = None  # (axis, split, summed buffer) of a closing `sum` node (the last of `nodes`)


def _strides_ok(shape: tuple, strides: tuple) -> str | None:
    """"a" for a C-contiguous operand of `shape`, "b" for one broadcast value, else None."""
    if strides == (_CSTRIDES.get(shape) or contiguous_strides(shape)):
        return "a"
    if all(s == 0 for s in strides):
        return "b"
    return None


def _classify(shape: tuple, strides: tuple, group: tuple, p: int) -> tuple | None:
    """How a fused loop split at dim `p` of `group` (rows: the dims before p, cols: the rest) reads an
    operand of `shape`/`strides` (broadcastable to `group`): (kind, pick, length), kind "a" (the whole
    group, C-contiguous), "b" (one value), "r" (one row of cols values, the same for every row), "c"
    (one value per row) or "s" (the whole group, rows a stride apart: a slice), `pick` the index that
    drops its broadcast (stride 0) dims before the reshape to a 1-D array of `length` (for "s" the 2-D
    (rows, cols) view), None where none need dropping; None where the split cannot read it."""
    pad = len(group) - len(shape)
    if pad < 0:
        return None
    full = []  # per group dim: True read along it, False broadcast, None a dim of size 1 (either)
    for d, n in enumerate(group):
        size, stride = (shape[d - pad], strides[d - pad]) if d >= pad else (1, 0)
        if size not in (1, n):
            return None
        full.append(None if n == 1 else size == n and stride != 0)
    outer, inner = full[:p], full[p:]
    read_out, read_in = False not in outer, False not in inner  # no broadcast dim among them
    bcast_out, bcast_in = True not in outer, True not in inner  # no dim read along
    kind = ("a" if read_out and read_in else "b" if bcast_out and bcast_in else
            "r" if bcast_out and read_in else "c" if read_out and bcast_in else None)
    if kind is None:
        return None
    rows = int(np.prod(group[:p], dtype=np.int64))
    cols = int(np.prod(group[p:], dtype=np.int64))
    length = {"a": rows * cols, "b": 1, "r": cols, "c": rows}[kind]
    # the dims it reads must be C-contiguous over their extent (stride = the product of the later read
    # sizes), else, for a whole operand, contiguous within the inner block with rows one stride apart ("s")
    read = [d for d in range(len(group)) if full[d]]
    if not _dense(read, strides, pad, group, 1):
        inner, outer = [d for d in read if d >= p], [d for d in read if d < p]
        if kind != "a" or not outer or not _dense(inner, strides, pad, group, 1) or strides[outer[-1] - pad] <= 0 \
                or not _dense(outer, strides, pad, group, strides[outer[-1] - pad]):
            return None
        kind, length = "s", (rows, cols)
    drop = [k for k in range(len(shape)) if shape[k] > 1 and strides[k] == 0]
    pick = tuple(slice(0, 1) if k in drop else slice(None) for k in range(len(shape))) if drop else None
    return kind, pick, length


def _dense(dims: list, strides: tuple, pad: int, group: tuple, run: int) -> bool:
    """Whether the operand's strides along group dims `dims` are `run` times the row-major strides of their sizes."""
    for d in reversed(dims):
        if strides[d - pad] != run:
            return False
        run *= group[d]
    return True


def _splits(b, group: tuple) -> frozenset:
    """The loop splits (0 to ndim; 0 is the flat loop, valid where every operand is "a" or "b") at which a
    fused loop can read buffer `b`."""
    return frozenset(p for p in range(len(group) + 1) if _classify(b.shape, b.strides, group, p) is not None)


def _fusable(g, n) -> tuple | None:
    """(dtype, shape, splits, device) of an op node that may join a group, else None."""
    if not isinstance(n, OpNode) or isinstance(n.op, FusedOp) or n.bumps or n.op.name not in codegen.EXPR:
        return None
    if any(k != "out" or v is not None for k, v in n.kwargs.items()) or len(n.outs) != 1 or n.outs[0] is None:
        return None
    res = g.buffers[n.outs[0]]
    dt, dev = res.dtype, res.device
    if dt.name not in ("float32", "float64") or dev.type not in ("cpu", "cuda") or \
            _strides_ok(res.shape, res.strides) != "a":
        return None
    size = int(np.prod(res.shape, dtype=np.int64))
    vector = codegen.VECTOR32 if dt.name == "float32" else codegen.VECTOR64  # ops whose loop vectorizes
    if size == 0 or dev.type == "cpu" and n.op.name not in vector and size > config.fuse_libm_max:
        return None  # on CUDA every op is a device function: no libm limit
    if len(n.args) != codegen.arity(n.op.name):
        return None
    splits = frozenset(range(len(res.shape) + 1)) if dev.type == "cpu" else frozenset({0})
    for a in n.args:
        if isinstance(a, Ref):
            b = g.buffers[a.index]
            if b.dtype is not dt or b.device != dev:
                return None
            if dev.type == "cuda" and (b.shape != res.shape or _strides_ok(b.shape, b.strides) is None):
                return None  # the CUDA kernel's one flat loop: the whole shape or one value
            splits &= _splits(b, res.shape)  # broadcast operands: where the loop can read them
        elif isinstance(a, Alias) or isinstance(a, bool) or not isinstance(a, (int, float)):
            return None
    return (dt, res.shape, splits, dev) if splits else None


def _reduction(g, n, gr: _Group) -> tuple | None:
    """(axis, split) where `n` is a `sum` of one of group `gr`'s results that its loop can accumulate
    (NOTE [ Broadcast operands and epilogue sums ]), else None."""
    if not isinstance(n, OpNode) or n.op.name != "sum" or n.bumps or len(n.outs) != 1 or n.outs[0] is None \
            or gr.device.type != "cpu":
        return None
    if any(k != "out" or v is not None for k, v in n.kwargs.items()) or not 2 <= len(n.args) <= 4:
        return None
    x, dims, keepdim, dtype = (*n.args, False, None)[:4]
    nd = len(gr.shape)
    if (not isinstance(x, Ref) or x.index not in gr.results or dtype is not None or not isinstance(keepdim, bool)
            or not isinstance(dims, tuple) or not dims or not all(type(d) is int and -nd <= d < nd for d in dims)):
        return None
    dims = tuple(sorted({d % nd for d in dims}))
    if len(dims) == nd:
        axis, p = "all", max(q for q in gr.splits if q < nd) if any(q < nd for q in gr.splits) else nd
    elif dims == tuple(range(len(dims))):
        axis, p = "rows", len(dims)
    elif dims == tuple(range(dims[0], nd)):
        axis, p = "cols", dims[0]
    else:
        return None
    res = g.buffers[n.outs[0]]
    want = tuple(1 if d in dims else s for d, s in enumerate(gr.shape)) if keepdim else tuple(
        s for d, s in enumerate(gr.shape) if d not in dims)
    if p not in gr.splits or res.dtype is not gr.dtype or res.shape != want:
        return None
    if _strides_ok(res.shape, res.strides) != "a":
        return None
    return axis, p


def fuse(g) -> int:
    """Replace each group of two or more fusable nodes of `g` by one fused node; returns how many groups."""
    if g.through_autograd:
        return 0
    from ember.jit.gathers import fuse_gathers

    gathered = fuse_gathers(g)  # NOTE [ Gathers into a cat ]
    groups: list[_Group] = []
    cur: _Group | None = None
    for n in g.nodes:
        red = _reduction(g, n, cur) if cur is not None else None
        if red is not None:  # a sum of the group's result closes it
            cur.nodes.append(n)
            cur.reduce = (*red, n.args[0].index)
            groups.append(cur)
            cur = None
            continue
        key = _fusable(g, n)
        if key is not None and cur is not None and key[0] is cur.dtype and key[1] == cur.shape and \
                key[2] & cur.splits and key[3] == cur.device:
            cur.nodes.append(n)
            cur.results.add(n.outs[0])
            cur.splits &= key[2]
            continue
        if cur is not None:
            r: set[int] = set()
            _reads(n.reads(), r)
            if key is not None or r & cur.results or isinstance(n, OpNode) and n.bumps or not isinstance(n, OpNode):
                groups.append(cur)
                cur = None
        if key is not None:
            cur = _Group(*key, [n], {n.outs[0]})
    if cur is not None:
        groups.append(cur)
    groups = [gr for gr in groups if len(gr.nodes) >= 2]
    if not groups:
        return gathered
    # buffers read outside their group: later nodes, the outputs, the end bindings, a backward's saved buffers
    outside: dict[int, set] = {}
    member = {id(n): k for k, gr in enumerate(groups) for n in gr.nodes}
    for n in g.nodes:
        r = set()
        _reads(n.reads(), r)
        for b in r:
            outside.setdefault(b, set()).add(member.get(id(n), -1))
    keep: set[int] = set()
    _reads(g.output, keep)
    _reads(g.end_binds, keep)
    if g.backward is not None:
        _reads((g.backward.saved, g.backward.targets), keep)
    last = {id(gr.nodes[-1]): _fused_node(g, gr, k, outside, keep) for k, gr in enumerate(groups)}
    g.nodes = [last.get(id(n), n) for n in g.nodes if id(n) not in member or id(n) in last]
    return gathered + len(groups)


def _fused_node(g, gr: _Group, k: int, outside: dict, keep: set) -> OpNode:
    nodes = gr.nodes[:-1] if gr.reduce is not None else gr.nodes  # the elementwise steps
    if gr.reduce is not None:
        p = gr.reduce[1]
    else:  # the flat loop where it reads everything, else the split with the longest inner loop
        p = min(gr.splits)
    shape = gr.shape
    inputs: list = []  # Refs read from outside the group, in first-use order
    reads: list = []  # (kind, pick, length) of each
    scalars: list = []
    step_of = {n.outs[0]: s for s, n in enumerate(nodes)}
    steps = []
    for n in nodes:
        operands = []
        for a in n.args:
            if isinstance(a, Ref) and a.index in step_of:
                operands.append(("t", step_of[a.index]))
            elif isinstance(a, Ref):
                if a not in inputs:
                    inputs.append(a)
                    b = g.buffers[a.index]
                    reads.append(_classify(b.shape, b.strides, shape, p))
                operands.append(("a", inputs.index(a)))
            else:
                scalars.append(a)
                operands.append(("s", len(scalars) - 1))
        steps.append((n.op.name, tuple(operands)))
    outs = [s for s, n in enumerate(nodes)
            if n.outs[0] in keep or any(m != k for m in outside.get(n.outs[0], ()))]
    if gr.device.type == "cuda":
        kinds = "".join(_strides_ok(g.buffers[a.index].shape, g.buffers[a.index].strides) for a in inputs)
        run = cuda_codegen.runner(gr.dtype, gr.device, shape, kinds, scalars, tuple(steps), tuple(outs))
        return _node(gr, run, inputs, [nodes[s].outs[0] for s in outs])
    dt = gr.dtype.np
    rows = int(np.prod(shape[:p], dtype=np.int64))
    cols = int(np.prod(shape[p:], dtype=np.int64))
    size = rows * cols
    reduce = red_shape = None
    if gr.reduce is not None:
        axis, _, summed = gr.reduce
        wide = axis != "rows" or cols < 2 and dt == np.float32  # a single column: float64, not numpy's pairwise
        reduce = (axis, step_of[summed], wide)
        red_shape = g.buffers[gr.nodes[-1].outs[0]].shape
        red_len = {"rows": cols, "cols": rows, "all": 1}[axis]
    kinds = "".join(r[0] for r in reads)
    src = codegen.kernel_source(dt.name, kinds, len(scalars), tuple(steps), tuple(outs), reduce)
    serial, parallel = codegen.load(src)
    kern = parallel if size >= config.fuse_parallel_min else serial
    sv = np.array(scalars, dt)  # cast as eager's numpy casts a Python number for an array of dtype dt
    n_out = len(outs)
    nest = reduce is not None or any(c in "rcs" for c in kinds)
    dims = (rows, cols) if nest else (size,)
    # each input as the array the kernel indexes: a single value as it is (the kernel reads its first element),
    # the others reshaped to the length the build checked, which raises (never reads out of bounds) should a
    # buffer's geometry differ at a replay, and copies a non-contiguous one
    prep = tuple(None if kind == "b" else (pick, length) for kind, pick, length in reads)

    if not nest:  # the flat loop: the generated launch (NOTE [ A fused kernel's launch ])
        names = tuple(n.op.name for n in gr.nodes)
        run = launcher(kern, gr.dtype, shape, tuple(kind == "b" for kind in kinds),
                       tuple(g.buffers[a.index].shape for a in inputs), n_out, sv, "fused_" + "_".join(names))
    elif reduce is None:
        def run(*ts, out=(None,) * n_out):  # out: arena slots (NOTE [ The replay's arena ] in ember.jit.arena)
            res = [np.empty(size, dt) if o is None else o for o in out]
            arrays, strides = _operands(ts, prep)
            kern(*dims, *res, *arrays, sv, *strides)
            return tuple([Tensor._wrap(r.reshape(shape)) for r in res])
    else:
        def run(*ts, out=(None,) * (n_out + 1)):
            res = [np.empty(size, dt) if o is None else o for o in out[:-1]]
            acc = np.empty(red_len, dt) if out[-1] is None else out[-1]
            arrays, strides = _operands(ts, prep)
            kern(*dims, *res, *arrays, sv, *strides, acc)
            return (*[Tensor._wrap(r.reshape(shape)) for r in res], Tensor._wrap(acc.reshape(red_shape)))

    # its result is the unfused ops' bits (NOTE [ Fused kernels compiled in the background ] in ember.jit.background)
    run.exact = reduce is None or reduce[0] == "rows" and not reduce[2]
    if nest:
        run.takes_out = True
        run.whole = ("nest", kern, dims, dt, shape, prep, sv, size, red_len if reduce is not None else None)

    written = [nodes[s].outs[0] for s in outs]
    return _node(gr, run, inputs, written + [gr.nodes[-1].outs[0]] if reduce is not None else written)


def _operands(ts: tuple, prep: tuple) -> tuple[list, list]:
    """The arrays a nested kernel reads (see `_fused_node`'s `prep`) and the row stride of each slice ("s"):
    a slice is passed as the 1-D array from its first element to its last, over its tensor's storage (the
    rows' geometry is the 2-D view's, whatever the replay's strides: never a read outside the slice's rows)."""
    arrays, strides = [], []
    for t, p in zip(ts, prep):
        if p is None:
            arrays.append(t._np())
            continue
        a = (t._np() if p[0] is None else t._np()[p[0]]).reshape(p[1])
        if a.ndim == 2 and a.shape[0] > 0 and a.strides[1] == a.itemsize and a.strides[0] % a.itemsize == 0 \
                and a.strides[0] >= a.itemsize * a.shape[1]:
            rs = a.strides[0] // a.itemsize
            a = np.ndarray(((a.shape[0] - 1) * rs + a.shape[1],), a.dtype, t._storage._raw, t._offset * a.itemsize)
            strides.append(rs)
        elif a.ndim == 2:  # any other layout (a replay's view of other strides): a contiguous copy
            strides.append(a.shape[1])
            a = np.ascontiguousarray(a).reshape(-1)
        arrays.append(a)
    return arrays, strides


def _node(gr: _Group, run, inputs: list, outs: list) -> OpNode:
    """The fused node of `gr` calling `run` on the `inputs`, writing the buffers `outs`."""
    names = tuple(n.op.name for n in gr.nodes)
    run.__name__ = "fused_" + "_".join(names)
    return OpNode(FusedOp(f"fused[{', '.join(names)}]", names), run, tuple(inputs), {}, outs, (), tuple_out=True)
