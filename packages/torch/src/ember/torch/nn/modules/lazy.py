"""`torch.nn.modules.lazy`: PyTorch's module path for `LazyModuleMixin`."""

from ember.nn.modules.lazy import LazyModuleMixin

__all__ = ["LazyModuleMixin"]
