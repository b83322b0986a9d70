"""`torch.nn.modules.dropout`: PyTorch's module path for these ember.nn layers."""

from ember.nn.modules.dropout import Dropout, Dropout2d
from ember.nn.modules.extra import Dropout1d
from ember.nn.modules.dropout import _DropoutNd  # noqa: F401 - base classes programs subclass

__all__ = ["Dropout", "Dropout1d", "Dropout2d"]

from ember.nn.modules.more import AlphaDropout, Dropout3d, FeatureAlphaDropout  # noqa: E402

__all__ += ["AlphaDropout", "FeatureAlphaDropout", "Dropout3d"]
