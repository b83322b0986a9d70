"""Registering an ember module under its `ember.torch` name, with the submodules it has loaded.

`sys.modules["ember.torch.optim"] = ember.optim` makes `import ember.torch.optim` return the very
module object `ember.optim` (so `torch.optim.SGD is ember.optim.SGD`); its loaded submodules are
registered too, so `import ember.torch.optim.lr_scheduler` finds the loaded module instead of
executing `ember/optim/lr_scheduler.py` a second time under another name (which would duplicate
every class in it).
"""

from __future__ import annotations

import sys
from types import ModuleType


def alias(name: str, module: ModuleType) -> ModuleType:
    """Register `module` and its loaded submodules under `name`; returns `module`."""
    sys.modules[name] = module
    prefix = module.__name__ + "."
    for key, sub in list(sys.modules.items()):
        if key.startswith(prefix):
            sys.modules[name + key[len(module.__name__):]] = sub
    return module
