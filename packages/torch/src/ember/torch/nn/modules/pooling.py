"""`torch.nn.modules.pooling`: PyTorch's module path for these ember.nn layers."""

from ember.nn.modules.extra import LPPool1d, LPPool2d, LPPool3d
from ember.nn.modules.extra import _LPPoolNd  # noqa: F401 - the base class programs test with isinstance
from ember.nn.modules.pooling import (
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d,
    AvgPool1d, AvgPool2d, AvgPool3d, MaxPool1d, MaxPool2d, MaxPool3d,
)
from ember.nn.modules.pooling import (  # noqa: F401 - base classes programs test with isinstance
    _AdaptiveAvgPoolNd, _AdaptiveMaxPoolNd, _AvgPoolNd, _MaxPoolNd,
)
from ember.nn.modules.vision import FractionalMaxPool2d, FractionalMaxPool3d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d

__all__ = [
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "LPPool1d", "LPPool2d", "LPPool3d", "MaxPool1d",
    "MaxPool2d", "MaxPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
]
