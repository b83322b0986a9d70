"""`torch.nn.modules.fold`: PyTorch's module path for these ember.nn layers."""

from ember.nn.modules.extra import Fold, Unfold

__all__ = ["Fold", "Unfold"]
