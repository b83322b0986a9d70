"""`torch.nn.modules.linear`: PyTorch's module path for these ember.nn layers.

Not provided: LazyLinear.
"""

from ember.nn.modules.linear import Bilinear, Identity, Linear

__all__ = ["Bilinear", "Identity", "Linear"]
