"""`torch.amp.autocast_mode`: PyTorch's module path for `autocast`."""

from ember.autograd.amp import autocast, custom_bwd, custom_fwd, is_autocast_available

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]
