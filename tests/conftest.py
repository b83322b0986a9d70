"""Shared helpers of the cross-layer acceptance suite (PyTorch compatibility).

- `ember_torch()` is a module object that plays `torch` for ported programs: `torch.X` is
  `ember.autograd.X`, and `torch.nn`, `torch.nn.functional`, `torch.nn.init`, `torch.optim`,
  `torch.optim.lr_scheduler`, `torch.utils.data`, `torch.autograd` are ember's packages (the import
  mapping of docs/pytorch_compat.md). Submodules are imported lazily, so a package that fails to
  import fails only the tests that use it.
- `ember_import` is an `__import__` that maps `import torch...` statements the same way; the ported
  programs run under it, so their source is plain PyTorch.
- `to_numpy`, `assert_same` compare a torch result with an ember result (values, dtypes, shapes,
  recursively through tuples, lists, dicts and named tuples).
"""

from __future__ import annotations

import builtins
import importlib
import os
import pathlib
import sys
import types

import numpy as np
import pytest

_ROOT = pathlib.Path(__file__).resolve().parents[1]
for _layer in ("data", "nn", "autograd", "core"):
    _src = str(_ROOT / "packages" / _layer / "src")
    if _src not in sys.path:
        sys.path.insert(0, _src)

# `import torch.X` in a ported program -> the ember module that replaces it
TORCH_TO_EMBER = {
    "torch.nn": "ember.nn",
    "torch.nn.functional": "ember.nn.functional",
    "torch.nn.init": "ember.nn.init",
    "torch.optim": "ember.optim",
    "torch.optim.lr_scheduler": "ember.optim.lr_scheduler",
    "torch.utils.data": "ember.data",
    "torch.autograd": "ember.autograd",
}


class _EmberUtils(types.ModuleType):
    def __getattr__(self, name):
        if name == "data":
            return importlib.import_module("ember.data")
        raise AttributeError(f"module 'torch.utils' (ember) has no attribute '{name}'")


class _EmberTorch(types.ModuleType):
    """`torch` as seen by a program whose imports were changed to ember's."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name == "utils":
            return _UTILS
        if name in ("nn", "optim", "autograd"):
            return importlib.import_module(TORCH_TO_EMBER[f"torch.{name}"])
        return getattr(importlib.import_module("ember.autograd"), name)


_UTILS = _EmberUtils("torch.utils")
_TORCH = _EmberTorch("torch")


def ember_torch() -> types.ModuleType:
    """The ember stand-in for the `torch` module (see the module docstring)."""
    importlib.import_module("ember.autograd")
    return _TORCH


def _resolve(name: str):
    if name == "torch":
        return ember_torch()
    if name == "torch.utils":
        return _UTILS
    if name in TORCH_TO_EMBER:
        return importlib.import_module(TORCH_TO_EMBER[name])
    raise ModuleNotFoundError(f"no ember replacement for '{name}' (only the import mapping is allowed)")


def ember_import(name, globals=None, locals=None, fromlist=(), level=0):
    """`__import__` for ported programs: `torch...` names become ember's packages."""
    if level == 0 and (name == "torch" or name.startswith("torch.")):
        mod = _resolve(name)
        if fromlist:
            for attr in fromlist:  # `from torch.optim import lr_scheduler` imports the submodule
                if not hasattr(mod, attr) and f"{name}.{attr}" in TORCH_TO_EMBER:
                    _resolve(f"{name}.{attr}")
            return mod
        return ember_torch()
    return builtins.__import__(name, globals, locals, fromlist, level)


def is_tensor_like(x) -> bool:
    return hasattr(x, "detach") and hasattr(x, "dtype") and hasattr(x, "shape")


def to_numpy(x) -> np.ndarray:
    """A torch or ember tensor (any requires_grad) as a numpy array."""
    return np.asarray(x.detach().numpy())


def dtype_name(dt) -> str:
    """`torch.float32` / `ember.float32` -> `float32`."""
    return str(dt).rsplit(".", 1)[-1]


