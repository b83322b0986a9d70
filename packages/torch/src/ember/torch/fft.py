"""`torch.fft`: ember.core's discrete Fourier transforms (differentiable under ember.autograd),
under PyTorch's names only (`ember.core.fft.backend_name` stays ember's)."""

from ember.core import fft as _ns

__all__ = [n for n in _ns.__all__ if n != "backend_name"]
globals().update({n: getattr(_ns, n) for n in __all__})
