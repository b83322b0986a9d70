"""`torch.fx.interpreter`: `Interpreter`, which runs a GraphModule's graph node by node through one
overridable method per op, and `Transformer`, an Interpreter that records a new graph instead."""

from __future__ import annotations

from typing import Any

from ember.nn.modules.module import Module
from ember.torch.fx._symbolic_trace import Tracer
from ember.torch.fx.graph import Graph
from ember.torch.fx.graph_module import GraphModule
from ember.torch.fx.node import Node, map_aggregate, map_arg
from ember.torch.fx.proxy import Proxy

__all__ = ["Interpreter", "Transformer"]


class Interpreter:
    """Runs `module`'s graph one node at a time: `run(*args)` calls `run_node(n)` for each node, which calls
    the method named for its op (`placeholder`, `get_attr`, `call_function`, `call_method`, `call_module`,
    `output`); override them to change what a node does.

    Args:
        module: the GraphModule (or a module with `graph` given).
        garbage_collect_values: drop each value after its last use.
        graph: the graph to run, default `module.graph`.
    """

    def __init__(self, module: Module, garbage_collect_values: bool = True, graph: Graph | None = None) -> None:
        self.module = module
        self.submodules = dict(module.named_modules())
        self.graph = graph if graph is not None else module.graph
        self.env: dict[Node, Any] = {}
        self.name = "Interpreter"
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        self.user_to_last_uses: dict[Node, list[Node]] = {}
        if garbage_collect_values:
            seen: set[Node] = set()
            for node in reversed(self.graph.nodes):
                for n in node._input_nodes:
                    if n not in seen:
                        seen.add(n)
                        self.user_to_last_uses.setdefault(node, []).append(n)

    def run(self, *args, initial_env: dict[Node, Any] | None = None, enable_io_processing: bool = True) -> Any:
        """Run the graph on `args` (positional, in placeholder order); its output.

        Args:
            initial_env: values of nodes given in advance (they are not run).
        """
        self.env = initial_env if initial_env is not None else {}
        self.args_iter = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue
            try:
                self.env[node] = self.run_node(node)
            except Exception as e:
                if self.extra_traceback:
                    msg = f"While executing {node.format_node()}"
                    msg = f"{e.args[0]}\n\n{msg}" if e.args else msg
                    msg += f"\nOriginal traceback:\n{node.stack_trace}"
                    msg += ("\nUse tlparse to see full graph. "
                            "(https://github.com/pytorch/tlparse?tab=readme-ov-file#tlparse-parse-structured-pt2-logs)")
                    e.args = (msg, *e.args[1:])
                    if isinstance(e, KeyError):
                        raise RuntimeError(*e.args) from e
                raise
            if self.garbage_collect_values:
                for to_delete in self.user_to_last_uses.get(node, []):
                    del self.env[to_delete]
            if node.op == "output":
                return self.env[node]
        return None

    def boxed_run(self, args_list: list) -> Any:
        """`run` on the items of `args_list`, which is emptied first."""
        args_iter = iter(args_list)
        env = {}
        for n in self.graph.nodes:
            if n.op == "placeholder":
                env[n] = next(args_iter)
        args_list.clear()
        return self.run(initial_env=env)

    def run_node(self, n: Node) -> Any:
        """Run one node: its arguments' values fetched, then the method of its op."""
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        return getattr(self, n.op)(n.target, args, kwargs)

    # --- the ops ---
    def placeholder(self, target: str, args: tuple, kwargs: dict) -> Any:
        """The next positional argument of `run` (all remaining ones for `*args`), or the default."""
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration as si:
            if len(args) > 0:
                return args[0]
            raise RuntimeError(f"Expected positional argument for parameter {target}, but one was not passed "
                               "in!") from si

    def get_attr(self, target: str, args: tuple, kwargs: dict) -> Any:
        """The module's attribute at `target`."""
        return self.fetch_attr(target)

    def call_function(self, target, args: tuple, kwargs: dict) -> Any:
        """`target(*args, **kwargs)`."""
        return target(*args, **kwargs)

    def call_method(self, target: str, args: tuple, kwargs: dict) -> Any:
        """`args[0].target(*args[1:], **kwargs)`."""
        self_obj, *args_tail = args
        return getattr(self_obj, target)(*args_tail, **kwargs)

    def call_module(self, target: str, args: tuple, kwargs: dict) -> Any:
        """The submodule at `target`, called."""
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target: str, args: tuple, kwargs: dict) -> Any:
        """The graph's result."""
        return args[0]

    # --- helpers ---
    def fetch_attr(self, target: str) -> Any:
        """The attribute of the module at dotted `target`.

        Raises:
            RuntimeError: there is none.
        """
        atoms = target.split(".")
        obj = self.module
        for i, atom in enumerate(atoms):
            if not hasattr(obj, atom):
                raise RuntimeError(f"Node referenced nonexistent target {'.'.join(atoms[:i + 1])}")
            obj = getattr(obj, atom)
        return obj

    def fetch_args_kwargs_from_env(self, n: Node) -> tuple[tuple, dict]:
        """`n`'s args and kwargs with each node replaced by its value."""
        return self.map_nodes_to_values(n.args, n), self.map_nodes_to_values(n.kwargs, n)

    def map_nodes_to_values(self, args, n: Node):
        """`args` with each node replaced by its value in the environment.

        Raises:
            RuntimeError: a node without a value (the graph is not in order).
        """
        def load_arg(n_arg: Node) -> Any:
            if n_arg not in self.env:
                raise RuntimeError(f"Node {n} referenced nonexistent value {n_arg}! Run Graph.lint() to diagnose "
                                   "such issues")
            return self.env[n_arg]

        return _plain(map_arg(args, load_arg))


