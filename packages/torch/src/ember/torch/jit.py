"""`torch.jit`: `script` and `trace` return the module or function itself, which runs eagerly with the
same results and state_dict (ember has no TorchScript compiler); saving or loading a TorchScript
archive raises. The decorators that only steer the compiler (`ignore`, `unused`, `export`) return
their function, as they do in eager PyTorch."""

from __future__ import annotations

from typing import Final

from ember.torch._unsupported import unsupported

_WHY = "TorchScript compiles Python into PyTorch's C++ interpreter, which ember does not have; run the module eagerly"


def script(obj, optimize=None, _frames_up: int = 0, _rcb=None, example_inputs=None):
    """The module or function itself: it runs eagerly, with the results and `state_dict` a scripted
    one would have (no TorchScript IR is built, so `jit.save` cannot write it)."""
    return obj


def trace(func, example_inputs=None, optimize=None, check_trace: bool = True, check_inputs=None,
          check_tolerance: float = 1e-5, strict: bool = True, _force_outplace: bool = False,
          _module_class=None, _compilation_unit=None, example_kwarg_inputs=None, _store_inputs: bool = True):
    """The module or function itself (eager), like `script`: tracing would record what it runs anyway."""
    if not callable(func):
        raise RuntimeError(f"torch.jit.trace expects a callable module or function; got {type(func).__name__}")
    return func


def trace_module(mod, inputs, **kwargs):
    """The module itself (eager), like `trace`."""
    return mod


load = unsupported("torch.jit.load", _WHY)
save = unsupported("torch.jit.save", _WHY)
freeze = unsupported("torch.jit.freeze", _WHY)
optimize_for_inference = unsupported("torch.jit.optimize_for_inference", _WHY)


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


__all__ = ["script", "trace", "trace_module", "load", "save", "freeze", "optimize_for_inference", "ignore",
           "unused", "export", "is_scripting", "is_tracing", "annotate", "Final"]
