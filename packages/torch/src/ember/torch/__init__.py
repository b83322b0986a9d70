"""ember-torch: PyTorch's `torch` module tree, assembled from ember's layers.

`import ember.torch as torch` is the one line a port changes: the top namespace is
`ember.autograd`'s (tensors, ops, dtypes, autograd), and the submodules carry PyTorch's paths
(`torch.nn.modules.activation.MultiheadAttention`, `torch.utils.data.DataLoader`,
`torch.backends.cudnn`, `torch.multiprocessing` ...), each the very module or class of the layer
that implements it. `python -m ember.torch script.py` (or `install()`) runs unmodified programs,
whose `import torch` resolves here (see `ember.torch._importer`).
"""

import math as _math
import sys as _sys
import warnings as _warnings

import ember.autograd as _autograd
import ember.jit as _jit
import ember.nn as _nn
from ember.nn.modules.module import set_compiler as _set_compiler
from ember.autograd import *  # noqa: F403 - the torch namespace is ember.autograd's
from ember.torch._alias import alias as _alias
from ember.torch._version import __version__

# the layers' modules under PyTorch's names (the same objects: `torch.optim is ember.optim`)
import ember.optim as optim

_alias(__name__ + ".autograd", _autograd)
autograd = _autograd
_alias(__name__ + ".optim", optim)
# `nn.Module.compile()` compiles through ember.jit, or a callable backend's (NOTE [ Module.compile's compiler ])


def _backend_compiler(module, backend, *, fullgraph: bool = False):
    from ember.torch._dynamo.fx_backend import FxCompiledFunction

    return FxCompiledFunction(module, backend, fullgraph=fullgraph, eager=module.__class__.forward.__get__(module))


_set_compiler(_jit.CompiledFunction, _backend_compiler)

import ember.torch.nn as nn  # noqa: E402 - `import ... as`, not `from ember.torch import`: the star import
import ember.torch.utils as utils  # noqa: E402   above bound some of these names to ember.autograd's modules,
import ember.torch.backends as backends  # noqa: E402   and `from` would return those instead
import ember.torch.cuda as cuda  # noqa: E402
import ember.torch.amp as amp  # noqa: E402
import ember.torch.cpu as cpu  # noqa: E402
import ember.torch.multiprocessing as multiprocessing  # noqa: E402
import ember.torch.serialization as serialization  # noqa: E402
import ember.torch.linalg as linalg  # noqa: E402
import ember.torch.special as special  # noqa: E402
import ember.torch.fft as fft  # noqa: E402
import ember.torch.masked as masked  # noqa: E402
import ember.torch.sparse as sparse  # noqa: E402
from ember.torch.sparse import spmm  # noqa: E402
from ember.core.sparse_ops import dsmm, hsmm, hspmm, smm, sspaddmm  # noqa: E402
import ember.torch.testing as testing  # noqa: E402
import ember.torch.onnx as onnx  # noqa: E402
import ember.torch.jit as jit  # noqa: E402
from ember.torch.jit import fork, wait  # noqa: E402 - torch.fork / torch.wait are TorchScript's futures
import ember.torch.profiler as profiler  # noqa: E402
import ember.torch.__future__ as __future__  # noqa: E402, F401 - torch.__future__'s conversion flags
import ember.torch.distributed as distributed  # noqa: E402
import ember.torch.futures as futures  # noqa: E402
import ember.torch.func as func  # noqa: E402
from ember.torch.func import vmap  # noqa: E402
import ember.torch.version as version  # noqa: E402
import ember.torch.torch_version as torch_version  # noqa: E402
import ember.torch.types as types  # noqa: E402
import ember.torch.accelerator as accelerator  # noqa: E402
import ember.torch.hub as hub  # noqa: E402
import ember.torch.return_types as return_types  # noqa: E402
import ember.torch.mps as mps  # noqa: E402
import ember.torch.xpu as xpu  # noqa: E402
import ember.torch.quasirandom as quasirandom  # noqa: E402
import ember.torch.random as random  # noqa: E402
from ember.torch.amp import GradScaler  # noqa: E402
from ember.core.cuda import OutOfMemoryError  # noqa: E402
from ember.core.futures import Future  # noqa: E402
from ember.core.ops.foreach import *  # noqa: E402, F403 - torch._foreach_* (multi-tensor ops)
from ember.core.streams import Event, Stream  # noqa: E402
from ember.torch._utils import classproperty  # noqa: E402


class AcceleratorError(RuntimeError):
    """An error the accelerator's runtime reported (`torch.AcceleratorError`)."""


class FatalError(Exception):
    """An unrecoverable error of the runtime (`torch.FatalError`)."""


import ember.torch.signal as signal  # noqa: E402
import ember.torch.overrides as overrides  # noqa: E402
import ember.torch.library as library  # noqa: E402
from ember.torch._ops import ops  # noqa: E402 - torch.ops: the custom ops, by name
from ember.torch._checks import (_check, _check_with, _check_index, _check_value, _check_type,  # noqa: E402, F401
                                 _check_not_implemented, _check_tensor_all)
