"""`torch.serialization`: `save`/`load` and the weights-only allowlist (`add_safe_globals`, `safe_globals`)."""

from ember.autograd.serialization import (
    add_safe_globals, clear_safe_globals, get_safe_globals, load, safe_globals, save,
)

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals"]
