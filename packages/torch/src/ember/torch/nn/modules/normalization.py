"""`torch.nn.modules.normalization`: PyTorch's module path for these ember.nn layers.

Not provided: LocalResponseNorm, CrossMapLRN2d.
"""

from ember.nn.modules.extra import RMSNorm
from ember.nn.modules.normalization import GroupNorm, LayerNorm

__all__ = ["GroupNorm", "LayerNorm", "RMSNorm"]
