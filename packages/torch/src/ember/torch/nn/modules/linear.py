"""`torch.nn.modules.linear`: PyTorch's module path for these ember.nn layers."""

from ember.nn.modules.lazy import LazyLinear
from ember.nn.modules.linear import Bilinear, Identity, Linear
from ember.nn.modules.transformer import NonDynamicallyQuantizableLinear as NonDynamicallyQuantizableLinear

__all__ = ["Bilinear", "Identity", "LazyLinear", "Linear"]
