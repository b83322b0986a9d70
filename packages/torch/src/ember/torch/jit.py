"""`torch.jit`: `script` and `trace` of a module return a `ScriptModule` sharing the module's parameters,
buffers and submodules; `script` of a function a `ScriptFunction` checking its arguments as TorchScript does,
`trace` of one the function itself; all run eagerly with the same results and
state_dict (ember has no TorchScript compiler); saving or loading a TorchScript archive raises. The
decorators that only steer the compiler (`ignore`, `unused`, `export`) return their function, as they do in
eager PyTorch; `fork` runs its function at once."""

from __future__ import annotations

import builtins
import contextlib
import functools
import inspect
import sys
import textwrap
import types
import typing
import warnings
from typing import Final, NamedTuple

from ember.core.futures import Future
from ember.nn import Module
from ember.torch._script_function import ScriptFunction, script_function
from ember.torch._unsupported import unsupported

_WHY = "TorchScript compiles Python into PyTorch's C++ interpreter, which ember does not have; run the module eagerly"


class TracerWarning(Warning):
    """What tracing warns about (users filter it: `warnings.filterwarnings("ignore", category=TracerWarning)`)."""


class ScriptWarning(Warning):
    """What scripting warns about."""


class Error(RuntimeError):
    """A TorchScript error at run time (PyTorch's `torch.jit.Error`)."""


class ScriptModule(Module):
    """The class of what `script` and `trace` return for a module (`isinstance(m, torch.jit.ScriptModule)`)."""


def _script_repr(mod, name) -> str:
    """PyTorch's repr of a scripted or traced module: each level's `original_name`, no `extra_repr`."""
    orig = getattr(mod, "original_name", type(mod).__name__)
    children = [f"({k}): " + _script_repr(c, name).replace("\n", "\n  ") for k, c in mod.named_children()]
    if not children:
        return f"{name(orig)}(original_name={orig})"
    return f"{name(orig)}(\n  " + "\n  ".join([f"original_name={orig}", *children]) + "\n)"


class RecursiveScriptModule(ScriptModule):
    """What `script(module)` returns: the module's state, shared, under this class."""

    def __repr__(self) -> str:
        return _script_repr(self, lambda orig: "RecursiveScriptModule")


class TracedModule(ScriptModule):
    """A traced submodule."""


class TopLevelTracedModule(TracedModule):
    """What `trace(module)` returns: the module's state, shared, under this class."""

    def __repr__(self) -> str:
        return _script_repr(self, lambda orig: orig)


def _as_script_module(mod, kind: type):
    """`mod`'s attributes (parameters, buffers, submodules: the same objects) under a subclass of its class
    and `kind`, named as PyTorch's, so `isinstance(m, ScriptModule)` holds and the original is unchanged."""
    if isinstance(mod, ScriptModule):
        return mod
    cls = type(kind.__name__, (kind, type(mod)), {"original_name": type(mod).__name__,
                                                  "__module__": kind.__module__})
    new = object.__new__(cls)
    new.__dict__.update(mod.__dict__)
    return new


def script(obj, optimize=None, _frames_up: int = 0, _rcb=None, example_inputs=None):
    """A module comes back as a `RecursiveScriptModule` sharing its parameters, buffers and submodules; a
    function as a `ScriptFunction` checking each call against its schema. Both run eagerly, with the results
    and `state_dict` a scripted one would have (no TorchScript IR is built, so `jit.save` cannot write it)."""
    if isinstance(obj, Module):
        return _as_script_module(obj, RecursiveScriptModule)
    if isinstance(obj, types.FunctionType) and obj.__name__ != "<lambda>":
        return script_function(obj)
    return obj


def trace(func, example_inputs=None, optimize=None, check_trace: bool = True, check_inputs=None,
          check_tolerance: float = 1e-5, strict: bool = True, _force_outplace: bool = False,
          _module_class=None, _compilation_unit=None, example_kwarg_inputs=None, _store_inputs: bool = True):
    """The module or function itself (eager), like `script`: tracing would record what it runs anyway."""
    if not callable(func):
        raise RuntimeError(f"torch.jit.trace expects a callable module or function; got {type(func).__name__}")
    return _as_script_module(func, TopLevelTracedModule) if isinstance(func, Module) else func