from ember.torch.overrides import DisableTorchFunction, DisableTorchFunctionSubclass  # noqa: E402
from ember.torch._typed_storage import *  # noqa: E402, F403 - TypedStorage and the legacy typed storages
from ember.torch._untyped_storage import *  # noqa: E402, F403 - UntypedStorage, StorageBase
from ember.torch.amp import autocast, get_autocast_dtype, is_autocast_enabled  # noqa: E402
from ember.torch._importer import install, uninstall  # noqa: E402
from ember.torch._aten import *  # noqa: E402, F403 - ATen's top-level spellings of functional ops
from ember.torch._sym import *  # noqa: E402, F403 - sym_int, sym_max, ..., has_lapack, compiled_with_cxx11_abi
import ember.torch.functional as functional  # noqa: E402 - torch.functional (einsum ...), not autograd's

inf, nan, pi, e = _math.inf, _math.nan, _math.pi, _math.e
newaxis = None


def compile(model=None, *, fullgraph: bool = False, dynamic=None, backend="inductor", mode=None, options=None,  # noqa: A001
            disable: bool = False):
    """`torch.compile`: `model` captured and replayed by `ember.jit` (docs/compile.md), as a decorator too.

    A module comes back as `torch._dynamo.eval_frame.OptimizedModule` (its `state_dict` keys get the
    `_orig_mod.` prefix), a function as an `ember.jit` compiled function. Every named backend ("inductor",
    "eager", "aot_eager", "cudagraphs") runs ember.jit; a callable backend gets, at the first call of each
    input signature, the `torch.fx` GraphModule of the call and its example inputs, and its returned
    callable runs the calls (ember.torch._dynamo.fx_backend). `disable=True` returns the model itself."""
    if model is None:
        def decorate(fn):
            return compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode, options=options,
                           disable=disable)
        return decorate
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {model.__class__} is provided.")
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in _COMPILE_MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_COMPILE_MODES)}")
    if disable:
        return model
    from ember.torch._dynamo import exc as _exc
    from ember.torch._dynamo.eval_frame import OptimizedModule

    if not callable(backend) and backend not in ("inductor", "eager", "aot_eager", "cudagraphs"):
        raise _exc.InvalidBackend(backend)
    if isinstance(model, OptimizedModule):
        model = model._orig_mod
    if isinstance(model, _nn.Module):
        return OptimizedModule(model, fullgraph=fullgraph, dynamic=dynamic, mode=mode, backend=backend)
    if callable(backend):
        from ember.torch._dynamo.fx_backend import FxCompiledFunction

        return FxCompiledFunction(model, backend, fullgraph=fullgraph)
    return _jit.compile(model, fullgraph=fullgraph, dynamic=dynamic, mode=mode)


_COMPILE_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def set_default_tensor_type(t) -> None:
    """Deprecated PyTorch API: make the dtype of a legacy type (`torch.DoubleTensor` or its name) the default
    (with PyTorch's warning, once a process)."""
    from ember.core.ops._util import internally, warn_once

    warn_once(internally("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                         "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
                         "torch/csrc/tensor/python_tensor.cpp:434"))
    name = t if isinstance(t, str) else f"{t.__module__}.{t.__name__}"
    if ".cuda." in name:
        raise TypeError(f"set_default_tensor_type: ember cannot make {name} the default (only CPU floating types)")
    dt = getattr(_sys.modules[__name__], name.rsplit(".", 1)[-1]).dtype
    set_default_dtype(dt)  # noqa: F405


def typename(obj) -> str:
    """`torch.typename`: 'torch.FloatTensor' for a tensor, the qualified class name otherwise."""
    if isinstance(obj, Tensor):  # noqa: F405
        return obj.type()
    module = getattr(obj, "__module__", "") or ""  # (a class's own names; an instance's class's)
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if qualname is None:
        module, qualname = obj.__class__.__module__ or "", obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _assert(condition, message) -> None:
    """`torch._assert`: an `assert` that scripted code keeps (torchvision's detection models check inputs with
    it); a one-element tensor condition counts by its truth value."""
    assert condition, message


_NO_CPP = {"_C": "PyTorch's C++ extension module (torch._C)", "_inductor": "TorchInductor",
           "export": "torch.export graph capture"}


def __getattr__(name: str):
    """Ops ember.core gains lazily; `distributions`, `_dynamo`, `compiler`, `__config__`, `_tensor_str`, `ao`,
    `quantization`, `fx`, `nested` (imported on first use: defining the nested tensor class turns on the
    `__torch_function__` check of every op, NOTE [ Tensor subclasses ]); clear errors for PyTorch internals."""
    if name in ("distributions", "_dynamo", "compiler", "__config__", "_tensor_str", "ao", "quantization", "fx",
                "nested"):
        import importlib

        from ember.torch._importer import name_classes

        module = importlib.import_module(f"{__name__}.{name}")
        name_classes()  # where `import torch` is ember's, its classes print under PyTorch's paths
        return module
    if name in _NO_CPP:
        raise AttributeError(f"module 'torch' (ember.torch) has no attribute '{name}': {_NO_CPP[name]} is not "
                             "provided by ember; see docs/porting.md")
    try:
        return getattr(_autograd, name)
    except AttributeError:
        raise AttributeError(f"module 'torch' has no attribute '{name}'") from None  # Python's words, as PyTorch's
