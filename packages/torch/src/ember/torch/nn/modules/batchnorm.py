"""`torch.nn.modules.batchnorm`: PyTorch's module path for these ember.nn layers."""

from ember.nn.modules.lazy import LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d
from ember.nn.modules.lazy import _LazyNormBase  # noqa: F401 - base classes programs subclass
from ember.nn.modules.normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, SyncBatchNorm
from ember.nn.modules.normalization import _BatchNorm, _NormBase  # noqa: F401 - base classes programs subclass

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "SyncBatchNorm"]
