"""`import torch` resolving to ember: a meta-path finder, `install()`, and the runner behind
`python -m ember.torch script.py` and the `ember-torch` console script.

NOTE [ torch is ember.torch ]
`install()` puts `_TorchFinder` first on `sys.meta_path`. For `torch` and every `torch.X` it imports
`ember.torch.X` and hands the import system that very module object, so `torch.nn is ember.torch.nn`
and a class has one identity whichever name imported it. What PyTorch implements in C++ and ember
does not provide (`torch._C`, `torch.ops` ...), and third-party packages built on it (torchvision,
torchaudio ...), fail at import with an `ImportError` naming what is missing. A child process started
with "spawn" or "forkserver" re-imports the main script in a fresh interpreter, before anything could
install the finder there: `install()` also puts `_shim/` first on `sys.path` (children inherit the
parent's path), whose `torch` package installs the finder and stands aside for `ember.torch`.
While installed, dtypes and shapes print as PyTorch's (`torch.float32`, `torch.Size`: NOTE [ The
namespace reprs name ] in ember.core.dtypes), and classes under PyTorch's module paths (`<class
'torch.Tensor'>`: NOTE [ Classes named by PyTorch's paths ] in ember.core.class_paths).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import os
import runpy
import sys
from types import ModuleType

from ember.core import class_paths
from ember.core.dtypes import set_repr_namespace
from ember.torch._class_paths import PATHS

__all__ = ["install", "uninstall", "is_installed", "name_classes", "run_script", "main"]

# names under torch that are PyTorch's C++ or its compiler stack, which ember does not have
_NOT_PROVIDED = {
    "torch._C": "PyTorch's C++ extension module",
    "torch.ops": "PyTorch's C++ operator registry",
    "torch._ops": "PyTorch's C++ operator registry",
    "torch.utils.cpp_extension": "building C++/CUDA extensions against PyTorch's C++ API",
    "torch._dynamo.": "TorchDynamo's internals (torch.compile's tracer; ember.jit is ember's)",
    "torch._inductor": "TorchInductor (torch.compile's code generator)",
    "torch.fx.experimental": "torch.fx's experimental package",
    "torch.export": "torch.export graph capture",
}
# the pieces of torch._dynamo that ember.torch has (torch.compile's module wrapper, config, errors)
_PROVIDED = frozenset({"torch._dynamo", "torch._dynamo.eval_frame", "torch._dynamo.config", "torch._dynamo.exc"})
# packages that are not ours and need PyTorch's C++ library
_NEEDS_PYTORCH = ("torchvision", "torchaudio", "torchtext", "torchdata", "functorch", "torch_geometric",
                  "torch_scatter", "torch_sparse", "triton")
_SHIM = os.path.join(os.path.dirname(__file__), "_shim")


class _ModuleLoader(importlib.abc.Loader):
    """Hands the import system an already imported module (an ember.torch module for a torch name)."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module
        self.spec = getattr(module, "__spec__", None)

    def create_module(self, spec):
        return self.module

    def exec_module(self, module) -> None:
        # the import system stamped the torch spec on the module: give ember's own back
        try:
            module.__spec__ = self.spec
        except AttributeError:
            pass


class _TorchFinder(importlib.abc.MetaPathFinder):
    """Maps `torch` and `torch.*` to `ember.torch` and `ember.torch.*`; refuses what ember lacks."""

    def find_spec(self, fullname: str, path=None, target=None):
        top = fullname.partition(".")[0]
        if top in _NEEDS_PYTORCH:
            raise ImportError(f"{top} needs PyTorch's C++ library, which ember does not provide (`import torch` "
                              f"resolves to ember.torch here); it cannot be imported. See docs/porting.md", name=top)
        if top != "torch":
            return None
        for prefix, what in _NOT_PROVIDED.items():
            if fullname in _PROVIDED:
                break
            if fullname == prefix or fullname.startswith(prefix.rstrip(".") + "."):
                raise ImportError(f"{fullname}: {what} is not provided by ember (`import torch` resolves to "
                                  "ember.torch); see docs/porting.md", name=fullname)
        target_name = "ember.torch" + fullname[len("torch"):]
        try:
            module = importlib.import_module(target_name)
        except ModuleNotFoundError as e:
            if e.name != target_name:
                raise
            raise ModuleNotFoundError(f"No module named '{fullname}': ember.torch does not provide {fullname}; "
                                      "see docs/porting.md", name=fullname) from None
        name_classes()
        return importlib.machinery.ModuleSpec(fullname, _ModuleLoader(module))


