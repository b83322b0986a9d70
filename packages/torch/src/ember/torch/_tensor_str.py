"""`torch._tensor_str`: `PRINT_OPTS`, the options `set_printoptions` set, which code reads (and sets) as attributes
to save and restore them; `get_printoptions` and the `printoptions` context manager do the same as a dict."""

import contextlib

from ember.core import printing
from ember.core.printing import set_printoptions

__all__ = ["PRINT_OPTS", "get_printoptions", "printoptions", "set_printoptions"]

_FIELDS = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")


class _PrinterOptions:
    """A view of ember's print options with PyTorch's attribute names."""

    def __getattr__(self, name: str):
        if name in _FIELDS:
            return printing._options[name]
        raise AttributeError(f"'__PrinterOptions' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        if name not in _FIELDS:
            raise AttributeError(f"'__PrinterOptions' object has no attribute '{name}'")
        printing._options[name] = value

    @property
    def __dict__(self) -> dict:
        return {k: printing._options[k] for k in _FIELDS}

    def __repr__(self) -> str:  # PyTorch's is a dataclass named __PrinterOptions
        return "__PrinterOptions(" + ", ".join(f"{k}={printing._options[k]!r}" for k in _FIELDS) + ")"


PRINT_OPTS = _PrinterOptions()


def get_printoptions() -> dict:
    """The current print options, as keyword arguments `set_printoptions` takes back."""
    return {k: printing._options[k] for k in _FIELDS}


@contextlib.contextmanager
def printoptions(**kwargs):
    """Print with `set_printoptions(**kwargs)` inside the block, the options before it after."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)