def trace_module(mod, inputs, **kwargs):
    """The module itself (eager), like `trace`."""
    return mod


def interface(obj):
    """Mark a class (a module or a plain class) as a TorchScript interface type, which only the compiler reads:
    the class itself. Raises RuntimeError for anything but a class, as PyTorch's."""
    if not inspect.isclass(obj):
        raise RuntimeError("interface must be applied to a class")
    return obj


class CompilationUnit:
    """TorchScript source (`CompilationUnit(src)`, `cu.define(src)`) compiled into functions reached as attributes
    (`cu.foo(x)`). TorchScript is a subset of Python, so ember runs the source as Python: each function is a
    `ScriptFunction` checking its calls against its schema, and sees `torch`, `Tensor`, `math`, the typing names and
    the caller's globals and locals, as PyTorch's resolution callback does."""

    def __init__(self, lang: str | None = None, _frames_up: int = 0) -> None:
        self._functions: dict = {}
        if lang is not None:
            self.define(lang, _frames_up=_frames_up + 1)

    def define(self, src: str, rcb=None, _frames_up: int = 0) -> None:
        """Compile the functions of `src` into this unit (later definitions replace earlier ones)."""
        import math

        import ember.torch as torch

        caller = sys._getframe(_frames_up + 1)
        scope = {**caller.f_globals, **caller.f_locals, "torch": torch, "Tensor": torch.Tensor, "math": math,
                 "List": list, "Dict": dict, "Tuple": tuple, "Optional": typing.Optional, **self._functions}
        code = compile(textwrap.dedent(src), "<torch.jit.CompilationUnit>", "exec")
        exec(code, scope)  # noqa: S102 - the user's TorchScript source, run as the Python it is
        for name, fn in scope.items():
            if isinstance(fn, types.FunctionType) and fn.__code__.co_filename == code.co_filename:
                self._functions[name] = script_function(fn)

    def find_function(self, name: str):
        """The function `name`, or None."""
        return self._functions.get(name)

    def get_functions(self) -> list:
        return list(self._functions.values())

    def __getattr__(self, name: str):
        functions = self.__dict__.get("_functions", {})
        if name in functions:
            return functions[name]
        raise AttributeError(f"'CompilationUnit' has no attribute '{name}'")


