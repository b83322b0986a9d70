"""The Python source of a `Graph` (`Graph.python_code`, `GraphModule.code`), in PyTorch's format: one line
per node, operators written as operators, each value set to None after its last use."""

from __future__ import annotations

import builtins
import keyword
import math
import re
from dataclasses import dataclass, field
from typing import Any

from ember.torch.fx._names import qualified_name, resolves
from ember.torch.fx.node import Node, _type_repr

_REFLECTABLE = {"add": "{} + {}", "sub": "{} - {}", "mul": "{} * {}", "floordiv": "{} // {}", "truediv": "{} / {}",
                "div": "{} / {}", "mod": "{} % {}", "pow": "{} ** {}", "lshift": "{} << {}", "rshift": "{} >> {}",
                "and_": "{} & {}", "or_": "{} | {}", "xor": "{} ^ {}", "getitem": "{}[{}]", "matmul": "{} @ {}"}
MAGIC = {"eq": "{} == {}", "ne": "{} != {}", "lt": "{} < {}", "gt": "{} > {}", "le": "{} <= {}", "ge": "{} >= {}",
         "pos": "+{}", "neg": "-{}", "invert": "~{}", **_REFLECTABLE}
REFLECTABLE = _REFLECTABLE

_ILLEGAL = {k: object() for k in keyword.kwlist}
_ILLEGAL.update(builtins.__dict__)  # a generated name never shadows a builtin it is not
_NAME = re.compile(r"^([a-zA-Z_][0-9a-zA-Z_]*?)(?:_(\d+))?$")
_ILLEGAL_CHARS = re.compile("[^0-9a-zA-Z_]+")


class Namespace:
    """Unique Python names for the values of a graph and the globals of its code."""

    def __init__(self) -> None:
        self._obj_to_name: dict[int, str] = {}
        self._used: set[str] = set()
        self._base_count: dict[str, int] = {}

    def create_name(self, candidate: str, obj: Any | None) -> str:
        """A name unused so far, from `candidate` (`add` -> `add_1` when taken; `sum` -> `sum_1`, a builtin)."""
        if obj is not None and id(obj) in self._obj_to_name:
            return self._obj_to_name[id(obj)]
        match = _NAME.match(candidate)
        if match is None:
            candidate = _ILLEGAL_CHARS.sub("_", candidate) or "_unnamed"
            if candidate[0].isdigit():
                candidate = f"_{candidate}"
            match = _NAME.match(candidate)
        base, num = match.group(1, 2)
        if num is None or candidate in self._used:
            num = self._base_count.get(base, 0)
            if _ILLEGAL.get(candidate, obj) is not obj:
                num += 1
                candidate = f"{base}_{num}"
        else:
            num = int(num)
        while candidate in self._used:
            num += 1
            candidate = f"{base}_{num}"
        self._used.add(candidate)
        self._base_count[base] = num
        if obj is not None:
            self._obj_to_name[id(obj)] = candidate
        return candidate


@dataclass
class PythonCode:
    """`Graph.python_code`'s answer: the source of `forward` and the globals it needs."""

    src: str
    globals: dict[str, Any] = field(default_factory=dict)


