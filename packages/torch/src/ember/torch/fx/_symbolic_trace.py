"""`torch.fx._symbolic_trace`: `Tracer` and `symbolic_trace`, which run a module's `forward` on Proxies and
record what it does into a `Graph`; `wrap`, which makes a function a leaf of every trace."""

from __future__ import annotations

import inspect
import math
import types
import warnings
from collections.abc import Callable
from typing import Any

from ember.nn.modules.container import Sequential
from ember.nn.modules.module import Module
from ember.torch.fx import _patch
from ember.torch.fx.graph import Graph
from ember.torch.fx.graph_module import GraphModule
from ember.torch.fx.node import has_side_effect
from ember.torch.fx.proxy import ParameterProxy, TracerBase

__all__ = ["Tracer", "symbolic_trace", "wrap", "PH", "PHBase", "is_fx_tracing"]

_LEAF_PACKAGES = ("ember.nn", "ember.torch.nn", "torch.nn", "torch.ao.nn")
_is_fx_tracing_flag = False


def is_fx_tracing() -> bool:
    """Whether a symbolic trace is running (timm and torchvision skip checks that need real values)."""
    return _is_fx_tracing_flag


class PHBase:
    """A placeholder object for `concrete_args`: the argument stays an input of the graph."""

    def __repr__(self) -> str:
        return "PH"


PH = PHBase()


