"""The autograd node of a replayed forward whose backward was captured too.

NOTE [ A captured backward ]
When the outputs of a captured call need a history (grad mode on, no backward inside the
function: `out = compiled_model(x)`, then `loss.backward()` outside), the capture asks the
engine once more, right after the function returned, for the gradients of those outputs with
respect to every input and parameter that requires grad (`autograd.grad(..., retain_graph=True)`,
with placeholder output gradients), and records the ops it runs into a second plan. A replay then
runs the forward's kernels without autograd and gives its outputs one `CompiledBackward` node:
its edges lead to the inputs' and parameters' own nodes (their `AccumulateGrad`), and its `apply`
runs the backward plan on the incoming gradients and the forward buffers that plan reads. The
engine runs that one node instead of the recorded graph; hooks on the parameters still run.
A saved forward buffer written in place between the forward and the backward is not detected
(eager raises "modified by an inplace operation"); double backward through the node is refused.
No backward is captured where asking the engine would run a user's hook once more (`reaches_hooks`)
or where one input's history reaches another's (`histories_meet`: `f(x, x * 3)`, whose gradient
for `x` `autograd.grad` gives through `x * 3` too, which the node's edge to `x * 3` would add
again); the forward then replays through autograd.
"""

from __future__ import annotations

from ember.autograd.graph import FREED, Node, edge_of, meta
from ember.autograd.grad_mode import _enabled
from ember.core.creation import zeros

__all__ = ["CompiledBackward", "SpentBackward", "attach", "spend", "reaches_hooks", "histories_meet"]


class CompiledBackward(Node):
    """One node for a replayed forward: the captured backward plan over the forward's buffers."""

    __slots__ = ("_fn", "_saved", "_out_meta")

    def __init__(self, fn, outputs: tuple, saved: tuple, targets: tuple) -> None:
        super().__init__()
        self._fn = fn
        self._saved = saved
        self._out_meta = tuple((o._shape, o._dtype, o._storage.device) for o in outputs)
        self.next_functions = tuple(edge_of(t) if t._requires_grad else (None, 0) for t in targets)
        self._n_out = len(outputs)

    def apply(self, grads: list) -> list:
        if self._saved is None:
            raise RuntimeError(FREED)
        if _enabled.get():
            raise RuntimeError("ember.jit: a compiled forward's backward cannot record a graph (create_graph=True); "
                               "call the function uncompiled for double backward")
        gs = [g if g is not None else zeros(shape, dtype=dt, device=dev)
              for g, (shape, dt, dev) in zip(grads, self._out_meta)]
        return list(self._fn(*gs, *self._saved))

    def release(self) -> None:
        self._saved = None


def attach(fn, outputs: tuple, saved: tuple, targets: tuple) -> None:
    """Give the replay's `outputs` a `CompiledBackward` node (called at the end of a forward replay)."""
    node = CompiledBackward(fn, outputs, saved, targets)
    for i, o in enumerate(outputs):
        o._grad_fn = node
        o._requires_grad = True
        if i:
            meta(o).output_nr = i


class SpentBackward(Node):
    """The node of a replayed step's output whose backward already ran inside the step: it requires
    grad, as eager's output does, and a second backward raises eager's error."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__()
        self.next_functions = ()

    def apply(self, grads: list) -> list:
        raise RuntimeError(FREED)


def spend(outputs: tuple) -> None:
    """Give a replay's `outputs` a `SpentBackward` node (their history was consumed inside the step)."""
    node = SpentBackward()
    for i, o in enumerate(outputs):
        o._grad_fn = node
        o._requires_grad = True
        if i:
            meta(o).output_nr = i


def reaches_hooks(outs: list) -> bool:
    """Whether a backward from `outs` reaches a node or a leaf with hooks (which `autograd.grad` would run)."""
    seen: set[int] = set()
    todo = [t._grad_fn for t in outs if t._grad_fn is not None]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node._hooked:
            return True
        variable = getattr(node, "_variable", None)
        leaf = variable() if callable(variable) else None
        m = getattr(leaf, "_ag", None)
        if m is not None and (m.hooks or m.post_hooks):
            return True
        todo += [n for n, _nr in node.next_functions if n is not None]
    return False


def histories_meet(targets: list) -> bool:
    """Whether one target's history reaches another (`f(x, x * 3)`): `autograd.grad` would give `x` its gradient
    through `x * 3` too, and the replay's node, leading to both, would count that path twice."""
    nonleaf = [t._grad_fn for t in targets if t._grad_fn is not None]
    if not nonleaf:
        return False
    ids = {id(t) for t in targets}
    nodes = {id(n) for n in nonleaf}
    seen: set[int] = set()
    todo = [c for n in nonleaf for c, _nr in n.next_functions if c is not None]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        variable = getattr(node, "_variable", None)
        if id(node) in nodes or (callable(variable) and id(variable()) in ids):
            return True
        todo += [c for c, _nr in node.next_functions if c is not None]
    return False
