"""The captured graph: a linear list of op calls over numbered buffers, and its replay function.

NOTE [ The plan IR ]
A capture produces a `Graph`. Every tensor the function touched is a *buffer* (`Buffer`): an
input (swapped on every call), a constant (a tensor that existed before the call or was made
without an op, referenced by identity: parameters, gradients that persist, optimizer state,
`ones` of a backward's root), or the output of a recorded op. A tensor that shares a buffer's
storage with another geometry (a view made outside the dispatcher, such as the alias autograd
keeps of a saved output) is an `Alias` of that buffer. Nodes run in capture order:

- `OpNode`: one device kernel call, `kernel(*args, **kwargs)`, with the op's meta check before it
  and the version bumps of what it writes after it (what `Op.redispatch` does, minus the hooks).
- `CallNode`: a method of an object the capture must not freeze (an optimizer's `step` or
  `zero_grad`: it reads the learning rate and its step counters at replay), run eagerly, after
  binding `.grad` of the parameters to this replay's buffers (`GradBind`).
- `Guard`: a value Python read from a buffer and branched on (`if t.any():`, `if loss.item() > 1:`,
  `range(int(n))`), tested against the capture's at replay; a different value ends the replay
  with `DIVERGED` (NOTE [ Branches on tensor values ] in `ember.jit.capture`).

Each buffer keeps its shape, dtype and device, and each node the names it reads and writes, so a
later pass can plan memory (liveness), fuse elementwise chains and emit one kernel per group
from this same IR without capturing again. This pass only generates Python: `Graph.codegen`
writes one function whose body is one line per node, so a replay costs one Python call per kernel.

A forward whose outputs must carry a history (its backward runs outside the function) carries
its captured backward as a second `Graph` (`Backward`, NOTE [ A captured backward ] in
`ember.jit.backward`); where that could not be captured it replays each op through the
dispatcher instead (`through_autograd`), so autograd records as in eager.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ember.core.tensor import Tensor
from ember.jit import arena, wholeplan
from ember.jit.backward import spend

__all__ = ["Buffer", "Ref", "Alias", "Get", "Item", "Clone", "OpNode", "CallNode", "Guard", "GradBind", "Graph", "MISS",
           "DIVERGED"]


class _Miss:
    """Returned by a replay whose run-time checks failed (a `.grad` or a module's `.training` changed)."""

    def __repr__(self) -> str:
        return "MISS"


MISS = _Miss()


class _Diverged:
    """Returned by a replay whose `Guard` found another value than the capture's: what ran before it
    wrote nothing that outlives the call, so another plan (or eager) may run the call from the start."""

    def __repr__(self) -> str:
        return "DIVERGED"


DIVERGED = _Diverged()


@dataclass
class Buffer:
    """One buffer of the plan: `kind` is "input", "const" or "op"; `value` holds a constant's tensor."""

    index: int
    kind: str
    shape: tuple
    strides: tuple
    offset: int
    dtype: Any
    device: Any
    value: Tensor | None = None
    producer: int = -1  # the node that makes it (kind "op")
    # a constant the function made from Python data and then wrote in place: a copy of its value
    # before the writes, from which every replay makes it afresh (eager makes it anew at each call)
    pristine: Tensor | None = None


@dataclass(frozen=True)
class Ref:
    """A buffer, as the tensor object the plan holds for it."""

    index: int


@dataclass(frozen=True)
class Alias:
    """Another geometry over buffer `index`'s storage (offset relative to the buffer's own)."""

    index: int
    rel_offset: int
    shape: tuple
    strides: tuple
    dtype: Any


@dataclass(frozen=True, eq=False)
class Get:
    """A Python value the plan depends on, read at replay: `how` is "attr" (`getattr(holder, key)`),
    "item" (`holder.get(key)`, a globals or parameters dict) or "cell" (a closure cell's contents)."""

    how: str
    holder: Any
    key: Any = None


@dataclass(frozen=True)
class Item:
    """An output that is `.item()` of a buffer, read after the replay (`return loss.item()`)."""

    ref: Ref | Alias


@dataclass(frozen=True)
class Clone:
    """An output that is a constant of the plan: returned as a copy, so no replay hands out the plan's own tensor."""

    ref: Ref | Alias


@dataclass
class OpNode:
    op: Any
    kernel: Any
    args: tuple
    kwargs: dict
    outs: list  # buffer indices (None where the kernel returned a non-tensor)
    bumps: tuple  # references whose storage version the dispatcher bumps after the kernel
    tuple_out: bool = False
    # its meta step read values on the host at capture (a validation: index range, [0, 1]): kept by
    # dead-code elimination, so a replay raises eager's error for bad values even where nothing reads the result
    needs_check: bool = False

    def reads(self) -> tuple:
        return self.args, self.kwargs


@dataclass
class GradBind:
    """Set `leaf.grad` to `value` (a Ref/Alias, or None) before a CallNode or at the end."""

    leaf: Ref
    value: Any


@dataclass
class CallNode:
    obj: Any
    name: str
    args: tuple
    kwargs: dict
    binds: list = field(default_factory=list)
    # the optimizer's one-pass `step()` that the replay calls instead (NOTE [ Optimizer steps in a plan ])
    replay: Any = None

    def reads(self) -> tuple:
        return self.args, self.kwargs, self.binds


@dataclass
class Guard:
    """The value Python read from buffer `ref` at capture and went on with: `how` is "bool" (`bool(t)`),
    "int" (`int(t)`, `t.__index__()`), "item" (`t.item()` of a bool or integer tensor) or a comparison of
    `t.item()` with the number `other` ("lt", "le", "gt", "ge", "eq", "ne"); `expected` is what it gave."""

    ref: Any
    how: str
    expected: Any
    other: Any = None
    bumps: tuple = ()

    def reads(self) -> tuple:
        return (self.ref,)

    def label(self) -> str:
        what = {"bool": "bool(t)", "int": "int(t)", "item": "t.item()"}.get(self.how)
        if what is None:
            what = f"t.item() {_COMPARE[self.how]} {self.other!r}"
        return f"guard[{what} == {self.expected!r}]"


_COMPARE = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


def _reads(a, into: set) -> None:
    """Add to `into` the buffers that `a` (an argument tree, output tree or bindings) refers to."""
    if isinstance(a, (Ref, Alias)):
        into.add(a.index)
    elif isinstance(a, (Item, Clone)):
        into.add(a.ref.index)
    elif isinstance(a, GradBind):
        into.add(a.leaf.index)
        _reads(a.value, into)
    elif isinstance(a, dict):
        for k, v in a.items():
            _reads(k, into)
            _reads(v, into)
    elif isinstance(a, (list, tuple)):
        for x in a:
            _reads(x, into)


# view ops whose result lies at an offset relative to their operand's (not `as_strided`'s absolute one) in the
# operand's dtype: a replay makes them directly (NOTE [ Views at replay ])
_INLINE_VIEWS = frozenset({"view", "transpose", "permute", "expand", "narrow", "select", "slice", "squeeze",
                           "unsqueeze", "diagonal", "unfold"})


def _blank(t: Tensor) -> Tensor:
    """A new C-contiguous CPU tensor of `t`'s shape and dtype, uninitialized (its first use writes it all); a copy
    of `t` for a dtype numpy does not hold as itself."""
    r = Tensor._wrap(np.empty(t._shape, t._dtype.np))
    return r if r._dtype is t._dtype else copy.deepcopy(t)


def _leaves(a):
    """The leaves of an argument tree (lists, tuples and dict values)."""
    if isinstance(a, (list, tuple)):
        for x in a:
            yield from _leaves(x)
    elif isinstance(a, dict):
        for x in a.values():
            yield from _leaves(x)
    else:
        yield a


def _frozen(a):
    """A hashable key for an argument tree (TypeError where a value cannot be hashed); the type is
    part of it, so 1, 1.0 and True differ."""
    if isinstance(a, (Ref, Alias)):
        return a
    if isinstance(a, (list, tuple)):
        return (type(a), tuple(_frozen(x) for x in a))
    if isinstance(a, dict):
        return (dict, tuple((k, _frozen(v)) for k, v in a.items()))
    return (type(a), a)


def _subst(a, m: dict[int, int]):
    """`a` with every buffer reference renamed through `m`."""
    if isinstance(a, Ref):
        return Ref(m.get(a.index, a.index))
    if isinstance(a, Alias):
        return Alias(m.get(a.index, a.index), a.rel_offset, a.shape, a.strides, a.dtype)
    if isinstance(a, (Item, Clone)):
        return type(a)(_subst(a.ref, m))
    if isinstance(a, GradBind):
        return GradBind(_subst(a.leaf, m), _subst(a.value, m))
    if isinstance(a, list):
        return [_subst(x, m) for x in a]
    if isinstance(a, tuple):
        return tuple(_subst(x, m) for x in a)
    if isinstance(a, dict):
        return {k: _subst(v, m) for k, v in a.items()}
    return a


def _renamed(n, m: dict[int, int]):
    if isinstance(n, Guard):
        return Guard(_subst(n.ref, m), n.how, n.expected, n.other)
    if isinstance(n, OpNode):
        return OpNode(n.op, n.kernel, _subst(n.args, m), _subst(n.kwargs, m), n.outs, _subst(n.bumps, m),
                      n.tuple_out, n.needs_check)
    return CallNode(n.obj, n.name, _subst(n.args, m), _subst(n.kwargs, m), _subst(n.binds, m), n.replay)


def _hoister(g: dict, name: str, rel: int, shape: tuple, strides: tuple, dtype, by_storage: bool):
    """`hoist(base)`: the view of `base` a replay reuses (NOTE [ Views at replay ]), made and kept in `g[name]`
    as one tuple (`base`'s storage and offset, or `base` itself where it is such a view; the view), so that a
    replay reads a consistent triple even while another thread replaces it."""
    def hoist(base):
        v = Tensor._make(base._storage, base._offset + rel, shape, strides, dtype)
        g[name] = (base._storage, base._offset, v) if by_storage else (base, None, v)
        return v
    return hoist


@dataclass
class Backward:
    """A forward's captured backward (NOTE [ A captured backward ] in `ember.jit.backward`): its
    compiled plan `fn(*grads, *saved)`, the forward buffers it reads, the outputs that get the
    node, the tensors it returns gradients for, and the function that attaches it after a replay."""

    fn: Any
    saved: tuple
    outputs: tuple
    targets: tuple
    attach: Any
    graph: Graph


@dataclass
class Graph:
    buffers: list = field(default_factory=list)
    inputs: list = field(default_factory=list)  # buffer index of each flattened tensor input
    nodes: list = field(default_factory=list)
    output: Any = None  # the output tree, with Ref/Alias/Item/Clone leaves
    end_binds: list = field(default_factory=list)
    checks: list = field(default_factory=list)  # (kind, object, expected) tested before a replay
    # the outputs need a history (a forward whose backward runs outside the function): each node
    # calls its op through the dispatcher, so autograd records the graph, instead of the kernel
    through_autograd: bool = False
    backward: Backward | None = None  # the captured backward of a forward whose outputs need a history
    # outputs with a history a backward inside the function consumed: a replay gives them a spent node
    spent: list = field(default_factory=list)
    # inputs whose geometry no guard fixes (a captured backward's incoming gradients): no view of them is inlined
    unguarded: set = field(default_factory=set)
    # where the replay's intermediates lie (NOTE [ The replay's arena ] in ember.jit.arena); None: not planned
    arena: Any = None
    # (kernels, fused replay) a tiered `compile` left for the background thread, else None
    deferred: Any = None

    def eliminate_dead_code(self) -> int:
        """Drop op nodes whose results nothing reads and that write nothing; returns how many went.

        Kept whatever their results: ops that write (`out=`, `mutates`), ops that are not
        differentiable (the samplers, whose draws advance a generator), dropout (it draws too) and ops
        whose meta step validates values (`needs_check`: eager would raise for bad ones)."""
        used: set[int] = set()
        _reads(self.output, used)
        _reads(self.end_binds, used)
        _reads([c[1] for c in self.checks], used)
        kept = []
        for n in reversed(self.nodes):
            if (isinstance(n, OpNode) and not n.bumps and n.op.differentiable and not n.op.mutates
                    and not n.needs_check and "dropout" not in n.op.name
                    and not any(o in used for o in n.outs if o is not None)):
                continue
            _reads(n.reads(), used)
            kept.append(n)
        removed = len(self.nodes) - len(kept)
        self.nodes = kept[::-1]
        return removed

    def eliminate_common_subexpressions(self) -> int:
        """Drop an op node that repeats an earlier one (same op, same arguments, nothing written in
        between); later readers use the earlier results. Returns how many went.

        Only views and the op table's elementwise ops and reductions take part: they read their
        arguments and nothing else (batch norm's statistics or a sampler's generator would not
        survive a merge). Any write (`out=`, `mutates`, a call node) empties the table."""
        if self.backward is not None:
            return 0  # its plan reads forward buffers by number
        seen: dict = {}
        renames: dict[int, int] = {}
        kept = []
        for n in self.nodes:
            if renames:
                n = _renamed(n, renames)
            if isinstance(n, Guard):
                kept.append(n)
                continue
            if isinstance(n, CallNode) or n.bumps:
                seen.clear()
                kept.append(n)
                continue
            info = n.op.info
            if not (n.op.view or (info is not None and info.kind in ("elementwise", "reduction"))):
                kept.append(n)
                continue
            try:
                key = (id(n.op), _frozen(n.args), _frozen(n.kwargs))
                hash(key)
            except TypeError:
                kept.append(n)
                continue
            prev = seen.get(key)
            if prev is None:
                seen[key] = n
                kept.append(n)
                continue
            for new, old in zip(n.outs, prev.outs):
                if new is not None and old is not None:
                    renames[new] = old
        removed = len(self.nodes) - len(kept)
        if removed:
            self.nodes = kept
            self.output = _subst(self.output, renames)
            self.end_binds = _subst(self.end_binds, renames)
        return removed

    def plan_optimizer_steps(self) -> int:
        """Give each optimizer `step()` call its one-pass replay where the optimizer offers one; returns how many.

        NOTE [ Optimizer steps in a plan ]
        The capture records `opt.step()` as a call (its ops are not recorded), run at replay after binding
        `.grad` to this replay's gradient buffers. An optimizer of ember.optim offers `_replay_step()`
        (NOTE [ An optimizer's step in a compiled plan ] in `ember.optim.optimizer`, found by duck typing:
        ember.jit does not import ember.optim): one function that updates every parameter with the fused
        update kernel called directly on flat arrays, reading `lr`, `betas` ... from `param_groups` and the
        step counters from `state` at each call (an LR scheduler needs no new capture), with the same
        arithmetic as `step()` and so the same bits. It falls back to `step()` itself wherever that would
        decide otherwise (hooks, new state, another layout), so the replay stays eager's step. Without
        dispatch, meta steps and the Python of `step()`, Adam over NCF's ten parameters costs 0.3 ms a
        step instead of 0.9 ms. With `config.fuse` and `config.optimizer_reciprocal` (opt-in) the step leaves
        eager's bits where its kernel has a faster form (`_replay_step(exact=False)`: Adam's one division fewer)."""
        from ember.jit import config

        if not config.optimizer_pass:
            return 0
        exact = not (config.fuse and config.optimizer_reciprocal)
        count = 0
        for n in self.nodes:
            if isinstance(n, CallNode) and n.name == "step" and not n.args and not n.kwargs:
                make = getattr(n.obj, "_replay_step", None)
                n.replay = make(exact=exact) if callable(make) else None
                count += n.replay is not None
        return count

    def op_names(self) -> list[str]:
        return [n.op.name if isinstance(n, OpNode) else n.label() if isinstance(n, Guard) else
                f"{type(n.obj).__name__}.{n.name}{' (one pass)' if n.replay is not None else ''}" for n in self.nodes]

    def codegen(self) -> tuple[str, dict]:
        """The replay function's source and its globals: `replay(i0, i1, ...)` returns the output tree or MISS."""
        g: dict[str, Any] = {"_make": Tensor._make, "MISS": MISS, "DIVERGED": DIVERGED, "_fresh": copy.deepcopy,
                             "_blank": _blank}
        names: dict[int, str] = {}
        lines = [f"def replay({', '.join(f'i{k}' for k in range(len(self.inputs)))}):"]
        for b in self.buffers:
            if b.kind == "const":
                names[b.index] = f"c{b.index}"
                g[f"c{b.index}"] = b.value
        for k, idx in enumerate(self.inputs):
            names[idx] = f"i{k}"

        def obj(o, prefix: str) -> str:
            name = f"{prefix}{len(g)}"
            g[name] = o
            return name

        def expr(a) -> str:
            if isinstance(a, Ref):
                return names[a.index]
            if isinstance(a, Alias):
                base = names[a.index]
                return (f"_make({base}._storage, {base}._offset + {a.rel_offset}, {a.shape!r}, {a.strides!r}, "
                        f"{obj(a.dtype, 'd')})")
            if isinstance(a, tuple):
                return "(" + "".join(expr(x) + ", " for x in a) + ")"
            if isinstance(a, list):
                return "[" + ", ".join(expr(x) for x in a) + "]"
            if a is None or isinstance(a, (bool, int, str)):
                return repr(a)
            return obj(a, "a")

        blank = self._overwritten_first()
        for b in self.buffers:
            if b.kind == "const" and b.pristine is not None:
                make = "_blank" if b.index in blank else "_fresh"
                lines.append(f"    c{b.index} = {make}({obj(b.pristine, 'p')})")
        for kind, o, expected in self.checks:
            if isinstance(o, Get):
                h = obj(o.holder, "k")
                got = {"attr": f"getattr({h}, {o.key!r}, MISS)", "item": f"{h}.get({o.key!r}, MISS)",
                       "cell": f"{h}.cell_contents"}[o.how]
                if kind == "is":
                    cond = f"{got} is not {obj(expected, 'k')}"
                else:  # equal value and type (1, 1.0 and True differ)
                    cond = f"(_v := {got}).__class__ is not {obj(type(expected), 'k')} or _v != {obj(expected, 'k')}"
                lines.append(f"    if {cond}: return MISS")
                continue
            ref = expr(o) if isinstance(o, Ref) else obj(o, "k")
            if kind == "grad_none":
                cond = f"{ref}._grad is not None"
            elif kind == "grad_set":
                cond = f"{ref}._grad is None"
            elif kind == "grad_is":
                cond = f"{ref}._grad is not {obj(expected, 'k')}"
            elif kind == "requires_grad":
                cond = f"{ref}._requires_grad is not {expected}"
            else:  # a module's training flag
                cond = f"{ref}.training is not {expected}"
            lines.append(f"    if {cond}: return MISS")

        slots = self.arena.slots if self.arena is not None else {}
        if slots:  # NOTE [ The replay's arena ]: taken from the plan's pool, given back at every return after it
            g["_pool"], g["_arena"] = self.arena.pool, self.arena.new
        n_slots = len(slots)

        def slot(b: int, flat: bool) -> str | None:
            return None if b not in slots else f"_A[{slots[b][0] + (n_slots if flat else 0)}]"

        give_back = "_pool.append(_A); " if slots else ""
        fixed = self._fixed_geometry()
        inlined = self._inline_views(fixed, names)
        tested: set[int] = set()
        if inlined:  # every constant an op reads: a fixed buffer's geometry may follow any of them
            _reads([n.reads() for n in self.nodes if isinstance(n, OpNode)], tested)
        settled = set() if self.through_autograd else {
            id(n) for n in self.nodes if isinstance(n, OpNode) and n.op.check is not None and self._settled(n, fixed)}
        # a meta step skipped: the constants its op reads are tested, as an inlined view's
        _reads([n.reads() for n in self.nodes if id(n) in settled], tested)
        fused = self._fused_constants()
        for idx in sorted(i for i in tested | fused if (i in fixed or i in fused) and self.buffers[i].kind == "const"):
            c = self.buffers[idx]  # the geometry the inlined views assumed (NOTE [ Views at replay ])
            lines.append(f"    if c{idx}._shape != {c.shape!r} or c{idx}._strides != {c.strides!r} or "
                         f"c{idx}._dtype is not {obj(c.dtype, 'd')}: return MISS")

        # liveness: an op's result is dropped after the last node that reads it, so numpy's allocator
        # hands its memory to the next result while it is still in cache (eager frees the same way)
        keep: set[int] = set()
        _reads(self.output, keep)
        _reads(self.end_binds, keep)
        if self.backward is not None:
            _reads((self.backward.saved, self.backward.targets), keep)
        produced = {o for n in self.nodes if isinstance(n, OpNode) for o in n.outs if o is not None}
        last: dict[int, int] = {}
        for i, n in enumerate(self.nodes):
            r: set[int] = set()
            _reads(n.reads(), r)
            for b in r:
                last[b] = i
        # views that only kernels read (no output, no write, no eager call): one made at codegen serves each replay
        exposed = set(keep)
        _reads([c[1] for c in self.checks], exposed)
        for n in self.nodes:
            if isinstance(n, (CallNode, Guard)) or n.bumps or n.op.mutates:
                _reads(n.reads(), exposed)
        hoisted: dict[int, Tensor] = {}
        dead: dict[int, list[str]] = {}
        if slots:  # a free arena of the plan's, else a new one (another thread's replay may take the last one)
            lines += ["    try:", "        _A = _pool.pop()", "    except IndexError:", "        _A = _arena()"]
        for b, i in last.items():
            if b not in keep and b in produced and self.buffers[b].kind == "op":
                dead.setdefault(i, []).append(f"v{b}")
        whole = self._whole_runs(fixed, inlined, settled, slots, names)
        inside = -1  # the end of the run being skipped (NOTE [ The whole plan as one function ])
        for i, n in enumerate(self.nodes):
            if i < inside:
                continue
            if i in whole:
                r = whole[i]
                later: set[int] = set(keep)
                _reads([m.reads() for m in self.nodes[r.end:]], later)
                run = wholeplan.emit(r, self, names, later, obj, obj(Tensor._wrap, "w"), n_slots)
                if run is not None:
                    lines += run
                    gone = [v for j in range(r.start, r.end) for v in dead.get(j, ()) if int(v[1:]) in names]
                    if gone:
                        lines.append(f"    del {', '.join(gone)}")
                    inside = r.end
                    continue
            if n in inlined:  # NOTE [ Views at replay ]: a view of a buffer of fixed geometry is made directly
                src, res = self.buffers[n.args[0].index], self.buffers[n.outs[0]]
                base = names[src.index]
                names[res.index] = f"v{res.index}"
                rel = res.offset - src.offset
                make = f"_make({base}._storage, {base}._offset + {rel}, {res.shape!r}, {res.strides!r}, " \
                       f"{obj(res.dtype, 'd')})"
                parent = hoisted.get(src.index)
                const = src.kind == "const" and src.pristine is None and isinstance(src.value, Tensor)
                if res.index not in exposed and (parent is not None or const):  # NOTE [ Views at replay ]
                    name = f"h{len(g)}"
                    hoist = g[f"{name}_make"] = _hoister(g, name, rel, res.shape, res.strides, res.dtype,
                                                         by_storage=parent is None)
                    hoisted[res.index] = hoist(src.value if parent is None else parent)
                    same = (f"(_h := {name})[0] is {base}._storage and _h[1] == {base}._offset" if parent is None
                            else f"(_h := {name})[0] is {base}")
                    make = f"_h[2] if {same} else {name}_make({base})"
                lines.append(f"    v{res.index} = {make}  # {n.op.name}")
                if i in dead:
                    lines.append(f"    del {', '.join(dead[i])}")
                continue
            emit = getattr(n.kernel, "emit", None) if isinstance(n, OpNode) and not self.through_autograd else None
            if isinstance(n, Guard):
                v = expr(n.ref)
                got = {"bool": f"{v}.__bool__()", "int": f"{v}.__int__()", "item": f"{v}.item()"}.get(n.how)
                if got is None:
                    got = f"{v}.item() {_COMPARE[n.how]} {obj(n.other, 'k')}"
                want = obj(n.expected, "k")
                lines.append(f"    if (_v := {got}).__class__ is not {want}.__class__ or _v != {want}: "
                             f"{give_back}return DIVERGED  # {n.label()}")
            elif emit is not None and not n.kwargs and not n.bumps and n.op.check is None and all(
                    isinstance(a, Ref) for a in n.args) and all(o is not None and o not in names for o in n.outs):
                for o in n.outs:  # a fused group's launch, written into this function (NOTE [ The cost of a replay ])
                    names[o] = f"v{o}"
                lines.append(f"    # {n.op.name}")
                into = [None if o not in slots else (slot(o, False), slot(o, True)) for o in n.outs]
                lines += emit(f"L{i}_", [expr(a) for a in n.args], [names[o] for o in n.outs], g,
                              into if any(into) else None)
            elif isinstance(n, OpNode):
                call_args = [expr(a) for a in n.args] + [f"{k}={expr(v)}" for k, v in n.kwargs.items()]
                if n.op.check is not None and not self.through_autograd and id(n) not in settled:
                    lines.append(f"    {obj(n.op.check, 'm')}({', '.join(call_args)})")
                outs = []
                for o in n.outs:
                    if o is not None and o not in names:
                        names[o] = f"v{o}"
                        outs.append(names[o])
                    else:
                        outs.append("_")
                target = ", ".join(outs) + ("," if n.tuple_out and len(outs) == 1 else "")
                fn = obj(n.op if self.through_autograd else n.kernel, "f")
                kind = arena.plannable(self, n) if any(o in slots for o in n.outs) else None
                if kind == "into":  # the kernel's numpy call into its slot (NOTE [ The replay's arena ])
                    fn = obj(arena.into(self, n), "f")
                    call_args = [expr(a) for a in n.args] + [slot(n.outs[0], False)]
                elif kind == "nest":  # a fused group's rows x cols loop, into its slots
                    call_args.append(f"out=({''.join(f'{slot(o, True)}, ' for o in n.outs)})")
                lines.append(f"    {target} = {fn}({', '.join(call_args)})  # {n.op.name}")
                if not self.through_autograd:
                    for b in n.bumps:
                        lines.append(f"    {expr(b)}._storage.version += 1")
            else:
                for bind in n.binds:
                    lines.append(f"    {expr(bind.leaf)}._grad = {expr(bind.value)}")
                call_args = [expr(a) for a in n.args] + [f"{k}={expr(v)}" for k, v in n.kwargs.items()]
                if n.replay is not None:
                    lines.append(f"    {obj(n.replay, 'o')}()  # {type(n.obj).__name__}.{n.name}, one pass")
                else:
                    lines.append(f"    {obj(n.obj, 'o')}.{n.name}({', '.join(call_args)})")
            if i in dead:
                lines.append(f"    del {', '.join(dead[i])}")
        for bind in self.end_binds:
            lines.append(f"    {expr(bind.leaf)}._grad = {expr(bind.value)}")

        def out(o) -> str:
            if isinstance(o, (Ref, Alias)):
                return expr(o)
            if isinstance(o, (Item, Clone)):
                return f"{expr(o.ref)}.{type(o).__name__.lower()}()"
            if isinstance(o, dict):
                return "{" + ", ".join(f"{expr(k)}: {out(v)}" for k, v in o.items()) + "}"
            if isinstance(o, list):
                return "[" + ", ".join(out(x) for x in o) + "]"
            if isinstance(o, tuple):
                return "(" + "".join(out(x) + ", " for x in o) + ")"
            return expr(o)

        bw = self.backward
        if bw is not None:
            outs = ", ".join(expr(r) for r in bw.outputs)
            saved = ", ".join(expr(r) for r in bw.saved)
            targets = ", ".join(expr(r) for r in bw.targets)
            lines.append(f"    {obj(bw.attach, 'b')}({obj(bw.fn, 'b')}, ({outs},), ({saved}{',' if saved else ''}), "
                         f"({targets},))")
        if self.spent:
            lines.append(f"    {obj(spend, 's')}(({''.join(expr(r) + ', ' for r in self.spent)}))")
        if slots:
            lines.append("    _pool.append(_A)")
        lines.append(f"    return {out(self.output)}")
        return "\n".join(lines) + "\n", g

    def _whole_runs(self, fixed, inlined, settled, slots, names) -> dict:
        """The runs of nodes emitted as one Numba function each, by first node (`config.whole_plan`)."""
        from ember.jit import config

        if not config.whole_plan or self.through_autograd:
            return {}
        return {r.start: r for r in wholeplan.runs(self, fixed, inlined, settled, slots, names)}

    def _overwritten_first(self) -> set[int]:
        """The constants made afresh at each replay (`pristine`) whose first use overwrites all of them
        (`fill_`, `zero_` of the whole buffer: autograd's `zeros` under a slice's backward): a replay then
        gives each a new uninitialized tensor instead of a copy of its pristine value (GPT's in_proj gradient
        pieces: 30-45 us a copy, 12 a step)."""
        first: dict[int, Any] = {}
        seen: set[int] = set()
        # the checks that a new tensor passes as the pristine copy does (no grad, not requiring one) are no use
        _reads([o for kind, o, want in self.checks
                if not (kind == "grad_none" or kind == "requires_grad" and want is False)], seen)
        for n in self.nodes:
            r: set[int] = set()
            _reads(n.reads(), r)
            for b in r - seen:
                first[b] = n
            seen |= r
        out = set()
        for b in self.buffers:
            n = first.get(b.index)
            t = b.pristine
            if (t is not None and isinstance(n, OpNode) and n.op.name in ("fill_", "zero_") and n.args
                    and n.args[0] == Ref(b.index) and t._storage.device.type == "cpu" and t._offset == 0
                    and t.is_contiguous() and not t._requires_grad):
                out.add(b.index)
        return out

    def _fixed_geometry(self) -> set[int]:
        """The buffers whose shape and strides (and offset relative to their storage's at capture) every replay
        repeats: the inputs (the guards fix their shape and strides), the constants (tested at the top of the
        replay: `.data =` between calls re-points one, which then captures again), and the results of ops
        reading only such buffers and Python values (a kernel's result geometry follows its operands').
        A buffer that a recorded op writes or an eager call receives is left out: it might be re-pointed
        (`t_`, `resize_`, an optimizer's Python). Where a view is inlined, the replay tests the shape, strides
        and dtype of every constant an op reads, since a fixed result's geometry may follow any of them.

        NOTE [ Views at replay ]
        A view op (`view`, `transpose`, `narrow` ... of `_INLINE_VIEWS`, whose result is its operand's
        storage at an offset relative to the operand's, in its dtype) of such a buffer is emitted as
        `Tensor._make` of the geometry recorded at capture, without its kernel and meta step: the kernel would
        compute the same shape and strides from the same operand geometry, and its meta step passed at
        capture. A GPT step has about 250 views (about 3 us each through their kernels). A view of a constant
        (or of such a view) that only kernels read, not an output, a write or an eager call, is made once at
        codegen and reused while the constant's storage and offset are the ones it was made over (a test per
        replay; a re-pointed constant gets its view made again, and kept in place of the old one, whose
        storage it no longer holds); so is its cached numpy view, which a fresh view would build again at
        its first kernel."""
        fixed = (set(self.inputs) - self.unguarded) | {
            b.index for b in self.buffers if b.kind == "const" and b.pristine is None and isinstance(b.value, Tensor)}
        for n in self.nodes:
            if isinstance(n, CallNode):
                _reads((n.args, n.kwargs), touched := set())
                fixed -= touched
            elif isinstance(n, OpNode) and (n.bumps or n.op.mutates):
                _reads((n.args, n.kwargs, n.bumps), touched := set())
                fixed -= touched
        for n in self.nodes:
            if not isinstance(n, OpNode):
                continue
            r: set[int] = set()
            _reads(n.reads(), r)
            if all(b in fixed for b in r) and not any(isinstance(a, Tensor) for a in _leaves((n.args, n.kwargs))):
                fixed.update(o for o in n.outs if o is not None and not any(
                    isinstance(x, (Ref, Alias)) and x.index == o for x in _leaves(n.bumps)))
        return fixed

    def _settled(self, n, fixed: set[int]) -> bool:
        """Whether op node `n`'s meta step passes at every replay as it did at capture, so the replay skips it:
        it reads no values (`needs_check`: an index range, BCE's [0, 1]) and every buffer it reads has the
        geometry the capture saw (`_fixed_geometry`: shapes, strides, dtypes and devices the guards and the
        constants' tests fix), its other arguments being the Python values recorded. NCF's nine `mm` checks
        (about 1 us each) go."""
        if n.needs_check or any(isinstance(a, Tensor) for a in _leaves((n.args, n.kwargs))):
            return False
        r: set[int] = set()
        _reads(n.reads(), r)
        return all(b in fixed for b in r)

    def _fused_constants(self) -> set[int]:
        """The constants from which a fused kernel's operands come (read by it, or by the ops that make them).

        A fused kernel was generated for the dtype and shape its operands had at capture, and reads that many
        values of each. `.data =` between calls re-points a constant (another dtype or shape), so the replay
        tests the geometry of each of these, as of an inlined view's (NOTE [ Views at replay ]): a change
        captures again instead of running the kernel on what it was not made for."""
        from ember.jit.fusion import FusedOp

        producer = {o: n for n in self.nodes if isinstance(n, OpNode) for o in n.outs if o is not None}
        todo: set[int] = set()
        _reads([n.args for n in self.nodes if isinstance(n, OpNode) and isinstance(n.op, FusedOp)], todo)
        seen: set[int] = set()
        while todo:
            b = todo.pop()
            seen.add(b)
            if b in producer:
                r: set[int] = set()
                _reads(producer[b].reads(), r)
                todo |= r - seen
        return {b for b in seen if self.buffers[b].kind == "const" and isinstance(self.buffers[b].value, Tensor)}

    def _inline_views(self, fixed: set[int], names: dict) -> list:
        """The view nodes a replay makes with `Tensor._make` (NOTE [ Views at replay ])."""
        if self.through_autograd:
            return []
        return [n for n in self.nodes
                if isinstance(n, OpNode) and n.op.name in _INLINE_VIEWS and n.op.view and not n.bumps
                and not n.tuple_out and len(n.outs) == 1 and n.outs[0] is not None and n.outs[0] not in names
                and n.args and isinstance(n.args[0], Ref) and n.args[0].index in fixed
                and self.buffers[n.outs[0]].dtype is self.buffers[n.args[0].index].dtype]

    def compile(self, tiered: bool = False):
        """The replay function (Python source made by `codegen`, compiled once), after fusing its
        elementwise groups where `config.fuse` is set. `tiered` (and `config.background_compile`): a plan whose
        fused kernels must still compile returns its unfused replay and leaves `self.deferred` = (kernels to
        compile, fused replay) for `background.start` (NOTE [ Fused kernels compiled in the background ])."""
        from ember.jit import background, config, fusion, memory

        if config.retain_memory:
            memory.retain_freed_memory()
        self.plan_optimizer_steps()
        self.deferred = None
        plain = copy.copy(self) if tiered and config.fuse and config.background_compile and not config.whole_plan \
            else None
        if config.fuse:
            fusion.fuse(self)
        fused = self._replay()
        todo = background.kernels_to_compile(self) if plain is not None else None
        if not todo:
            return fused
        self.deferred = (todo, fused)
        return plain._replay()

    def _replay(self):
        """The replay function of this graph as it stands (its arena planned first)."""
        from ember.jit import config

        self.arena = arena.plan(self) if config.plan_memory else None
        src, g = self.codegen()
        exec(compile(src, "<ember.jit plan>", "exec"), g)
        fn = g["replay"]
        fn.source = src
        return fn