class Tracer(TracerBase):
    """Records a module's (or a function's) operations on Proxies into a Graph (`trace`).

    Args:
        autowrap_modules: modules whose functions, called on a proxy, are recorded as call_function
            rather than traced into (default `math`).
        autowrap_functions: functions recorded so as well.
        param_shapes_constant: reads of a parameter's shape give its real shape.
    """

    def __init__(self, autowrap_modules: tuple = (math,), autowrap_functions: tuple = (),
                 param_shapes_constant: bool = False) -> None:
        super().__init__()
        self._autowrap_function_ids = {id(value) for m in autowrap_modules for name, value in vars(m).items()
                                       if not name.startswith("_") and callable(value)}
        self._autowrap_function_ids.update(id(f) for f in autowrap_functions)
        self._autowrap_modules = list(autowrap_modules)
        self._autowrap_functions = list(autowrap_functions)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths: dict[int, str] | None = None
        self.root_module_name = ""
        self.scope = None

    # --- what becomes a node ---
    def create_arg(self, a: Any):
        """`TracerBase.create_arg`, and tensors: a parameter or buffer of the root becomes a get_attr of it, any
        other tensor an attribute `_tensor_constant<i>` of the root, read by a get_attr.

        Raises:
            NameError: a parameter that is not the root's.
        """
        from ember.core.tensor import Tensor
        from ember.nn.parameter import Parameter

        if isinstance(a, Parameter):
            for n_, p_ in self.root.named_parameters():
                if a is p_:
                    return self.create_node("get_attr", n_, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, Tensor):
            for n_, p_ in self.root.named_buffers():
                if a is p_:
                    return self.create_node("get_attr", n_, (), {})
            qualname = self.tensor_attrs.get(id(a))
            if qualname is None:
                i = 0
                while hasattr(self.root, f"_tensor_constant{i}"):
                    i += 1
                qualname = f"_tensor_constant{i}"
                self.tensor_attrs[id(a)] = qualname
                setattr(self.root, qualname, a)
            return self.create_node("get_attr", qualname, (), {})
        return super().create_arg(a)

    def is_leaf_module(self, m: Module, module_qualified_name: str) -> bool:
        """Whether a call of `m` is recorded as a call_module (True for torch.nn's own modules but Sequential)
        rather than traced into."""
        return (type(m).__module__.startswith(_LEAF_PACKAGES)
                and not isinstance(m, Sequential))

    def path_of_module(self, mod: Module) -> str:
        """The qualified name of `mod` in the root (`layer1.0.conv1`).

        Raises:
            NameError: `mod` is not a submodule of the root.
        """
        if self.submodule_paths is not None:
            path = self.submodule_paths.get(id(mod))
            if path is None:
                raise NameError("module is not installed as a submodule")
            return path
        for n, p in self.root.named_modules():
            if mod is p:
                return n
        raise NameError("module is not installed as a submodule")

    def call_module(self, m: Module, forward: Callable, args: tuple, kwargs: dict):
        """A call of submodule `m`: a call_module node for a leaf, else its `forward` traced through."""
        module_qualified_name = self.path_of_module(m)
        if not self.is_leaf_module(m, module_qualified_name):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", module_qualified_name, args, kwargs)

    def getattr(self, attr: str, attr_val: Any, parameter_proxy_cache: dict[str, Any]):
        """A module attribute read during the trace: a parameter of the root becomes a get_attr proxy."""
        from ember.nn.parameter import Parameter

        if not isinstance(attr_val, Parameter):
            return attr_val
        for n, p in self.root.named_parameters():
            if attr_val is p:
                if n not in parameter_proxy_cache:
                    factory = None
                    if self.param_shapes_constant:
                        def factory(node, n=n, p=p):
                            return ParameterProxy(self, node, n, p)
                    parameter_proxy_cache[n] = self.create_proxy("get_attr", n, (), {}, proxy_factory_fn=factory)
                return parameter_proxy_cache[n]
        return attr_val

    # --- the trace ---
    def create_args_for_root(self, root_fn: Callable, is_module: bool, concrete_args: dict | None = None):
        """The placeholders of `root_fn`'s parameters (a module's `self` left out), as proxies."""
        sig = inspect.signature(root_fn)
        params = list(sig.parameters.values())
        if is_module:
            if not params or params[0].kind not in (params[0].POSITIONAL_ONLY, params[0].POSITIONAL_OR_KEYWORD):
                raise RuntimeError("``self`` argument cannot be part of *args expansion!")
            params = params[1:]
        if isinstance(concrete_args, tuple):
            if len(params) != len(concrete_args):
                raise RuntimeError(f"Tracing expected {len(params)} arguments but got {len(concrete_args)} "
                                   "concrete arguments")
            concrete_args = {p.name: v for p, v in zip(params, concrete_args)}
        # in the code object's order (positional, keyword-only, *args, **kwargs), as PyTorch's placeholders
        kinds = inspect.Parameter
        order = {kinds.POSITIONAL_ONLY: 0, kinds.POSITIONAL_OR_KEYWORD: 0, kinds.KEYWORD_ONLY: 1,
                 kinds.VAR_POSITIONAL: 2, kinds.VAR_KEYWORD: 3}
        params.sort(key=lambda q: order[q.kind])
        values = []
        for p in params:
            if p.kind is p.VAR_POSITIONAL:
                values.append(self.create_proxy("placeholder", "*" + p.name, (), {}))
            elif p.kind is p.VAR_KEYWORD:
                values.append(self.create_proxy("placeholder", "**" + p.name, (), {}))
            else:
                values.append(self._proxy_placeholder(p, concrete_args, root_fn))
        if is_module:
            values.insert(0, self.root)
        if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params):
            root_fn = _all_positional(root_fn, len(values))
        return lambda: root_fn(*values)

    def _proxy_placeholder(self, p: inspect.Parameter, concrete_args: dict | None, fn: Callable):
        default = () if p.default is p.empty else (p.default,)
        if concrete_args is None or p.name not in concrete_args:
            return self.create_proxy("placeholder", p.name, default, {},
                                     type_expr=getattr(fn, "__annotations__", {}).get(p.name, None))
        x = concrete_args[p.name]
        out = self.create_proxy("placeholder", f"{p.name}_1", default, {})
        if isinstance(x, PHBase):
            return out
        import ember.torch as torch

        if type(x) in (bool, int, float, str, complex):
            self.create_proxy("call_function", torch._assert,
                              (out == x, f"{p.name} has been specialized to have value {x} but got another value"), {})
        elif x is None:
            self.create_proxy("call_function", _assert_is_none,
                              (out, f"{p.name} has been specialized to have value None but got another value"), {})
        else:
            warnings.warn(f"Was not able to add assertion to guarantee correct input {p.name} to specialized "
                          "function. It is up to the user to make sure that your inputs match the inputs you "
                          "specialized the function with.", stacklevel=3)
        return x

    def trace(self, root: Module | Callable, concrete_args: dict | None = None) -> Graph:
        """Run `root`'s forward (or the function `root`) on proxies; the graph of what it did.

        Raises:
            TraceError: the program branches or loops on a traced value.
        """
        global _is_fx_tracing_flag
        from ember.core import overrides

        if isinstance(root, Module):
            self.root = root
            fn = getattr(type(root), self.traced_func_name)
            self.root_module_name = type(root).__name__
            self.submodule_paths = {id(mod): name for name, mod in root.named_modules()}
        else:
            self.root = Module()
            fn = root
        self.graph = Graph(tracer_cls=type(self))
        self.tensor_attrs: dict[int, str] = {}
        for prefix, mod in self.root.named_modules():
            for k, v in vars(mod).items():
                if _is_tensor(v):
                    self.tensor_attrs[id(v)] = f"{prefix}.{k}" if prefix else k
        fn_globals = getattr(fn, "__globals__", {})
        call = self.create_args_for_root(fn, isinstance(root, Module), concrete_args)
        parameter_proxy_cache: dict[str, Any] = {}
        orig_getattr, orig_call = Module.__getattr__, Module.__call__

        def module_getattr_wrapper(mod, attr):
            return self.getattr(attr, orig_getattr(mod, attr), parameter_proxy_cache)

        def module_call_wrapper(mod, *args, **kwargs):
            def forward(*args, **kwargs):
                return orig_call(mod, *args, **kwargs)

            return self.call_module(mod, forward, args, kwargs)

        was_tracing, _is_fx_tracing_flag = _is_fx_tracing_flag, True
        try:
            # op entries hand a Proxy argument to Proxy.__torch_function__ (NOTE [ fx's torch functions ])
            with overrides.checking(), _patch.Patcher() as patcher:
                patcher.patch_method(Module, "__getattr__", module_getattr_wrapper)
                patcher.patch_method(Module, "__call__", module_call_wrapper)
                _patch.patch_wrapped_functions(patcher)
                _patch.patch_torch_namespaces(patcher)
                _patch.patch_tensor_methods(patcher)
                _patch.autowrap_check(patcher, fn_globals, self._autowrap_function_ids)
                for module in self._autowrap_modules:
                    _patch.autowrap_check(patcher, vars(module), self._autowrap_function_ids)
                result = call()
                self.create_node("output", "output", (self.create_arg(result),), {},
                                 type_expr=getattr(fn, "__annotations__", {}).get("return", None))
        finally:
            self.submodule_paths = None
            _is_fx_tracing_flag = was_tracing
        return self.graph


