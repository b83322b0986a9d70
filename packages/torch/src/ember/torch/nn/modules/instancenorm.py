"""`torch.nn.modules.instancenorm`: PyTorch's module path for these ember.nn layers."""

from ember.nn.modules.lazy import LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d
from ember.nn.modules.normalization import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from ember.nn.modules.normalization import _InstanceNorm  # noqa: F401 - base classes programs subclass

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d"]
