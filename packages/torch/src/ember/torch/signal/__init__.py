"""`torch.signal`: the window functions of `torch.signal.windows`."""

from ember.torch.signal import windows

__all__ = ["windows"]
