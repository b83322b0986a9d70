"""`torch.fx.graph`: `Graph`, a doubly linked list of `Node`s in execution order, with the methods that
build, edit, check, print and compile it to Python source."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator
from typing import Any

from ember.torch.fx._codegen import Namespace, PythonCode, python_code
from ember.torch.fx.node import Node, map_arg

__all__ = ["Graph", "PythonCode"]

_snake_case_sub = re.compile(r"(?<=[a-z])([A-Z])")


def _snake_case(s: str) -> str:
    return _snake_case_sub.sub(r"_\1", s).lower()


class _node_list:
    """The nodes of a graph, a live view in order (or reversed)."""

    def __init__(self, graph: Graph, direction: str = "_next") -> None:
        self.graph = graph
        self.direction = direction

    def __len__(self) -> int:
        return self.graph._len

    def __iter__(self) -> Iterator[Node]:
        # the next node is read after the loop body ran, as PyTorch's: a node it inserted after `cur` is
        # visited, and an erased `cur` still points into the list
        root = self.graph._root
        cur = getattr(root, self.direction)
        while cur is not root:
            if not cur._erased:
                yield cur
            cur = getattr(cur, self.direction)

    def __reversed__(self) -> Iterator[Node]:
        return iter(_node_list(self.graph, "_prev" if self.direction == "_next" else "_next"))


class _InsertPoint:
    def __init__(self, graph: Graph, new_insert: Callable) -> None:
        self.graph = graph
        self.orig_insert, graph._insert = graph._insert, new_insert

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        self.graph._insert = self.orig_insert


class Graph:
    """The IR of torch.fx: nodes in execution order (see `ember.torch.fx.node` for the ops).

    Example:
        >>> import operator
        >>> g = Graph()
        >>> x = g.placeholder("x")
        >>> g.output(g.call_function(operator.add, (x, 1)))
        output
        >>> [n.op for n in g.nodes]
        ['placeholder', 'call_function', 'output']
    """

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None) -> None:
        self._root = Node(self, "", "root", "", (), {})
        self._insert = self._root.prepend
        self._len = 0
        self._graph_namespace = Namespace()
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras

    @property
    def owning_module(self):
        """The GraphModule this graph belongs to (None for a free graph)."""
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod) -> None:
        self._owning_module = mod

    @property
    def nodes(self) -> _node_list:
        """The nodes in execution order (a live view: `len`, iteration, `reversed`)."""
        return _node_list(self)

    def find_nodes(self, *, op: str, target=None, sort: bool = True) -> list[Node]:
        """The nodes with op `op` (and target `target`), in graph order."""
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # --- building ---
    def create_node(self, op: str, target, args: tuple | None = None, kwargs: dict | None = None,
                    name: str | None = None, type_expr: Any | None = None) -> Node:
        """A new node at the insertion point (the end of the graph unless inside `inserting_before/after`)."""
        args = () if args is None else args
        kwargs = {} if kwargs is None else kwargs
        if not isinstance(args, tuple):
            raise AssertionError("args must be a tuple")
        if not isinstance(kwargs, dict):
            raise AssertionError("kwargs must be a dict")
        candidate = name if name is not None else self._target_to_str(target)
        name = self._graph_namespace.create_name(candidate, None)
        n = Node(self, name, op, target, args, kwargs, type_expr)
        self._insert(n)
        self._len += 1
        return n

    def _target_to_str(self, target) -> str:
        if callable(target):
            op = target.__name__
        else:
            op = target
            if op.startswith("__") and op.endswith("__"):
                op = op[2:-2]
        return _snake_case(op)

    def placeholder(self, name: str, type_expr: Any | None = None,
                    default_value: Any = inspect.Signature.empty) -> Node:
        """An input of the function named `name` (with `default_value`, an optional one)."""
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name: str, type_expr: Any | None = None) -> Node:
        """A read of the module's attribute at `qualified_name` (`layer1.weight`)."""
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name: str, args: tuple | None = None, kwargs: dict | None = None,
                    type_expr: Any | None = None) -> Node:
        """A call of the submodule at `module_name`."""
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name: str, args: tuple | None = None, kwargs: dict | None = None,
                    type_expr: Any | None = None) -> Node:
        """A call of method `method_name` of `args[0]`."""
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function: Callable, args: tuple | None = None, kwargs: dict | None = None,
                      type_expr: Any | None = None) -> Node:
        """A call of the free function `the_function`."""
        return self.create_node("call_function", the_function, args, kwargs, type_expr=type_expr)

    def output(self, result, type_expr: Any | None = None) -> Node:
        """The function's return value."""
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def inserting_before(self, n: Node | None = None) -> _InsertPoint:
        """`with g.inserting_before(n):` new nodes go just before `n` (None: the start of the graph)."""
        if n is None:
            return self.inserting_after(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert before is not in graph.")
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n: Node | None = None) -> _InsertPoint:
        """`with g.inserting_after(n):` new nodes go just after `n` (None: the end of the graph)."""
        if n is None:
            return self.inserting_before(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert after is not in graph.")
        return _InsertPoint(self, n.append)

    # --- editing ---
    def erase_node(self, to_erase: Node) -> None:
        """Remove a node that nothing reads any more.

        Raises:
            RuntimeError: the node still has users.
        """
        if len(to_erase.users) > 0:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} "
                               f"users in the graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            return
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        to_erase._update_args_kwargs((), {})

    def node_copy(self, node: Node, arg_transform: Callable[[Node], Any] = lambda x: x) -> Node:
        """A copy of `node` (of any graph) here, its input nodes mapped by `arg_transform`."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        result = self.create_node(node.op, node.target, tuple(args), dict(kwargs), node.name, node.type)
        result.meta = dict(node.meta)
        return result

    def graph_copy(self, g: Graph, val_map: dict, return_output_node: bool = False):
        """Copy every node of `g` but its output here (`val_map`: g's nodes -> the copies, filled in; it may
        map placeholders in advance); returns the value `g` outputs, mapped."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                rv = map_arg(node.args[0], lambda n: val_map[n])
                return (rv, node) if return_output_node else rv
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def eliminate_dead_code(self, is_impure_node: Callable[[Node], bool] | None = None) -> bool:
        """Remove the nodes nothing reads (but inputs, the output and side-effectful calls); whether any went."""
        self.lint()
        changed = False
        for node in reversed(self.nodes):
            impure = is_impure_node(node) if is_impure_node is not None else node.is_impure()
            if not impure and len(node.users) == 0:
                self.erase_node(node)
                changed = True
        return changed

    def lint(self) -> None:
        """Check the graph's invariants: ops and targets well-formed, names unique, each node's inputs defined
        before it and in this graph, `users` consistent, get_attr/call_module targets present in the module.

        Raises:
            RuntimeError: an invariant does not hold.
        """
        seen_names: set[str] = set()
        seen: set[Node] = set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            if node.name in seen_names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen_names.add(node.name)
            for arg in node._input_nodes:
                if arg.graph is not self:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' does not belong to this Graph, "
                                       "but was used as an argument! If you are copying nodes from another graph, "
                                       "make sure to use ``arg_transform`` on node_copy() to remap values\n"
                                       f"{self}")
                if arg not in seen:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' was used before it has been defined! "
                                       "Please check that Nodes in the graph are topologically ordered\n"
                                       f"{self}")
                if node not in arg.users:
                    raise RuntimeError(f"Node '{node}' reads '{arg}' but is not among its users")
            seen.add(node)
        mod = self.owning_module
        if mod is None:
            return
        for node in self.nodes:
            if node.op in ("get_attr", "call_module"):
                obj = mod
                for i, atom in enumerate(node.target.split(".")):
                    if not hasattr(obj, atom):
                        seen_qualname = ".".join(node.target.split(".")[:i])
                        raise RuntimeError(f"Node {node} target {node.target} references nonexistent attribute "
                                           f"{atom} of {seen_qualname}")
                    obj = getattr(obj, atom)

    # --- printing ---
    def __str__(self) -> str:
        placeholder_names: list[str] = []
        ret: list[str] = [""]
        strs = [n.format_node(placeholder_names, ret) for n in self.nodes]
        s = f"graph({', '.join(placeholder_names)}){ret[0]}:"
        for line in strs:
            if line:
                s += "\n    " + line
        return s

    def print_tabular(self) -> None:
        """Print the nodes as a table (opcode, name, target, args, kwargs); needs the `tabulate` package, as
        PyTorch's."""
        try:
            from tabulate import tabulate
        except ImportError:
            print("`print_tabular` relies on the library `tabulate`, which could not be found on this machine. "
                  "Run `pip install tabulate` to install the library.")
            raise
        rows = [[n.op, n.name, n.target, n.args, n.kwargs] for n in self.nodes]
        print(tabulate(rows, headers=["opcode", "name", "target", "args", "kwargs"]))

    def python_code(self, root_module: str, *, verbose: bool = False, **kwargs) -> PythonCode:
        """The Python source of `forward(self, ...)` computing this graph, and its globals."""
        return python_code(self, root_module)
