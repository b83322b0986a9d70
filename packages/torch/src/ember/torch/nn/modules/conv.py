"""`torch.nn.modules.conv`: PyTorch's module path for these ember.nn layers.

"""

from ember.nn.modules.conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ember.nn.modules.conv import _ConvNd, _ConvTransposeNd  # noqa: F401 - base classes programs subclass
from ember.nn.modules.lazy import (LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d,
                                   LazyConvTranspose3d)
from ember.nn.modules.lazy import _LazyConvXdMixin  # noqa: F401 - base classes programs subclass

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "LazyConv1d",
           "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d"]
