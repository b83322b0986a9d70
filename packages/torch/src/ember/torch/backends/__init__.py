"""`torch.backends`: the switches of ember.autograd.backends under PyTorch's module paths, so that
`import torch.backends.cudnn as cudnn` works and `cudnn.benchmark = True` sets the one shared flag."""

from ember.autograd import backends as _backends
from ember.core import fp32_precision as _fp32
from ember.autograd.backends import cuda, cudnn, mha, mkl, mkldnn, mps, openmp, opt_einsum

import sys as _sys
import types as _types



def _get_cpu_capability() -> str:
    """The widest vector instructions this CPU runs, in PyTorch's words ("AVX512", "AVX2", "DEFAULT"), from the
    features numpy detected at start-up."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:
        return "DEFAULT"
    if features.get("AVX512F") and features.get("AVX512BW") and features.get("AVX512VL") and features.get("AVX512DQ"):
        return "AVX512"
    return "AVX2" if features.get("AVX2") else "DEFAULT"


cpu = _types.ModuleType(f"{__name__}.cpu", "`torch.backends.cpu`: what the CPU's vector units give.")
cpu.get_cpu_capability = _get_cpu_capability

# each switch object stands as its own submodule, as PyTorch's do
for _name in ("cudnn", "cuda", "mps", "mkldnn", "mkl", "openmp", "mha", "opt_einsum"):
    _sys.modules[f"{__name__}.{_name}"] = getattr(_backends, _name)
_sys.modules[cpu.__name__] = cpu

__all__ = ["cpu", "cudnn", "cuda", "mps", "mkldnn", "mkl", "openmp", "mha", "opt_einsum"]


class _BackendsModule(_types.ModuleType):
    """This module, with PyTorch's module-level `torch.backends.fp32_precision` (the generic entry of the float32
    precision table, ember.core.fp32_precision: setting it sets every backend's)."""

    @property
    def fp32_precision(self) -> str:
        return _fp32.get_precision("generic", "all")

    @fp32_precision.setter
    def fp32_precision(self, value: str) -> None:
        _fp32.set_precision("generic", "all", value)


_sys.modules[__name__].__class__ = _BackendsModule
