"""`torch.amp`: mixed precision, ember-autograd's: `autocast` (a dispatch hook that runs PyTorch's op
lists in bfloat16/float16 or float32 while a region is active) and `GradScaler` (dynamic loss scaling)."""

from ember.autograd.amp import (
    GradScaler, autocast, custom_bwd, custom_fwd, get_autocast_dtype, is_autocast_available, is_autocast_enabled,
)

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available", "GradScaler"]
