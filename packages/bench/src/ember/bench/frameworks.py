"""The two frameworks Table 1 compares, behind one small adapter each.

ember's API is PyTorch's, so an adapter is only the modules to import: the models and training
steps are the same code for both.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

__all__ = ["Framework", "load", "available"]


@dataclass(frozen=True)
class Framework:
    """A deep-learning library seen through the PyTorch API."""

    name: str
    lib: ModuleType  # torch / ember.autograd
    nn: ModuleType
    functional: ModuleType
    optim: ModuleType
    version: str

    def from_numpy(self, array, device: str = "cpu"):
        t = self.lib.from_numpy(array)
        return t if device == "cpu" else t.to(device)

    def synchronize(self, device: str) -> None:
        """Wait for queued device work (a no-op on the CPU)."""
        if device != "cpu":
            self.lib.cuda.synchronize()


_MODULES = {
    "ember": ("ember.autograd", "ember.nn", "ember.nn.functional", "ember.optim"),
    "torch": ("torch", "torch.nn", "torch.nn.functional", "torch.optim"),
}


def load(name: str) -> Framework:
    """Import framework `name` ("ember" or "torch"); raises ImportError when it is not installed."""
    lib, nn, functional, optim = (importlib.import_module(m) for m in _MODULES[name])
    if name == "ember":
        from importlib.metadata import version

        ver = version("ember-nn") if _has_dist("ember-nn") else "dev"
    else:
        ver = lib.__version__
    return Framework(name, lib, nn, functional, optim, ver)


def _has_dist(dist: str) -> bool:
    from importlib.metadata import PackageNotFoundError, version

    try:
        version(dist)
    except PackageNotFoundError:
        return False
    return True


def available(name: str) -> bool:
    try:
        importlib.import_module(_MODULES[name][0])
    except ImportError:
        return False
    return True
