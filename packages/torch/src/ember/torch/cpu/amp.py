"""`torch.cpu.amp`: the CPU-defaulting `autocast` (bfloat16) and `GradScaler`."""

from ember.autograd.amp import CpuGradScaler
from ember.autograd.amp import cpu_autocast as autocast

__all__ = ["autocast", "GradScaler"]


class GradScaler(CpuGradScaler):
    """`torch.cpu.amp.GradScaler`, whose class is named `GradScaler` as PyTorch's (`type(s).__name__`)."""
