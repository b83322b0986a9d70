"""`skip_init`: build a module without PyTorch's initialisation pass."""

from __future__ import annotations

import inspect

from ember.nn.modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls: type, *args, **kwargs) -> Module:
    """Instantiate `module_cls(*args, **kwargs)` on `kwargs["device"]` (default "cpu"), its parameters'
    values unspecified: built on the meta device, then given uninitialised storage (`Module.to_empty`), so no
    initialiser runs, as PyTorch's."""
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=final_device)
