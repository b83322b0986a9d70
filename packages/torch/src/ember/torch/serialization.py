"""`torch.serialization`: `save`/`load`, the weights-only allowlist (`add_safe_globals`, `safe_globals`), and the
constants code reads from it."""

from ember.autograd.serialization import (
    add_safe_globals, clear_safe_globals, get_safe_globals, get_unsafe_globals_in_checkpoint, load, safe_globals, save,
)

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals",
           "get_unsafe_globals_in_checkpoint",
           "DEFAULT_PROTOCOL", "SourceChangeWarning"]

DEFAULT_PROTOCOL = 2  # the pickle protocol `save` writes, as PyTorch's


class SourceChangeWarning(Warning):
    """PyTorch's warning that a pickled module's source changed since it was saved (ember never warns it)."""
