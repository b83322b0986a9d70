"""`torch.backends` for ported programs: the cuDNN/TF32/MPS switches they set, and what is available.

ember has no cuDNN or MPS backend; the flags are kept so that boilerplate such as
`torch.backends.cudnn.benchmark = True` runs unchanged, and `is_available()` tells the truth.
"""

from __future__ import annotations

__all__ = ["cudnn", "cuda", "mps", "mkldnn", "mkl", "openmp"]


class _Cudnn:
    """`torch.backends.cudnn`: ember's convolutions are its own kernels, never cuDNN."""

    enabled = True
    benchmark = False
    deterministic = True  # ember's CPU kernels are deterministic
    allow_tf32 = False

    @staticmethod
    def is_available() -> bool:
        return False

    @staticmethod
    def version() -> None:
        return None


class _Matmul:
    allow_tf32 = False
    allow_fp16_reduced_precision_reduction = False
    allow_bf16_reduced_precision_reduction = False


class _Cuda:
    matmul = _Matmul()

    @staticmethod
    def is_built() -> bool:
        return True


class _Unavailable:
    """A backend ember does not have (MPS, MKL-DNN): `is_available()` is False."""

    enabled = False

    @staticmethod
    def is_available() -> bool:
        return False

    @staticmethod
    def is_built() -> bool:
        return False


class _OpenMP:
    @staticmethod
    def is_available() -> bool:
        return True


cudnn = _Cudnn()
cuda = _Cuda()
mps = _Unavailable()
mkldnn = _Unavailable()
mkl = _Unavailable()
openmp = _OpenMP()