class strict_fusion:  # noqa: N801 - PyTorch's name
    """A block the TorchScript fuser must fuse whole; outside scripted code (always, in ember) PyTorch warns "Only
    works in script mode" and runs the block as it is."""

    def __init__(self) -> None:
        if not is_scripting():
            warnings.warn("Only works in script mode", UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> None:
        return None


load = unsupported("torch.jit.load", _WHY)
export_opnames = unsupported("torch.jit.export_opnames", "it lists the operators of a TorchScript graph, which ember "
                             "does not build")
save = unsupported("torch.jit.save", _WHY)
freeze = unsupported("torch.jit.freeze", _WHY)
optimize_for_inference = unsupported("torch.jit.optimize_for_inference", _WHY)


def fork(func, *args, **kwargs) -> Future:
    """Run `func(*args, **kwargs)` (now: ember has no TorchScript thread pool) and return a done `Future`."""
    fut = Future()
    try:
        fut.set_result(func(*args, **kwargs))
    except Exception as e:  # noqa: BLE001 - `wait` raises it, as PyTorch's
        fut.set_exception(e)
    return fut


def wait(fut: Future):
    """The value of a `fork`'s future."""
    return fut.wait()


def isinstance(obj, target_type) -> bool:  # noqa: A001 - PyTorch's name
    """`isinstance` that also checks the items of `list[int]`, `dict[str, Tensor]`, `tuple[...]`, `Optional[...]`."""
    return _matches(obj, target_type)


def _matches(obj, tp) -> bool:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is None:
        return builtins.isinstance(obj, tp)
    if origin is typing.Union or origin is types.UnionType:
        return any(_matches(obj, a) for a in args)
    if not builtins.isinstance(obj, origin):
        return False
    if origin is list:
        return all(_matches(o, args[0]) for o in obj)
    if origin is dict:
        return all(_matches(k, args[0]) and _matches(v, args[1]) for k, v in obj.items())
    if origin is tuple:
        return len(obj) == len(args) and all(_matches(o, a) for o, a in zip(obj, args))
    return True


def ignore(drop=False, **kwargs):
    """Leave a function to Python (a no-op without TorchScript); usable with or without arguments."""
    return drop if callable(drop) else (lambda fn: fn)


def unused(fn):
    """Mark a method the compiler skips (a no-op without TorchScript)."""
    return fn


def export(fn):
    """Mark a method the compiler compiles (a no-op without TorchScript)."""
    return fn


def is_scripting() -> bool:
    """Never: ember runs eagerly."""
    return False


def is_tracing() -> bool:
    """Never: ember runs eagerly."""
    return False


def annotate(the_type, the_value):
    """The value itself (a type hint for the compiler)."""
    return the_value


def script_if_tracing(fn):
    """`fn` wrapped to be scripted the first time it runs under tracing; ember never traces, so the wrapper calls
    `fn` (torchvision's `batched_nms` is decorated with it)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    wrapper.__original_fn = fn  # type: ignore[attr-defined]
    wrapper.__script_if_tracing_wrapper = True  # type: ignore[attr-defined]
    return wrapper


class Attribute(NamedTuple):
    """A module attribute's value with its TorchScript type (`self.names = torch.jit.Attribute([], List[str])`)."""

    value: typing.Any
    type: typing.Any


_overloads: dict[str, list] = {}


def _overload(func):
    """Record `func` as one typed signature of the function defined after it (for the compiler), and return it."""
    _overloads.setdefault(getattr(func, "__qualname__", repr(func)), []).append(func)
    return func


def _overload_method(func):
    """`_overload` for methods."""
    return _overload(func)


_fusion_strategy = [("STATIC", 2), ("DYNAMIC", 10)]
_onednn_fusion = False
_FUSERS = ("fuser0", "fuser1", "fuser2", "fuser3", "none")


def set_fusion_strategy(strategy: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Set the TorchScript fuser's specialisation strategy (kept, unused: ember has no fuser); returns the old one."""
    global _fusion_strategy
    old, _fusion_strategy = _fusion_strategy, list(strategy)
    return old


def enable_onednn_fusion(enabled: bool) -> None:
    """Turn the oneDNN graph fuser's flag on or off (a flag only: ember has no fuser)."""
    global _onednn_fusion
    _onednn_fusion = bool(enabled)


def onednn_fusion_enabled() -> bool:
    """The flag `enable_onednn_fusion` sets."""
    return _onednn_fusion


@contextlib.contextmanager
def fuser(name: str):
    """Select a TorchScript fuser inside the block (a no-op in ember, which has none); the name is checked."""
    if name not in _FUSERS:
        raise Exception(f"unrecognized fuser option (name: {name})")  # noqa: TRY002 - PyTorch raises Exception
    yield


__all__ = ["TracerWarning", "ScriptWarning", "Error", "ScriptModule", "RecursiveScriptModule", "TracedModule",
           "TopLevelTracedModule", "ScriptFunction", "fork", "wait", "isinstance", "script", "trace", "trace_module",
           "load", "save", "freeze", "optimize_for_inference", "ignore", "unused", "export", "is_scripting",
           "is_tracing", "annotate", "Final", "script_if_tracing", "Attribute", "set_fusion_strategy",
           "enable_onednn_fusion", "onednn_fusion_enabled", "fuser", "interface", "CompilationUnit", "export_opnames",
           "strict_fusion"]
