"""`torch.optim.adamax`: PyTorch's module path for `Adamax`."""

from ember.optim.adam_variants import Adamax

__all__ = ["Adamax"]
