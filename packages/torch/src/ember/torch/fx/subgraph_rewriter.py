"""`torch.fx.subgraph_rewriter`: `replace_pattern`, which finds each occurrence of a pattern's graph in a
GraphModule's and puts the replacement's graph in its place."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from ember.nn.modules.module import Module
from ember.torch.fx._symbolic_trace import symbolic_trace
from ember.torch.fx.graph import Graph
from ember.torch.fx.graph_module import GraphModule
from ember.torch.fx.node import Node

__all__ = ["Match", "replace_pattern"]


class Match(NamedTuple):
    """One occurrence: `anchor`, the pattern's output node; `nodes_map`, pattern node -> matched node."""

    anchor: Node
    nodes_map: dict[Node, Node]


def _graph_of(fn: Callable | GraphModule) -> GraphModule:
    return fn if isinstance(fn, GraphModule) else symbolic_trace(fn)


class _Matcher:
    """Matches a pattern graph backwards from its output's node, one graph node at a time."""

    def __init__(self, pattern: Graph) -> None:
        self.pattern = pattern
        outputs = [n for n in pattern.nodes if n.op == "output"]
        anchor = outputs[0].args[0]
        if not isinstance(anchor, Node):
            raise NotImplementedError("replace_pattern: ember matches patterns returning one value")
        self.anchor = anchor

    def match(self, gn: Node) -> dict[Node, Node] | None:
        nodes_map: dict[Node, Node] = {}
        if not self._node(self.anchor, gn, nodes_map):
            return None
        inner = {m for p, m in nodes_map.items() if p.op != "placeholder"}
        for p, m in nodes_map.items():  # an inner value read outside the match cannot go
            if p.op != "placeholder" and p is not self.anchor and any(u not in inner for u in m.users):
                return None
        return nodes_map

    def _node(self, pn: Node, gn: Node, nodes_map: dict) -> bool:
        if pn in nodes_map:
            return nodes_map[pn] is gn
        if pn.op == "placeholder":
            nodes_map[pn] = gn
            return True
        if pn.op != gn.op or len(pn.args) != len(gn.args) or set(pn.kwargs) != set(gn.kwargs):
            return False
        if pn.op != "get_attr" and pn.target != gn.target:
            return False
        nodes_map[pn] = gn
        saved = dict(nodes_map)
        ok = all(self._arg(a, b, nodes_map) for a, b in zip(pn.args, gn.args)) and all(
            self._arg(pn.kwargs[k], gn.kwargs[k], nodes_map) for k in pn.kwargs)
        if not ok:
            nodes_map.clear()
            nodes_map.update(saved)
            del nodes_map[pn]
        return ok

    def _arg(self, pa, ga, nodes_map: dict) -> bool:
        if isinstance(pa, Node):
            return isinstance(ga, Node) and self._node(pa, ga, nodes_map)
        if isinstance(pa, (list, tuple)):
            return (isinstance(ga, (list, tuple)) and len(pa) == len(ga)
                    and all(self._arg(a, b, nodes_map) for a, b in zip(pa, ga)))
        return type(pa) is type(ga) and pa == ga


def replace_pattern(gm: GraphModule, pattern: Callable | GraphModule,
                    replacement: Callable | GraphModule) -> list[Match]:
    """Replace every (non-overlapping) occurrence of `pattern`'s graph in `gm` by `replacement`'s, the
    pattern's inputs standing for whatever the occurrence reads; `gm` is recompiled.

    Args:
        gm: the GraphModule rewritten in place.
        pattern, replacement: functions (traced) or GraphModules with the same inputs.

    Returns:
        list[Match]: the occurrences replaced, in graph order.
    """
    pattern_gm, replacement_gm = _graph_of(pattern), _graph_of(replacement)
    matcher = _Matcher(pattern_gm.graph)
    p_inputs = [n for n in pattern_gm.graph.nodes if n.op == "placeholder"]
    r_inputs = [n for n in replacement_gm.graph.nodes if n.op == "placeholder"]
    matches: list[Match] = []
    taken: set[Node] = set()
    for node in list(gm.graph.nodes):
        nodes_map = matcher.match(node)
        if nodes_map is None:
            continue
        inner = [m for p, m in nodes_map.items() if p.op != "placeholder"]
        if any(m in taken for m in inner):
            continue
        taken.update(inner)
        matches.append(Match(anchor=matcher.anchor, nodes_map=nodes_map))
    graph = gm.graph
    for m in matches:
        _install_attrs(gm, replacement_gm)
        target = m.nodes_map[m.anchor]
        val_map = {r: m.nodes_map[p] for r, p in zip(r_inputs, p_inputs)}
        # before the first node reading the occurrence's value (else just after it), as PyTorch's
        users = [n for n in graph.nodes if n in target.users]
        with graph.inserting_before(users[0] if users else target.next):
            out = graph.graph_copy(replacement_gm.graph, val_map)
        target.replace_all_uses_with(out)
        for node in reversed(list(graph.nodes)):  # the matched nodes, users first
            if node in m.nodes_map.values() and not node.users and node.op != "placeholder" and \
                    any(p.op != "placeholder" and v is node for p, v in m.nodes_map.items()):
                graph.erase_node(node)
    gm.recompile()
    return matches


def _install_attrs(gm: GraphModule, replacement: GraphModule) -> None:
    """The submodules and attributes the replacement's graph reads, installed on `gm` where missing."""
    for node in replacement.graph.nodes:
        if node.op in ("call_module", "get_attr"):
            try:
                gm.get_submodule(node.target) if node.op == "call_module" else _get(gm, node.target)
                continue
            except AttributeError:
                pass
            value = _get(replacement, node.target)
            if isinstance(value, Module):
                gm.add_submodule(node.target, value)
            else:
                *path, name = node.target.split(".")
                owner = gm.get_submodule(".".join(path)) if path else gm
                setattr(owner, name, value)


def _get(mod: Module, target: str):
    for atom in target.split("."):
        mod = getattr(mod, atom)
    return mod
