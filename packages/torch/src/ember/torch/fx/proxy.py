"""`torch.fx.proxy`: `Proxy`, the stand-in value a symbolic trace passes through a program, which records
each operation done on it as a `Node`; `TracerBase`, what a proxy asks to record them; `TraceError`.

A proxy records Python's operators (`operator.add` ...), attribute reads and method calls (`x.view(...)`:
call_method), indexing, and every torch function handed to it through `__torch_function__`
(NOTE [ Tensor subclasses ] in ember.core.overrides: an op's entry hands the call of a non-Tensor
argument whose class defines the protocol). What it cannot know it refuses as PyTorch's does:
`bool(proxy)` (control flow), iteration, `len`.
"""

from __future__ import annotations

import dis
import inspect
import operator
from bisect import bisect_left
from collections.abc import Callable
from typing import Any

from ember.torch.fx._codegen import MAGIC, REFLECTABLE
from ember.torch.fx.graph import Graph
from ember.torch.fx.node import Node

__all__ = ["TracerBase", "GraphAppendingTracer", "TraceError", "Proxy", "Attribute", "ParameterProxy"]


class TraceError(ValueError):
    """A symbolic trace met what a proxy cannot stand for (control flow on it, iterating it)."""


class TracerBase:
    """What a Proxy asks to record an operation: `create_proxy` (a node and its proxy) and `create_arg`."""

    graph: Graph
    record_stack_traces = False
    trace_asserts = False
    proxy_buffer_attributes = False
    traced_func_name = "forward"
    scope = None

    def create_node(self, kind: str, target, args: tuple, kwargs: dict, name: str | None = None,
                    type_expr: Any | None = None) -> Node:
        """A node in `self.graph` (a hook for tracers that annotate nodes)."""
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def proxy(self, node: Node) -> Proxy:
        """The proxy standing for `node`."""
        return Proxy(node, self)

    def create_proxy(self, kind: str, target, args: tuple, kwargs: dict, name: str | None = None,
                     type_expr: Any | None = None, proxy_factory_fn: Callable | None = None) -> Proxy:
        """Record `kind`/`target` on `args`/`kwargs` (proxies and constants, lowered by `create_arg`)."""
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a: Any):
        """`a` as a node argument: proxies become their nodes, containers are lowered item by item.

        Raises:
            NotImplementedError: an object the graph cannot hold.
        """
        from ember.core.dtypes import dtype as _dtype
        from ember.core.device import device as _device

        if isinstance(a, Proxy):
            return a.node
        if hasattr(a, "__fx_create_arg__"):
            return a.__fx_create_arg__(self)
        if isinstance(a, tuple):
            items = [self.create_arg(e) for e in a]
            return type(a)(*items) if hasattr(a, "_fields") else tuple(items)
        if isinstance(a, list):
            return [self.create_arg(e) for e in a]
        if isinstance(a, dict):
            out = {}
            for k, v in a.items():
                k = self.create_arg(k)
                if isinstance(k, Node):
                    raise RuntimeError(f"Keys for dictionaries used as an argument cannot contain a Node. "
                                       f"Got key: {k}")
                out[k] = self.create_arg(v)
            return out
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, range):
            return range(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if a is None or a is ... or isinstance(a, (str, int, float, bool, complex, _dtype, _device)):
            return a
        import enum

        if isinstance(a, enum.Enum):
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def to_bool(self, obj: Proxy) -> bool:
        """`bool(proxy)`: a tracer cannot know it.

        Raises:
            TraceError: always (a custom tracer may answer).
        """
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def iter(self, obj: Proxy):
        """`iter(proxy)`: a tracer cannot know its length.

        Raises:
            TraceError: always (a custom tracer may answer).
        """
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the Proxy is used in a loop "
                         "or as a *args or **kwargs function argument. See the torch.fx docs on pytorch.org for a "
                         "more detailed explanation of what types of control flow can be traced, and check out the "
                         "Proxy docstring for help troubleshooting Proxy iteration errors")

    def keys(self, obj: Proxy) -> Proxy:
        """`proxy.keys()` (what `**proxy` calls): a call_method of `keys`."""
        return Attribute(obj, "keys")()


class GraphAppendingTracer(TracerBase):
    """A tracer that appends to an existing graph (`Proxy(node)` of a graph built by hand)."""

    def __init__(self, graph: Graph) -> None:
        super().__init__()
        self.graph = graph
        self.scope = None


def _find_tracer(cls, args, kwargs):
    found: dict = {}

    def scan(a):
        if isinstance(a, cls):
            found[a.tracer] = None
        elif isinstance(a, (list, tuple)):
            for e in a:
                scan(e)
        elif isinstance(a, dict):
            for e in a.values():
                scan(e)
        elif isinstance(a, slice):
            scan(a.start), scan(a.stop), scan(a.step)

    scan(args)
    scan(kwargs)
    return found


