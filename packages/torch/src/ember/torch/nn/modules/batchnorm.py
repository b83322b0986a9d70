"""`torch.nn.modules.batchnorm`: PyTorch's module path for these ember.nn layers.

Not provided: LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d.
"""

from ember.nn.modules.normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d
from ember.nn.modules.normalization import _BatchNorm  # noqa: F401 - base classes programs subclass

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d"]

from ember.nn.modules.more import SyncBatchNorm  # noqa: E402

__all__ += ["SyncBatchNorm"]
