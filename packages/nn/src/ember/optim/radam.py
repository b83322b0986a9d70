"""`torch.optim.radam`: PyTorch's module path for `RAdam`."""

from ember.optim.adam_variants import RAdam

__all__ = ["RAdam"]