class Proxy:
    """The value of `node` during a symbolic trace: operations on it are recorded by `tracer`.

    Raises (when used):
        TraceError: as a condition (`if proxy:`) or iterated in a loop.
        RuntimeError: `len(proxy)`.
    """

    def __init__(self, node: Node, tracer: TracerBase | None = None) -> None:
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node

    def __repr__(self) -> str:
        return f"Proxy({self.node.name})"

    def __getattr__(self, k: str) -> Attribute:
        if k.startswith("__") and k.endswith("__"):  # protocols Python looks up (copy, pickle): not recorded
            raise AttributeError(k)
        return Attribute(self, k)

    def __getstate__(self) -> dict:
        return self.__dict__

    def __setstate__(self, d: dict) -> None:
        self.__dict__ = d

    def __call__(self, *args, **kwargs) -> Proxy:
        return self.tracer.create_proxy("call_method", "__call__", (self, *args), kwargs)

    def __iter__(self):
        frame = inspect.currentframe().f_back
        insts = list(dis.get_instructions(frame.f_code))
        inst = insts[bisect_left(insts, frame.f_lasti, key=lambda x: x.offset)]
        if inst.opname == "UNPACK_SEQUENCE":  # `a, b = proxy`: as many items as names
            return (self[i] for i in range(inst.argval))
        return self.tracer.iter(self)

    def __abs__(self) -> Proxy:
        return self.tracer.create_proxy("call_function", operator.abs, (self,), {})

    def __bool__(self) -> bool:
        return self.tracer.to_bool(self)

    def keys(self):
        """`proxy.keys()`, as the tracer answers it."""
        return self.tracer.keys(self)

    def __len__(self) -> int:
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want this call to be "
                           "recorded, please call torch.fx.wrap('len') at module scope")

    @classmethod
    def __torch_function__(cls, orig_method, types, args=None, kwargs=None):
        """A torch function called on a proxy: a call_method for a Tensor method, else a call_function."""
        args = args if args else ()
        kwargs = kwargs if kwargs else {}
        tracers = _find_tracer(cls, args, kwargs)
        if len(tracers) > 1:
            raise RuntimeError(f"Found multiple different tracers {list(tracers)} while trying to trace "
                               f"operations {orig_method}")
        tracer = next(iter(tracers))
        from ember.torch.fx._names import is_tensor_method

        if is_tensor_method(orig_method):
            return tracer.create_proxy("call_method", orig_method.__name__, args, kwargs)
        from ember.torch.fx._names import node_name

        return tracer.create_proxy("call_function", orig_method, args, kwargs,
                                   name=tracer.graph._target_to_str(node_name(orig_method)))


class Attribute(Proxy):
    """`proxy.attr`: a getattr node when used as a value, a call_method node when called."""

    def __init__(self, root: Proxy, attr: str) -> None:
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node: Node | None = None

    @property
    def node(self) -> Node:
        # the getattr node is made on first use: `x.view(...)` needs none
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr, (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs) -> Proxy:
        return self.tracer.create_proxy("call_method", self.attr, (self.root, *args), kwargs)


class ParameterProxy(Proxy):
    """The proxy of a parameter read (`self.weight`): its shape, size and dims are the parameter's own."""

    def __init__(self, tracer: TracerBase, node: Node, name: str, param) -> None:
        super().__init__(node, tracer)
        self.param = param
        self.name = name

    def __repr__(self) -> str:
        return f"ParameterProxy({self.name})"

    @property
    def shape(self):
        return self.param.shape

    def size(self, dim=None):
        return self.param.size() if dim is None else self.param.size(dim)

    def dim(self) -> int:
        return self.param.dim()

    @property
    def ndim(self) -> int:
        return self.param.ndim

    def numel(self) -> int:
        return self.param.numel()

    def nelement(self) -> int:
        return self.param.nelement()


def _magic(name: str) -> Callable:
    target = getattr(operator, name)

    def impl(*args):
        return args[0].tracer.create_proxy("call_function", target, args, {})

    impl.__name__ = impl.__qualname__ = f"__{name.strip('_')}__"
    return impl


def _reflected(name: str) -> Callable:
    target = getattr(operator, name)

    def impl(self, rhs):
        return self.tracer.create_proxy("call_function", target, (rhs, self), {})

    impl.__name__ = impl.__qualname__ = f"__r{name.strip('_')}__"
    return impl


for _name in MAGIC:
    if hasattr(operator, _name):  # (`div` is Python 2's)
        setattr(Proxy, f"__{_name.strip('_')}__", _magic(_name))
for _name in REFLECTABLE:
    if hasattr(operator, _name):
        setattr(Proxy, f"__r{_name.strip('_')}__", _reflected(_name))
