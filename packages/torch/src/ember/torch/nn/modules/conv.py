"""`torch.nn.modules.conv`: PyTorch's module path for these ember.nn layers.

Not provided: Conv3d, ConvTranspose3d, LazyConv3d, LazyConvTranspose3d.
"""

from ember.nn.modules.conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d
from ember.nn.modules.conv import _ConvNd  # noqa: F401 - base classes programs subclass
from ember.nn.modules.lazy import LazyConv1d, LazyConv2d, LazyConvTranspose1d, LazyConvTranspose2d
from ember.nn.modules.lazy import _LazyConvXdMixin  # noqa: F401 - base classes programs subclass

__all__ = ["Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "LazyConv1d", "LazyConv2d",
           "LazyConvTranspose1d", "LazyConvTranspose2d"]
