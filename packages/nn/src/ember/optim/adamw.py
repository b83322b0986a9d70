"""`torch.optim.adamw`: PyTorch's module path for `AdamW`."""

from ember.optim.adam import AdamW

__all__ = ["AdamW"]
