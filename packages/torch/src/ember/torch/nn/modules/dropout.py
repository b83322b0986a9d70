"""`torch.nn.modules.dropout`: PyTorch's module path for these ember.nn layers."""

from ember.nn.modules.dropout import AlphaDropout, Dropout, Dropout2d, Dropout3d, FeatureAlphaDropout
from ember.nn.modules.extra import Dropout1d
from ember.nn.modules.dropout import _DropoutNd  # noqa: F401 - base classes programs subclass

__all__ = ["AlphaDropout", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout"]