def assert_same(expected, actual, *, rtol: float = 1e-5, atol: float = 1e-6, path: str = "result"):
    """`expected` (from torch) and `actual` (from ember) agree in type, dtype, shape and value."""
    if is_tensor_like(expected):
        assert is_tensor_like(actual), f"{path}: expected a tensor, got {type(actual).__name__}"
        assert dtype_name(actual.dtype) == dtype_name(expected.dtype), (
            f"{path}: dtype {actual.dtype} != torch's {expected.dtype}")
        assert tuple(actual.shape) == tuple(expected.shape), (
            f"{path}: shape {tuple(actual.shape)} != torch's {tuple(expected.shape)}")
        e, a = to_numpy(expected), to_numpy(actual)
        if e.dtype.kind in "fc":
            np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=path)
        else:
            np.testing.assert_array_equal(a, e, err_msg=path)
    elif type(expected).__name__ == "dtype" and not isinstance(expected, np.dtype):
        assert dtype_name(actual) == dtype_name(expected), f"{path}: {actual} != torch's {expected}"
    elif isinstance(expected, dict):
        assert isinstance(actual, dict), f"{path}: expected a dict, got {type(actual).__name__}"
        assert list(actual.keys()) == list(expected.keys()), f"{path}: keys {list(actual)} != {list(expected)}"
        for k in expected:
            assert_same(expected[k], actual[k], rtol=rtol, atol=atol, path=f"{path}[{k!r}]")
    elif isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)), f"{path}: expected a sequence, got {type(actual).__name__}"
        assert isinstance(actual, tuple) == isinstance(expected, tuple), (
            f"{path}: {type(actual).__name__} where torch returns {type(expected).__name__}")
        assert len(actual) == len(expected), f"{path}: length {len(actual)} != {len(expected)}"
        for f in getattr(expected, "_fields", ()):
            assert hasattr(actual, f), f"{path}: result has no field .{f} (torch's named tuple has it)"
        for i, (e, a) in enumerate(zip(expected, actual)):
            assert_same(e, a, rtol=rtol, atol=atol, path=f"{path}[{i}]")
    elif isinstance(expected, float):
        assert isinstance(actual, float), f"{path}: expected a float, got {type(actual).__name__} {actual!r}"
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=path)
    elif isinstance(expected, bool):
        assert isinstance(actual, bool) and actual == expected, f"{path}: {actual!r} != torch's {expected!r}"
    elif isinstance(expected, int):
        assert isinstance(actual, int) and not isinstance(actual, bool), (
            f"{path}: expected an int, got {type(actual).__name__}")
        assert actual == expected, f"{path}: {actual} != torch's {expected}"
    elif expected is None:
        assert actual is None, f"{path}: expected None, got {actual!r}"
    else:
        assert actual == expected, f"{path}: {actual!r} != torch's {expected!r}"


def api_module(name: str):
    """The module a test calls `name` (`torch`, `torch.nn` ...): ember's, or with
    EMBER_COMPAT_AGAINST_TORCH=1 PyTorch's own (to check that the tests state PyTorch's behaviour)."""
    if os.environ.get("EMBER_COMPAT_AGAINST_TORCH") == "1":
        return importlib.import_module(name)
    return _resolve(name)


class LazyModule:
    """A module resolved by `api_module` on first attribute access, so an import error fails
    only the tests that touch that package."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr):
        return getattr(api_module(self._name), attr)

    def __repr__(self):
        return f"<lazy {self._name}>"


def compare_with_torch(fn, *, rtol: float = 1e-5, atol: float = 1e-6):
    """Run `fn(torch_namespace)` with PyTorch and with ember; assert the results agree."""
    torch = pytest.importorskip("torch")
    expected = fn(torch)
    actual = fn(ember_torch())
    assert_same(expected, actual, rtol=rtol, atol=atol)
    return expected, actual
