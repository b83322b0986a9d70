"""`torch.nn.modules.upsampling`: PyTorch's module path for these ember.nn layers."""

from ember.nn.modules.extra import UpsamplingBilinear2d, UpsamplingNearest2d
from ember.nn.modules.upsampling import Upsample

__all__ = ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"]
