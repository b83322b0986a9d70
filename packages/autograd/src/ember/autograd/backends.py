"""`torch.backends` for ported programs: the cuDNN/TF32/MPS switches they set, and what is available.

ember has no cuDNN or MPS backend; the flags are kept so that boilerplate such as
`torch.backends.cudnn.benchmark = True` runs unchanged, and `is_available()` tells the truth.
"""

from __future__ import annotations

import contextlib
import functools
import warnings

from ember.core import fp32_precision, settings
from ember.core import fp32_precision as _precision_table  # `flags` has a parameter named fp32_precision

__all__ = ["cudnn", "cuda", "mps", "mkldnn", "mkl", "openmp", "mha", "opt_einsum"]


class _FP32Precision:
    """`torch.backends.<backend>.<op>` (`cuda.matmul`, `cudnn.conv`, `mkldnn.rnn` ...): its `fp32_precision`.
    Like PyTorch's, it refuses to set or read an attribute it does not have ("Unknown attribute foo")."""

    def __init__(self, backend: str, op: str) -> None:
        self._key = (backend, op)

    def __setattr__(self, name: str, value) -> None:
        if not name.startswith("_") and not hasattr(type(self), name):
            raise AttributeError(f"Unknown attribute {name}")
        super().__setattr__(name, value)

    def __getattr__(self, name: str):
        raise AttributeError(f"Unknown attribute {name}")

    @property
    def fp32_precision(self) -> str:
        return fp32_precision.get_precision(*self._key)

    @fp32_precision.setter
    def fp32_precision(self, value: str) -> None:
        fp32_precision.set_precision(*self._key, value)


class _CudnnRnn(_FP32Precision):
    """`torch.backends.cudnn.rnn`: a module in PyTorch, which takes any attribute."""

    __setattr__ = object.__setattr__

    def __getattr__(self, name: str):
        raise AttributeError(f"module 'torch.backends.cudnn.rnn' has no attribute '{name}'")


class _Cudnn:
    """`torch.backends.cudnn`: ember's convolutions are its own kernels, never cuDNN. `allow_tf32` and
    `fp32_precision` share the float32 precision table (ember.core.fp32_precision) with `conv` and `rnn`."""

    enabled = True
    benchmark = False
    deterministic = False  # PyTorch's defaults (ember's kernels are deterministic whatever they say)
    benchmark_limit = None  # PyTorch reads it from cuDNN, None where cuDNN is unavailable
    depthwise_kernel = "auto"
    conv = _FP32Precision("cuda", "conv")
    rnn = _CudnnRnn("cuda", "rnn")

    def set_flags(self, _enabled=None, _benchmark=None, _benchmark_limit=None, _deterministic=None, _allow_tf32=None,
                  _fp32_precision="none", _depthwise_kernel=None) -> tuple:
        """Set the given switches (None leaves one as it is) and return the previous ones, in this order. A
        precision of "none" leaves the float32 precision table as it is (what PyTorch's does from its defaults)."""
        orig = (self.enabled, self.benchmark, self.benchmark_limit, self.deterministic, self.allow_tf32,
                self.fp32_precision, self.depthwise_kernel)
        if _enabled is not None:
            self.enabled = _enabled
        if _benchmark is not None:
            self.benchmark = _benchmark
        if _deterministic is not None:
            self.deterministic = _deterministic
        if _allow_tf32 is not None:
            self.allow_tf32 = _allow_tf32
        if _fp32_precision not in (None, "none"):
            self.fp32_precision = _fp32_precision
        if _depthwise_kernel is not None:
            self.depthwise_kernel = _depthwise_kernel
        return orig

    @contextlib.contextmanager
    def flags(self, enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True,
              fp32_precision="none", depthwise_kernel="auto"):
        """Every switch set for the block (PyTorch's defaults for those not given), all put back after: the idiom
        of gradient-penalty code that turns cuDNN off around a double backward."""
        table = _precision_table.snapshot()
        orig = self.set_flags(enabled, benchmark, benchmark_limit, deterministic, allow_tf32, fp32_precision,
                              depthwise_kernel)
        try:
            yield
        finally:
            self.enabled, self.benchmark, _, self.deterministic, _, _, self.depthwise_kernel = orig
            _precision_table.restore(table)

    @property
    def allow_tf32(self) -> bool:
        return fp32_precision.cudnn_allow_tf32()

    @allow_tf32.setter
    def allow_tf32(self, value: bool) -> None:
        fp32_precision.set_cudnn_allow_tf32(value)

    @property
    def fp32_precision(self) -> str:
        return fp32_precision.get_precision("cuda", "all")

    @fp32_precision.setter
    def fp32_precision(self, value: str) -> None:
        fp32_precision.set_precision("cuda", "all", value)

    @staticmethod
    def is_available() -> bool:
        return False

    @staticmethod
    def version() -> None:
        return None