def python_code(graph, root_module: str) -> PythonCode:
    """The source of `def forward(self, ...)` computing `graph`, with `root_module` naming the module."""
    import ember.torch as torch

    namespace = Namespace()
    for n in graph.nodes:
        namespace.create_name(n.name, None)
    globals_: dict[str, Any] = {"torch": torch, "inf": math.inf, "nan": math.nan, "NoneType": type(None)}
    free_vars: list[str] = []
    body: list[str] = []
    wrapped: dict[str, None] = {}
    ret_annotation = [""]

    def add_global(hint: str, obj) -> str:
        if resolves(hint, obj):
            return hint
        for name, val in globals_.items():
            if val is obj:
                return name
        name = namespace.create_name(hint, obj)
        globals_[name] = obj
        return name

    def rep(arg) -> str:
        if isinstance(arg, Node):
            return repr(arg)
        if isinstance(arg, tuple) and hasattr(arg, "_fields"):
            return f"{add_global(qualified_name(type(arg)), type(arg))}{tuple(arg)!r}"
        if isinstance(arg, tuple):
            return f"({rep(arg[0])},)" if len(arg) == 1 else "(" + ", ".join(rep(a) for a in arg) + ")"
        if isinstance(arg, list):
            return "[" + ", ".join(rep(a) for a in arg) + "]"
        if isinstance(arg, slice):
            return f"slice({rep(arg.start)}, {rep(arg.stop)}, {rep(arg.step)})"
        if isinstance(arg, torch.Tensor):
            return f"torch.Tensor(size={list(arg.size())}, dtype={str(arg.dtype).split('.')[-1]})"
        if isinstance(arg, torch.dtype):
            return f"torch.{str(arg).split('.')[-1]}"
        if isinstance(arg, torch.device):  # PyTorch's repr, `device` being a global of the code
            index = "" if arg.index is None else f", index={arg.index}"
            return f"device(type={arg.type!r}{index})"
        return repr(arg)

    def fmt_args(args, kwargs) -> str:
        return ", ".join([rep(a) for a in args] + [f"{k} = {rep(v)}" for k, v in kwargs.items()])

    def target_of(obj: str, attr: str) -> str:
        out = obj
        for part in attr.split("."):
            out = f"{out}.{part}" if part.isidentifier() else f'getattr({out}, "{part}")'
        return out

    last_use: dict[Node, Node] = {}
    deletes: dict[Node, list[Node]] = {}
    for n in reversed(list(graph.nodes)):
        for i in n._input_nodes:
            if i not in last_use:
                last_use[i] = n
                deletes.setdefault(n, []).append(i)
    globals_["device"] = torch.device

    for n in graph.nodes:
        ann = "" if n.type is None else f" : {_type_repr(n.type)}"
        if n.op == "placeholder":
            default = f" = {rep(n.args[0])}" if n.args else ""
            free_vars.append(f"{n.target}{ann}{default}")
            raw = n.target.replace("*", "")
            if raw != repr(n):
                body.append(f"{n!r} = {raw}\n")
            continue
        if n.op == "call_method":
            line = f"{n!r}{ann} = {target_of(rep(n.args[0]), n.target)}({fmt_args(n.args[1:], n.kwargs)})"
        elif n.op == "call_function":
            name = getattr(n.target, "__name__", "")
            if getattr(n.target, "__module__", "") == "_operator" and name in MAGIC:
                line = f"{n!r}{ann} = {MAGIC[name].format(*(rep(a) for a in n.args))}"
            else:
                g = add_global(qualified_name(n.target), n.target)
                if g == "getattr" and len(n.args) == 2 and isinstance(n.args[1], str) and n.args[1].isidentifier():
                    line = f"{n!r}{ann} = {target_of(rep(n.args[0]), n.args[1])}"
                else:
                    line = f"{n!r}{ann} = {g}({fmt_args(n.args, n.kwargs)})"
                if n.meta.get("is_wrapped", False):
                    wrapped.setdefault(g)
        elif n.op == "call_module":
            line = f"{n!r}{ann} = {target_of(root_module, n.target)}({fmt_args(n.args, n.kwargs)})"
        elif n.op == "get_attr":
            line = f"{n!r}{ann} = {target_of(root_module, n.target)}"
        elif n.op == "output":
            if n.type is not None:
                ret_annotation[0] = f" -> {_type_repr(n.type)}"
            body.append(f"return {rep(n.args[0])}\n")
            continue
        else:
            raise NotImplementedError(f"node: {n.op} {n.target}")
        dead = list(deletes.get(n, []))
        if not n.users:
            dead.append(n)
        body.append(line + (f";  {' = '.join([repr(d) for d in dead] + ['None'])}\n" if dead else "\n"))
    if not body:
        body.append("pass\n")
    if wrapped:
        from ember.torch.fx._symbolic_trace import wrap

        wrap_name = add_global(qualified_name(wrap), wrap)
        wrap_stmts = "\n".join(f'{wrap_name}("{name}")' for name in wrapped)
    else:
        wrap_stmts = ""
    if not free_vars or free_vars[0] != "self":
        free_vars.insert(0, "self")
    prologue = f"def forward({', '.join(free_vars)}){ret_annotation[0]}:"
    code = "".join(body).lstrip("\n")
    code = "\n".join("    " + line for line in code.split("\n"))
    return PythonCode(f"\n{wrap_stmts}\n\n{prologue}\n{code}", globals_)
