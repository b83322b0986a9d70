"""`torch.quasirandom`: `SobolEngine`."""

from ember.core.quasirandom import SobolEngine

__all__ = ["SobolEngine"]
