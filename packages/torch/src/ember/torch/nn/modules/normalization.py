"""`torch.nn.modules.normalization`: PyTorch's module path for these ember.nn layers."""

from ember.nn.modules.extra import RMSNorm
from ember.nn.modules.normalization import GroupNorm, LayerNorm
from ember.nn.modules.vision import CrossMapLRN2d, LocalResponseNorm

__all__ = ["CrossMapLRN2d", "GroupNorm", "LayerNorm", "LocalResponseNorm", "RMSNorm"]
