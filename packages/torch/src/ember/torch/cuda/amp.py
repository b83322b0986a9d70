"""`torch.cuda.amp`: the CUDA-defaulting `autocast` and `GradScaler` (deprecated names in PyTorch, still
common in programs); without a GPU both disable themselves with PyTorch's warnings."""

from ember.autograd.amp import CudaGradScaler
from ember.autograd.amp import cuda_autocast as autocast
from ember.autograd.amp import cuda_custom_bwd as custom_bwd
from ember.autograd.amp import cuda_custom_fwd as custom_fwd

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


class GradScaler(CudaGradScaler):
    """`torch.cuda.amp.GradScaler`, whose class is named `GradScaler` as PyTorch's (`type(s).__name__`)."""
