"""`torch.fft`: ember.core's discrete Fourier transforms (differentiable under ember.autograd)."""

from ember.core import fft as _ns
from ember.core.fft import *  # noqa: F403

__all__ = list(_ns.__all__)
