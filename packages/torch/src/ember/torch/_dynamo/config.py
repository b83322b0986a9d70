"""`torch._dynamo.config`: ember.jit's knobs (`cache_size_limit`, alias `recompile_limit`, set ember.jit's
limit) and TorchDynamo's other common knobs with PyTorch's defaults, which ember.jit does not read: kept so
that programs reading, setting or `patch`ing them run."""

from __future__ import annotations

import functools
import sys
import types

from ember.jit import config as _jit_config

_ALIASES = {"recompile_limit": "cache_size_limit"}

_DYNAMO_DEFAULTS = {
    "suppress_errors": False, "verbose": False, "accumulated_cache_size_limit": 256,
    "accumulated_recompile_limit": 256, "capture_scalar_outputs": False, "capture_dynamic_output_shape_ops": False,
    "automatic_dynamic_shapes": True, "assume_static_by_default": True, "optimize_ddp": True, "specialize_int": False,
    "specialize_float": False, "error_on_recompile": False, "force_parameter_static_shapes": True,
    "guard_nn_modules": True, "fail_on_recompile_limit_hit": False, "dynamic_shapes": True,
}


class ConfigPatch:
    """What `config.patch(...)` returns: a context manager and a decorator that set knobs and restore them."""

    def __init__(self, config, changes: dict) -> None:
        self._config, self._changes, self._saved = config, changes, []

    def __enter__(self) -> None:
        self._saved.append({k: getattr(self._config, k) for k in self._changes})
        for k, v in self._changes.items():
            setattr(self._config, k, v)

    def __exit__(self, *exc) -> None:
        for k, v in self._saved.pop().items():
            setattr(self._config, k, v)

    def __call__(self, fn):
        @functools.wraps(fn)
        def patched(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return patched


class _Config(types.ModuleType):
    """A module whose names of ember.jit's knobs read and write `ember.jit.config`."""

    def __getattr__(self, name: str):
        name = _ALIASES.get(name, name)
        if not name.startswith("_") and hasattr(_jit_config, name):
            return getattr(_jit_config, name)
        raise AttributeError(f"module 'torch._dynamo.config' has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        name = _ALIASES.get(name, name)
        if not name.startswith("_") and hasattr(_jit_config, name):
            setattr(_jit_config, name, value)
        else:
            super().__setattr__(name, value)

    def patch(self, arg1=None, arg2=None, **kwargs) -> ConfigPatch:
        """`patch(name=value)`, `patch("name", value)` or `patch({"name": value})`."""
        changes = dict(arg1) if isinstance(arg1, dict) else ({arg1: arg2} if arg1 is not None else {})
        changes.update(kwargs)
        for k in changes:
            getattr(self, k)  # an unknown name raises AttributeError, as PyTorch's
        return ConfigPatch(self, changes)


_module = sys.modules[__name__]
_module.__class__ = _Config
_module.__dict__.update(_DYNAMO_DEFAULTS)
