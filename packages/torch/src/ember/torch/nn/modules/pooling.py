"""`torch.nn.modules.pooling`: PyTorch's module path for these ember.nn layers.

Not provided: MaxPool3d, AvgPool3d, LPPool3d, AdaptiveMaxPool3d, AdaptiveAvgPool3d.
"""

from ember.nn.modules.extra import LPPool1d, LPPool2d
from ember.nn.modules.pooling import (
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool2d, AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d,
)

__all__ = [
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "AvgPool1d", "AvgPool2d", "LPPool1d",
    "LPPool2d", "MaxPool1d", "MaxPool2d"
]

from ember.nn.modules.vision import (  # noqa: E402
    AdaptiveMaxPool1d, FractionalMaxPool2d, FractionalMaxPool3d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d,
)

__all__ += ["AdaptiveMaxPool1d", "FractionalMaxPool2d", "FractionalMaxPool3d", "MaxUnpool1d", "MaxUnpool2d",
            "MaxUnpool3d"]
