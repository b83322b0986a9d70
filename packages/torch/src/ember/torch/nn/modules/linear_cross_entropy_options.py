"""`torch.nn.modules.linear_cross_entropy_options`: PyTorch's module path for the options class."""

from ember.nn.modules.linear_cross_entropy import LinearCrossEntropyOptions

__all__ = ["LinearCrossEntropyOptions"]
