"""`torch.linalg`: the linear-algebra functions ember.core provides (under `ember.autograd.linalg`)."""

from ember.autograd import linalg as _ns

globals().update(vars(_ns))
__all__ = sorted(vars(_ns))