class _Matmul(_FP32Precision):
    """`torch.backends.cuda.matmul`. `allow_tf32` is a view of `torch.get_float32_matmul_precision()`, as in
    PyTorch: True for "high"/"medium"; setting it picks "high" or "highest" (and the TF32 entry of the new API's
    table, whose disagreement with it PyTorch's getter refuses)."""

    allow_fp16_reduced_precision_reduction = True  # PyTorch's defaults
    allow_bf16_reduced_precision_reduction = True

    def __init__(self) -> None:
        super().__init__("cuda", "matmul")

    @property
    def allow_tf32(self) -> bool:
        return fp32_precision.cublas_allow_tf32(settings._matmul_precision)

    @allow_tf32.setter
    def allow_tf32(self, value: bool) -> None:
        mkldnn = fp32_precision.get_precision("mkldnn", "matmul")  # PyTorch's legacy setter leaves it
        settings.set_float32_matmul_precision("high" if value else "highest")
        fp32_precision.set_precision("mkldnn", "matmul", mkldnn)
        fp32_precision.set_cublas_allow_tf32(value)


_SDP_KERNEL_DEPRECATED = ("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager "
                          "will be removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, "
                          "with updated signature.")


def _warns_when_made(fn):
    """`fn` (a generator function under contextlib.contextmanager) warning PyTorch's deprecation when the block is
    made, not entered, from contextlib's line that calls it (stacklevel 2), as PyTorch's `deprecated` decorator."""
    @functools.wraps(fn)
    def made(*args, **kwargs):
        warnings.warn(_SDP_KERNEL_DEPRECATED, FutureWarning, stacklevel=2)
        return fn(*args, **kwargs)
    return made


class _Cuda:
    """`torch.backends.cuda`: the TF32 switches and the scaled-dot-product-attention backend switches. As in
    PyTorch these are the process's one record of the enabled backends (`torch.nn.attention.sdpa_kernel` sets the
    same switches), and the CPU's attention honours the flash and math ones."""

    matmul = _Matmul()
    _sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True, "overrideable": True}

    @staticmethod
    def is_built() -> bool:
        return True

    def flash_sdp_enabled(self) -> bool:
        return self._sdp["flash"]

    def mem_efficient_sdp_enabled(self) -> bool:
        return self._sdp["mem_efficient"]

    def math_sdp_enabled(self) -> bool:
        return self._sdp["math"]

    def cudnn_sdp_enabled(self) -> bool:
        return self._sdp["cudnn"]

    def enable_flash_sdp(self, enabled: bool) -> None:
        self._sdp["flash"] = bool(enabled)

    def enable_mem_efficient_sdp(self, enabled: bool) -> None:
        self._sdp["mem_efficient"] = bool(enabled)

    def enable_math_sdp(self, enabled: bool) -> None:
        self._sdp["math"] = bool(enabled)

    def enable_cudnn_sdp(self, enabled: bool) -> None:
        self._sdp["cudnn"] = bool(enabled)

    @contextlib.contextmanager
    @_warns_when_made
    def sdp_kernel(self, enable_flash: bool = True, enable_math: bool = True, enable_mem_efficient: bool = True,
                   enable_cudnn: bool = True):
        """The deprecated context manager: sets the four switches inside the block and restores them after."""
        saved = dict(self._sdp)
        self._sdp.update(flash=bool(enable_flash), math=bool(enable_math), mem_efficient=bool(enable_mem_efficient),
                         cudnn=bool(enable_cudnn), overrideable=False)  # PyTorch's goes through sdpa_kernel
        try:
            yield
        finally:
            self._sdp.update(saved)