def _all_positional(fn: Callable, nargs: int) -> Callable:
    """`fn` with its keyword-only, `*args` and `**kwargs` parameters made plain positional ones, so that each
    receives one Proxy (`*args` as a whole: `args[0]` records a getitem)."""
    code = fn.__code__
    flags = code.co_flags & ~(inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
    new_code = code.replace(co_argcount=nargs, co_kwonlyargcount=0, co_flags=flags)
    return types.FunctionType(new_code, fn.__globals__, fn.__name__, None, fn.__closure__)


def _is_tensor(v) -> bool:
    from ember.core.tensor import Tensor

    return isinstance(v, Tensor)


def wrap(fn_or_name: str | Callable):
    """Make a module-level function (or the name of a global) a leaf of every symbolic trace: called on a proxy,
    it is recorded as a call_function, not traced into. Call it at a module's top level.

    Raises:
        NotImplementedError: called inside a function.
    """
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError("Unsupported type for global function! Must be either a callable or string name")
    fn_name = fn_or_name.__name__ if callable(fn_or_name) else fn_or_name
    frame = inspect.currentframe().f_back
    if frame.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    _patch._wrapped_fns_to_patch[(id(frame.f_globals), fn_name)] = frame.f_globals
    return fn_or_name


def _assert_is_none(value, msg: str) -> None:
    """The check a `None` concrete argument becomes."""
    assert value is None, msg


def symbolic_trace(root: Module | Callable, concrete_args: dict | None = None) -> GraphModule:
    """Trace `root` (a module or a function) into a GraphModule.

    Args:
        root: the module or function.
        concrete_args: arguments fixed to a value during the trace (by name); the graph keeps an input for
            each and asserts its value.

    Returns:
        GraphModule: `root`'s submodules and parameters, and a `forward` generated from the graph.
    """
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)


def _register_side_effects() -> None:
    import ember.torch as torch

    has_side_effect(torch._assert)
    has_side_effect(_assert_is_none)


_register_side_effects()
