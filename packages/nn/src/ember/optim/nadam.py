"""`torch.optim.nadam`: PyTorch's module path for `NAdam`."""

from ember.optim.adam_variants import NAdam

__all__ = ["NAdam"]
