"""`torch.amp`: `autocast` and `GradScaler`.

ember has no bfloat16 and no mixed-precision kernels: under `autocast` every op computes in the
dtype of its inputs (float32 results where PyTorch would give float16/bfloat16 ones), which is
PyTorch's behaviour with autocast disabled. `GradScaler` implements loss scaling as PyTorch does
(it is exact arithmetic on the gradients); for a CUDA device that is not available it disables
itself with PyTorch's warning and passes everything through.
"""

from ember.torch.amp.autocast_mode import (
    autocast, custom_bwd, custom_fwd, get_autocast_dtype, is_autocast_available, is_autocast_enabled,
)
from ember.torch.amp.grad_scaler import GradScaler

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available", "GradScaler"]
