"""`torch.jit`: TorchScript is not provided (`script`, `trace`, `load` raise); the decorators that only
steer the compiler (`ignore`, `unused`, `export`) return their function, as they do in eager PyTorch."""

from __future__ import annotations

from typing import Final

from ember.torch._unsupported import unsupported

_WHY = "TorchScript compiles Python into PyTorch's C++ interpreter, which ember does not have; run the module eagerly"
script = unsupported("torch.jit.script", _WHY)
trace = unsupported("torch.jit.trace", _WHY)
trace_module = unsupported("torch.jit.trace_module", _WHY)
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
