"""`torch.nn.modules.channelshuffle`: PyTorch's module path for these ember.nn layers."""

from ember.nn.modules.extra import ChannelShuffle

__all__ = ["ChannelShuffle"]
