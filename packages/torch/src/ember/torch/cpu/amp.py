"""`torch.cpu.amp`: the CPU-defaulting `autocast` (bfloat16) and `GradScaler`."""

from ember.autograd.amp import CpuGradScaler as GradScaler
from ember.autograd.amp import cpu_autocast as autocast

__all__ = ["autocast", "GradScaler"]
