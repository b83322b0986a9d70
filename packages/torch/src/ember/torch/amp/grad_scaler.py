"""`torch.amp.grad_scaler`: PyTorch's module path for `GradScaler`."""

from ember.autograd.amp import GradScaler

__all__ = ["GradScaler"]
