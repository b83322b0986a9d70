"""`torch.utils.hooks`: `RemovableHandle`, the one class every `register_*_hook` returns, and the marker for hooks
that a saved tensor does not keep."""

from ember.autograd.graph import RemovableHandle
from ember.autograd.tensor_api import warn_if_has_hooks

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks"]


def unserializable_hook(f):
    """Mark `f` as a hook that is not saved with its tensor (PyTorch's marker; ember never saves hooks)."""
    f.__torch_unserializable__ = True
    return f

