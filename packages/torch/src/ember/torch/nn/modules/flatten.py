"""`torch.nn.modules.flatten`: PyTorch's module path for these ember.nn layers."""

from ember.nn.modules.linear import Flatten, Unflatten

__all__ = ["Flatten", "Unflatten"]
