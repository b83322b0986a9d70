"""The module path a class prints under, and the ember module that defines it.

NOTE [ Classes named by PyTorch's paths ]
While `import torch` resolves to ember.torch (`ember.torch.install()`), each public class ember.torch
provides carries the module path PyTorch gives it: `Tensor.__module__` is "torch", `Linear`'s
"torch.nn.modules.linear", so `type(x)`, class reprs and `torch.typename` read as PyTorch's. Pickles then
name those paths, which the finder resolves to the very same classes (ember.torch only names a class by a
path that holds it). ember's own checkpoints record `home_module(cls)`, so they load without the finder.
`restore()` (in `uninstall()`) gives the names back. A metaclass `__repr__` would print the same, but would
put every `isinstance(x, Tensor)` through a `__instancecheck__` call.
"""

from __future__ import annotations

__all__ = ["name_as", "restore", "home_module"]

_HOME: dict[type, str] = {}  # each renamed class -> the module that defines it


def name_as(cls: type, module: str) -> None:
    """Make `cls` print as `<class '{module}.{qualname}'>`."""
    _HOME.setdefault(cls, cls.__module__)
    cls.__module__ = module


def restore() -> None:
    """Give every class renamed by `name_as` its defining module back."""
    for cls, module in _HOME.items():
        cls.__module__ = module
    _HOME.clear()


def home_module(cls: type) -> str:
    """The module that defines `cls`, whatever path it prints under now."""
    return _HOME.get(cls, cls.__module__)
