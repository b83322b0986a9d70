"""`torch.fx.node`: `Node`, one operation of a `Graph`, and `map_arg`/`map_aggregate` over its arguments.

A node is one of six ops: `placeholder` (an input of the function), `get_attr` (a parameter, buffer or
attribute of the module), `call_function`, `call_method`, `call_module` and `output`. Its `args` and
`kwargs` may hold other nodes (nested in lists, tuples, dicts and slices); each node keeps the nodes it
reads (`all_input_nodes`) and the nodes reading it (`users`) in step with its arguments, so rewriting a
graph is `node.args = ...`, `replace_all_uses_with` and `Graph.erase_node`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember.torch.fx._names import pretty_target
from ember.torch.fx.immutable_collections import immutable_dict, immutable_list

__all__ = ["Node", "map_arg", "map_aggregate", "has_side_effect"]

Target = Any
Argument = Any

_OPS = ("placeholder", "call_method", "call_module", "call_function", "get_attr", "output", "root")
# functions whose call a graph keeps though nothing reads its result (eliminate_dead_code leaves them)
_side_effectful_functions: set = set()


def has_side_effect(fn: Callable) -> Callable:
    """Mark `fn` as side-effectful: `eliminate_dead_code` keeps its calls."""
    _side_effectful_functions.add(fn)
    return fn


def _type_repr(t) -> str:
    """A type annotation as the generated code writes it (`torch.Tensor`, `int`)."""
    if isinstance(t, type):
        module = t.__module__
        if module == "builtins":
            return t.__qualname__
        if t.__name__ == "Tensor" and module.startswith(("ember.", "torch")):
            return "torch.Tensor"
        return f"{module}.{t.__qualname__}"
    return repr(t).replace("typing.", "")


def _format_arg(arg, max_list_len: float = float("inf")) -> str:
    """An argument as `Graph.__str__` prints it: nodes as `%name`, containers item by item."""
    if isinstance(arg, list):
        items = ", ".join(_format_arg(a) for i, a in enumerate(arg) if i < max_list_len)
        more = "" if len(arg) < max_list_len + 1 else f", ...[total_len={len(arg)}]"
        return f"[{items}{more}]"
    if isinstance(arg, tuple):
        items = ", ".join(_format_arg(a) for i, a in enumerate(arg) if i < max_list_len)
        more = "" if len(arg) < max_list_len + 1 else f", ...[total_len={len(arg)}]"
        return f"({items}{',' if len(arg) == 1 else ''}{more})"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    if isinstance(arg, Node):
        return "%" + str(arg)
    return str(arg)


class Node:
    """One operation of a `Graph` (see the module's docstring for the six ops).

    Attributes:
        op, target, name: what it does, on what (a function, a method's or a submodule's name), and the
            variable the generated code assigns.
        users: the nodes that read it (a dict used as an ordered set).
        meta: free-form metadata (`ShapeProp` puts `tensor_meta` there).
    """

    def __init__(self, graph, name: str, op: str, target: Target, args: tuple, kwargs: dict,
                 return_type: Any = None) -> None:
        if op not in _OPS:
            raise ValueError(f"Unrecognized op {op!r}")
        if op == "call_function" and not callable(target):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target)} but a Callable is expected")
        if op in ("placeholder", "call_method", "call_module", "get_attr", "output") and not isinstance(target, str):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target)} but a str is expected")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self._input_nodes: dict[Node, None] = {}
        self.users: dict[Node, None] = {}
        self.type = return_type
        self._prev = self._next = self
        self._erased = False
        self.meta: dict[str, Any] = {}
        self._args: tuple = ()
        self._kwargs: dict = immutable_dict()
        self._update_args_kwargs(args, kwargs)

    # --- the list of nodes ---
    @property
    def next(self) -> Node:
        """The node after this one (the graph's root sentinel after the last)."""
        return self._next

    @property
    def prev(self) -> Node:
        """The node before this one."""
        return self._prev

    def prepend(self, x: Node) -> None:
        """Put `x` just before this node (moving it if it is in the graph already)."""
        if x is self:
            raise AssertionError("Cannot prepend a node to itself")
        x._remove_from_list()
        p = self._prev
        p._next, x._prev = x, p
        x._next, self._prev = self, x

    def append(self, x: Node) -> None:
        """Put `x` just after this node."""
        self._next.prepend(x)

    def _remove_from_list(self) -> None:
        # its own links stay: a loop over the graph that erased it goes on from it
        p, n = self._prev, self._next
        p._next, n._prev = n, p

    # --- arguments and uses ---
    @property
    def args(self) -> tuple:
        """The positional arguments (setting them updates `users` of the nodes read)."""
        return self._args

    @args.setter
    def args(self, a: tuple) -> None:
        self._update_args_kwargs(a, self._kwargs)

    @property
    def kwargs(self) -> dict:
        """The keyword arguments (setting them updates `users` of the nodes read)."""
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k: dict) -> None:
        self._update_args_kwargs(self._args, k)

    @property
    def all_input_nodes(self) -> list[Node]:
        """The nodes this one reads, in the order its arguments name them."""
        return list(self._input_nodes)

    def _update_args_kwargs(self, new_args, new_kwargs) -> None:
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._input_nodes = {}
        self._args = map_aggregate(new_args, self._note_input)
        self._kwargs = map_aggregate(new_kwargs, self._note_input)
        for n in self._input_nodes:
            n.users.setdefault(self)

    def _note_input(self, a):
        if isinstance(a, Node):
            self._input_nodes.setdefault(a)
        return a

    def update_arg(self, idx: int, arg: Argument) -> None:
        """Set positional argument `idx` to `arg`."""
        args = list(self.args)
        args[idx] = arg
        self.args = tuple(args)

    def update_kwarg(self, key: str, arg: Argument) -> None:
        """Set keyword argument `key` to `arg`."""
        self.kwargs = {**self.kwargs, key: arg}

    def replace_all_uses_with(self, replace_with: Node, delete_user_cb: Callable[[Node], bool] = lambda user: True,
                              *, propagate_meta: bool = False) -> list[Node]:
        """Make every user of this node read `replace_with` instead (those `delete_user_cb` accepts); returns
        the users changed."""
        if propagate_meta:
            if replace_with.meta:
                raise AssertionError("Only support propagating meta field when the new node has no meta")
            replace_with.meta.update(self.meta)
        changed = []
        for user in list(self.users):
            if not delete_user_cb(user):
                continue
            changed.append(user)
            user.replace_input_with(self, replace_with)
        return changed

    def replace_input_with(self, old_input: Node, new_input: Node) -> None:
        """Read `new_input` wherever this node's arguments read `old_input`."""
        def swap(n):
            return new_input if n is old_input else n

        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    @property
    def stack_trace(self) -> str | None:
        """Where the node was recorded from (`meta['stack_trace']`; symbolic tracing does not record it)."""
        return self.meta.get("stack_trace", None)

    @stack_trace.setter
    def stack_trace(self, trace: str | None) -> None:
        self.meta["stack_trace"] = trace

    def is_impure(self, impure_random: bool = True) -> bool:
        """Whether the node must stay though nothing reads it (inputs, the output, side-effectful calls,
        submodules marked `_is_impure`)."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            return self.target in _side_effectful_functions
        if self.op == "call_module":
            root = self.graph.owning_module
            if root is not None:
                return getattr(root.get_submodule(self.target), "_is_impure", False)
        return False

    # --- printing ---
    def __repr__(self) -> str:
        return self.name

    @staticmethod
    def _pretty_print_target(target) -> str:
        return pretty_target(target)

    def format_node(self, placeholder_names: list[str] | None = None,
                    maybe_return_typename: list[str] | None = None) -> str | None:
        """The node as `Graph.__str__` prints it (`%relu : [num_users=1] = call_function[target=torch.relu](...)`)."""
        typename = f"{_type_repr(self.type)} " if self.type is not None else ""
        head = f"%{self.name} : {typename}[num_users={len(self.users)}] = {self.op}"
        if self.op == "placeholder":
            if placeholder_names:
                placeholder_names.append(self.target)
                return None
            default = f"(default={self.args[0]})" if self.args else ""
            return f"{head}[target={self.target}]{default}"
        if self.op == "get_attr":
            return f"{head}[target={self._pretty_print_target(self.target)}]"
        if self.op == "output":
            if self.type and maybe_return_typename:
                maybe_return_typename[0] = f" -> {_type_repr(self.type)}"
            return f"return {self.args[0]}"
        return (f"{head}[target={self._pretty_print_target(self.target)}](args = {_format_arg(self.args)}, "
                f"kwargs = {_format_arg(self.kwargs)})")


def map_arg(a: Argument, fn: Callable[[Node], Argument]) -> Argument:
    """`a` with `fn` applied to each Node in it (lists, tuples, dicts and slices looked into)."""
    if not callable(fn):
        raise AssertionError("torch.fx.map_arg(a, fn): fn must be a callable")
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def map_aggregate(a: Argument, fn: Callable[[Argument], Argument]) -> Argument:
    """`a` with `fn` applied to each leaf; lists and dicts come back immutable, named tuples as themselves."""
    if isinstance(a, tuple):
        t = tuple(map_aggregate(e, fn) for e in a)
        return t if not hasattr(a, "_fields") else type(a)(*t)
    if isinstance(a, list):
        return immutable_list(map_aggregate(e, fn) for e in a)
    if isinstance(a, dict):
        return immutable_dict((k, map_aggregate(v, fn)) for k, v in a.items())
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn), map_aggregate(a.step, fn))
    return fn(a)
