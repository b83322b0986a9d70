"""`torch.utils.hooks`: `RemovableHandle`, the one class every `register_*_hook` returns."""

from ember.autograd.graph import RemovableHandle

__all__ = ["RemovableHandle"]
