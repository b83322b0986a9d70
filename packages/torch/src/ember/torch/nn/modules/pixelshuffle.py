"""`torch.nn.modules.pixelshuffle`: PyTorch's module path for these ember.nn layers."""

from ember.nn.modules.extra import PixelShuffle, PixelUnshuffle

__all__ = ["PixelShuffle", "PixelUnshuffle"]
