"""ember-autograd: define-by-run reverse-mode autodiff, and the namespace that replaces `torch`.

`import ember.autograd as torch` gives every public name of `ember.core` (tensors, creation
functions, ops, dtypes, devices), with gradient tracking attached to the one `Tensor` type, plus
`torch.autograd`'s API: `Function`, `grad`, `backward`, grad modes, `gradcheck`, anomaly
detection, and `save`/`load`.
"""

import sys as _sys
from types import ModuleType as _ModuleType

import ember.core as _core
from ember.core import Tensor
from ember.core import dispatch as _dispatch
from ember.autograd.grad_mode import (
    enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled,
)
from ember.autograd.grad_mode import is_multithreading_enabled, is_view_replay_enabled, set_multithreading_enabled
from ember.autograd.anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from ember.autograd import anomaly as anomaly_mode  # PyTorch's module name: torch.autograd.anomaly_mode
from ember.autograd.profiler import ProfilerActivity, kineto_available
from ember.core.overrides import handle_torch_function, has_torch_function, is_tensor_like
from ember.autograd.engine import backward, grad
from ember.autograd.graph import Node
from ember.autograd.function import Function, FunctionCtx, once_differentiable
from ember.autograd.fake_quant import fake_quantize_per_channel_affine, fake_quantize_per_tensor_affine
from ember.autograd.fake_quant_learnable import (
    _fake_quantize_learnable_per_channel_affine, _fake_quantize_learnable_per_tensor_affine)
from ember.autograd.histogram import histogram, histogramdd
from ember.autograd.grad_scaler import _amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_
from ember.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from ember.autograd.serialization import load, save
from ember.autograd.checkpoint_io import CheckpointError
from ember.autograd import safetensors
from ember.autograd.safetensors import load_file as load_safetensors, save_file as save_safetensors
from ember.autograd import tensor_api as _tensor_api
from ember.autograd.tensor_api import Variable, detach, is_floating_point, is_nonzero, is_tensor, numel
from ember.autograd.record import computed as _computed, dispatch_hook as _dispatch_hook
from ember.autograd.record import is_inference
from ember.autograd import amp, backends, cuda, forward_ad, functional
from ember.core import fft  # `torch.fft`: the transforms are core ops, their derivatives are here
from ember.core import special  # torch.special, for `import ember.autograd as torch`
from ember.core import masked  # torch.masked: composites of core ops, differentiable here
from ember.autograd import func
from ember.autograd import sparse as _sparse_grad  # noqa: E402, F401 - the derivative of sparse @ dense
from ember.autograd.func import vmap
from ember.autograd.amp import (
    autocast, clear_autocast_cache, get_autocast_cpu_dtype, get_autocast_dtype, get_autocast_gpu_dtype,
    is_autocast_available, is_autocast_cache_enabled, is_autocast_cpu_enabled, is_autocast_enabled,
    set_autocast_cache_enabled, set_autocast_dtype, set_autocast_enabled,
)

_sys.modules[__name__ + ".anomaly_mode"] = anomaly_mode


import ember.autograd.variable  # noqa: E402, F401 - the module (`from torch.autograd.variable import Variable`),
# loaded before the function below takes its name on the package, as in PyTorch


def variable(*args, **kwargs):
    """Removed from PyTorch (`torch.autograd.variable`): raises its RuntimeError naming the replacement."""
    raise RuntimeError("torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead")


_tensor_api.install()
if _dispatch_hook not in _dispatch._hooks:
    _dispatch.register_dispatch_hook(_dispatch_hook)
_dispatch.set_recorder(_computed)

__version__ = "0.3.0"

# `torch.autograd.grad(...)` after `import ember.autograd as torch`: the namespace is its own autograd
autograd = _sys.modules[__name__]

# the torch-like namespace: every public name of ember.core (its `__all__`) that this package does not define
globals().update({_k: getattr(_core, _k) for _k in _core.__all__
                  if _k not in globals() and not isinstance(getattr(_core, _k), _ModuleType)})

# the public API: the names above, and of this package's submodules those under PyTorch's `torch.<name>`
# (less the names PyTorch has under `torch.autograd` only)
_AUTOGRAD_ONLY = ("is_multithreading_enabled", "set_multithreading_enabled", "is_view_replay_enabled",
                  "kineto_available", "handle_torch_function", "has_torch_function", "is_tensor_like",
                  "ProfilerActivity", "variable")
__all__ = [_k for _k, _v in globals().items() if not _k.startswith("_") and _k not in _AUTOGRAD_ONLY and (
    not isinstance(_v, _ModuleType) or _k in ("autograd", "amp", "backends", "cuda", "fft", "func", "functional",
                                              "special", "safetensors"))]

_core.methods.seal_readonly()  # the properties this layer attached (grad_fn, is_leaf ...) refuse as PyTorch's


def __getattr__(name: str):
    """Names that ember.core gains after this package was imported (lazily added ops)."""
    if not name.startswith("__"):
        try:
            return getattr(_core, name)
        except AttributeError:
            pass
    raise AttributeError(f"module 'ember.autograd' has no attribute '{name}'")
