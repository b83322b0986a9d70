"""`torch.nn.modules.instancenorm`: PyTorch's module path for these ember.nn layers.

Not provided: LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d.
"""

from ember.nn.modules.normalization import InstanceNorm1d, InstanceNorm2d
from ember.nn.modules.normalization import _InstanceNorm  # noqa: F401 - base classes programs subclass

__all__ = ["InstanceNorm1d", "InstanceNorm2d"]

from ember.nn.modules.more import InstanceNorm3d  # noqa: E402

__all__ += ["InstanceNorm3d"]