_finder = _TorchFinder()
_unnamed: dict[str, dict[str, str]] = {}  # ember module -> {qualname: PyTorch's module}, not yet imported


_renamed: dict[ModuleType, str] = {}  # ember modules that are a torch path themselves -> their own name


def name_classes() -> None:
    """Give the classes of every ember module imported by now PyTorch's module paths; a module that is itself the
    torch module of that path (`torch.optim.lr_scheduler` is ember.optim.lr_scheduler) takes the name too, so
    `scheduler.__module__ == lr_scheduler.__name__` holds as in PyTorch."""
    for home in [m for m in _unnamed if m in sys.modules]:
        module = sys.modules[home]
        for qualname, path in _unnamed.pop(home).items():
            obj = module
            for part in qualname.split("."):
                obj = getattr(obj, part)
            class_paths.name_as(obj, path)
            if sys.modules.get("ember.torch" + path[len("torch"):]) is module and module not in _renamed \
                    and not home.startswith("ember.torch"):  # a layer's module, never the torch tree's own
                _renamed[module] = module.__name__
                module.__name__ = path


def is_installed() -> bool:
    """Whether `import torch` resolves to ember.torch in this process."""
    return _finder in sys.meta_path


def install() -> None:
    """Make `import torch` (and `torch.*`) resolve to ember.torch from now on, here and in child processes.

    Raises:
        RuntimeError: PyTorch itself was imported already (its modules cannot be swapped out).
    """
    real = sys.modules.get("torch")
    if real is not None and not real.__name__.startswith("ember."):
        raise RuntimeError("ember.torch.install(): PyTorch is already imported in this process; call install() "
                           "before the first `import torch`")
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
    if _SHIM not in sys.path:
        sys.path.insert(0, _SHIM)
    sys.modules["torch"] = importlib.import_module("ember.torch")
    set_repr_namespace("torch")  # the program speaks `torch`: dtypes print as torch.float32
    _unnamed.update({m: dict(names) for m, names in PATHS.items()})
    name_classes()  # the rest as their modules are imported


def uninstall() -> None:
    """Undo `install()`: forget the torch names (modules already holding them keep ember's objects)."""
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    set_repr_namespace("ember")
    class_paths.restore()
    for module, name in _renamed.items():
        module.__name__ = name
    _renamed.clear()
    _unnamed.clear()
    if _SHIM in sys.path:
        sys.path.remove(_SHIM)
    for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
        mod = sys.modules[name]
        if not isinstance(mod, ModuleType) or mod.__name__.startswith("ember."):
            del sys.modules[name]


def run_script(path: str, argv: list[str]) -> None:
    """Run the program at `path` as `__main__` with `sys.argv = [path, *argv]`, its `torch` being ember's."""
    install()
    sys.argv = [path, *argv]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))  # as `python script.py` does
    runpy.run_path(path, run_name="__main__")


_USAGE = "usage: python -m ember.torch script.py [args ...]   (or: ember-torch script.py [args ...])"


def main(argv: list[str] | None = None) -> int:
    """The runner's command line: `ember-torch script.py args...`."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(_USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    if not os.path.exists(argv[0]):
        print(f"ember-torch: can't open file '{argv[0]}': no such file\n{_USAGE}", file=sys.stderr)
        return 2
    run_script(argv[0], argv[1:])
    return 0