class _Unavailable:
    """A backend ember does not have (MPS, MKL-DNN): `is_available()` is False."""

    enabled = False

    @staticmethod
    def is_available() -> bool:
        return False

    @staticmethod
    def is_built() -> bool:
        return False


class _Mha:
    """`torch.backends.mha`: the switch of the Transformer encoder's inference fast path (its nested-tensor
    output zeroes padded positions, which ember reproduces)."""

    _enabled = True

    def get_fastpath_enabled(self) -> bool:
        return self._enabled

    def set_fastpath_enabled(self, value: bool) -> None:
        type(self)._enabled = bool(value)


class _OpenMP:
    @staticmethod
    def is_available() -> bool:
        return True


class _OptEinsum:
    """`torch.backends.opt_einsum`: ember's einsum contracts its operands left to right, as PyTorch's does
    without the opt-einsum package, so the path optimizer is reported unavailable. As in PyTorch then, `enabled`
    and `strategy` are plain attributes (an assignment is kept, unchecked); `set_flags`/`flags` check, refuse
    to enable it, and write the module's value (the class's here), which an assignment to the object shadows."""

    enabled = False
    strategy = None

    @staticmethod
    def is_available() -> bool:
        return False

    @staticmethod
    def get_opt_einsum() -> None:
        return None

    def set_flags(self, _enabled=None, _strategy=None) -> tuple:
        """Set `enabled` and `strategy` (None: leave it); returns the flags before, as PyTorch's."""
        before = (type(self).enabled, None)
        if _enabled is not None:
            if _enabled:
                raise ValueError(f"opt_einsum is not available, so setting `enabled` to {_enabled} will not reap "
                                 "the benefits of calculating an optimal path for einsum. torch.einsum will fall "
                                 "back to contracting from left to right. To enable this optimal path "
                                 "calculation, please install opt-einsum.")
            type(self).enabled = _enabled
        if _strategy is not None:
            raise ValueError(f"opt_einsum is not available, so setting `strategy` to {_strategy} will not be "
                             "meaningful. torch.einsum will bypass path calculation and simply contract from left "
                             "to right. Please install opt_einsum or unset `strategy`.")
        return before

    @contextlib.contextmanager
    def flags(self, enabled=None, strategy=None):
        """The flags set inside the block, restored after."""
        before = self.set_flags(enabled, strategy)
        try:
            yield
        finally:
            self.set_flags(*before)


class _Mkldnn(_Unavailable):
    """`torch.backends.mkldnn`: ember has no oneDNN (unavailable), but the float32 precision switches are kept:
    `matmul`, `conv`, `rnn`, and `fp32_precision`, which reads the backend's entry and, as PyTorch 2.13's, writes
    the generic one."""

    matmul = _FP32Precision("mkldnn", "matmul")
    conv = _FP32Precision("mkldnn", "conv")
    rnn = _FP32Precision("mkldnn", "rnn")

    @property
    def fp32_precision(self) -> str:
        return fp32_precision.get_precision("mkldnn", "all")

    @fp32_precision.setter
    def fp32_precision(self, value: str) -> None:
        fp32_precision.set_precision("generic", "all", value)


cudnn = _Cudnn()
cuda = _Cuda()
mps = _Unavailable()
mkldnn = _Mkldnn()
mkl = _Unavailable()
openmp = _OpenMP()
mha = _Mha()
opt_einsum = _OptEinsum()