def _plain(a):
    """Immutable containers as plain lists and dicts (what the functions called expect)."""
    if isinstance(a, list):
        return [_plain(x) for x in a]
    if isinstance(a, tuple) and not hasattr(a, "_fields"):
        return tuple(_plain(x) for x in a)
    if isinstance(a, dict):
        return {k: _plain(v) for k, v in a.items()}
    return a


class _TransformerTracer(Tracer):
    """The tracer a Transformer records with: every module is a leaf."""

    def __init__(self, graph: Graph) -> None:
        super().__init__()
        self.graph = graph
        self.tensor_attrs: dict[int, str] = {}

    def is_leaf_module(self, _m: Module, _name: str) -> bool:
        return True


class Transformer(Interpreter):
    """An Interpreter whose run records a new graph: each op's method returns a Proxy, so overriding
    `call_function` and the others rewrites the graph; `transform()` gives the new GraphModule."""

    def __init__(self, module: GraphModule) -> None:
        super().__init__(module)
        self.new_graph = Graph()
        self.tracer = _TransformerTracer(self.new_graph)
        self.tracer.root = module

    def placeholder(self, target: str, args: tuple, kwargs: dict) -> Proxy:
        """A placeholder of the new graph (with the old one's default)."""
        default = next(iter(args)) if args else Graph.placeholder.__defaults__[-1]
        return Proxy(self.new_graph.placeholder(target, default_value=default), self.tracer)

    def get_attr(self, target: str, args: tuple, kwargs: dict) -> Proxy:
        """A get_attr of the new graph."""
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_module(self, target: str, args: tuple, kwargs: dict) -> Any:
        """A call_module of the new graph."""
        submod = self.fetch_attr(target)
        return self.tracer.call_module(submod, submod.forward, args, kwargs)

    def call_function(self, target, args: tuple, kwargs: dict) -> Any:
        """A call_function of the new graph."""
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def transform(self) -> GraphModule:
        """Run the transformation; the GraphModule of the new graph over the same module."""
        from ember.core import overrides

        # ops called on proxies record (the namespaces stay unpatched: overrides compare `target is torch.relu`)
        with overrides.checking():
            result = super().run()
        if result is not None:
            self.new_graph.output(map_aggregate(result, lambda a: a.node if isinstance(a, Proxy) else a))
        return GraphModule(self.module, self.new_graph)
