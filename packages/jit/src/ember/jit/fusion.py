"""Fusion of elementwise op nodes into one generated kernel per group (`config.fuse`).

NOTE [ What fuses ]
A node can join a group when it is an op of `codegen.EXPR` called with no keyword but `out=None`,
on the CPU, whose tensor operands and result all have the result's shape and one float dtype
(float32 or float64), each operand either C-contiguous or one value broadcast (every stride 0, as
`expand` of a scalar gradient), and whose other operands are Python numbers (cast to that dtype,
as eager's numpy does under NEP 50). Anything else (another dtype, a mix of dtypes, a broadcast
of a real shape, `alpha=`, an `Alias`) stays its own kernel call. Above `config.fuse_libm_max`
elements, ops that call libm (sin, log ...; in float64 also exp, tanh, sigmoid) stay eager's numpy
(SIMD) loops too; float32 exp, tanh, sigmoid and silu vectorize (ember.jit.vmath) and fuse at any size.

Groups are grown in node order. A group is closed before a node that reads one of its results
without joining it, before anything that writes (`out=`, in-place ops, call nodes) and before a
node of another shape or dtype; the fused call takes the place of the group's last node, so every
input it reads exists by then. A group's results that anything outside it reads (later nodes, the
plan's outputs, the buffers a captured backward keeps) are written out; the others live only in
registers. Groups of fewer than two nodes are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ember.core.tensor import _CSTRIDES, contiguous_strides
from ember.jit import codegen, config
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
    nodes: list = field(default_factory=list)
    results: set = field(default_factory=set)


def _strides_ok(shape: tuple, strides: tuple) -> str | None:
    """"a" for a C-contiguous operand of `shape`, "b" for one broadcast value, else None."""
    if strides == (_CSTRIDES.get(shape) or contiguous_strides(shape)):
        return "a"
    if all(s == 0 for s in strides):
        return "b"
    return None


def _fusable(g, n) -> tuple | None:
    """(dtype, shape) of an op node that may join a group, else None."""
    if not isinstance(n, OpNode) or isinstance(n.op, FusedOp) or n.bumps or n.op.name not in codegen.EXPR:
        return None
    if any(k != "out" or v is not None for k, v in n.kwargs.items()) or len(n.outs) != 1 or n.outs[0] is None:
        return None
    res = g.buffers[n.outs[0]]
    dt = res.dtype
    if dt.name not in ("float32", "float64") or res.device.type != "cpu" or _strides_ok(res.shape, res.strides) != "a":
        return None
    vector = codegen.VECTOR32 if dt.name == "float32" else codegen.ARITH  # ops whose loop vectorizes
    if n.op.name not in vector and int(np.prod(res.shape)) > config.fuse_libm_max:
        return None
    n_in = 2 if n.op.name in ("add", "sub", "mul", "div", "maximum", "minimum") else 1
    if len(n.args) != n_in:
        return None
    for a in n.args:
        if isinstance(a, Ref):
            b = g.buffers[a.index]
            if b.dtype is not dt or b.shape != res.shape or b.device.type != "cpu" or \
                    _strides_ok(b.shape, b.strides) is None:
                return None
        elif isinstance(a, Alias) or isinstance(a, bool) or not isinstance(a, (int, float)):
            return None
    return dt, res.shape


def fuse(g) -> int:
    """Replace each group of two or more fusable nodes of `g` by one fused node; returns how many groups."""
    if g.through_autograd:
        return 0
    groups: list[_Group] = []
    cur: _Group | None = None
    for n in g.nodes:
        key = _fusable(g, n)
        if key is not None and cur is not None and (key[0] is cur.dtype and key[1] == cur.shape):
            cur.nodes.append(n)
            cur.results.add(n.outs[0])
            continue
        if cur is not None:
            r: set[int] = set()
            _reads(n.reads(), r)
            if key is not None or r & cur.results or isinstance(n, OpNode) and n.bumps or not isinstance(n, OpNode):
                groups.append(cur)
                cur = None
        if key is not None:
            cur = _Group(key[0], key[1], [n], {n.outs[0]})
    if cur is not None:
        groups.append(cur)
    groups = [gr for gr in groups if len(gr.nodes) >= 2]
    if not groups:
        return 0
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
    return len(groups)


def _fused_node(g, gr: _Group, k: int, outside: dict, keep: set) -> OpNode:
    inputs: list = []  # Refs read from outside the group, in first-use order
    kinds: list[str] = []
    scalars: list = []
    step_of = {n.outs[0]: s for s, n in enumerate(gr.nodes)}
    steps = []
    for n in gr.nodes:
        operands = []
        for a in n.args:
            if isinstance(a, Ref) and a.index in step_of:
                operands.append(("t", step_of[a.index]))
            elif isinstance(a, Ref):
                if a not in inputs:
                    inputs.append(a)
                    kinds.append(_strides_ok(g.buffers[a.index].shape, g.buffers[a.index].strides))
                operands.append(("a", inputs.index(a)))
            else:
                scalars.append(a)
                operands.append(("s", len(scalars) - 1))
        steps.append((n.op.name, tuple(operands)))
    outs = [s for s, n in enumerate(gr.nodes)
            if n.outs[0] in keep or any(m != k for m in outside.get(n.outs[0], ()))]
    dt = gr.dtype.np
    src = codegen.kernel_source(dt.name, "".join(kinds), len(gr.shape), len(scalars), tuple(steps), tuple(outs))
    serial, parallel = codegen.load(src)
    size = int(np.prod(gr.shape))
    kern = parallel if size >= config.fuse_parallel_min else serial
    sv = np.array(scalars, dt)  # cast as eager's numpy casts a Python number for an array of dtype dt
    names = tuple(n.op.name for n in gr.nodes)
    run = launcher(kern, gr.dtype, gr.shape, tuple(kind == "b" for kind in kinds), len(outs), sv,
                   "fused_" + "_".join(names))
    return OpNode(FusedOp(f"fused[{', '.join(names)}]", names), run, tuple(inputs), {},
                  [gr.nodes[s].outs[0] for s in outs], (), tuple_out=True)
