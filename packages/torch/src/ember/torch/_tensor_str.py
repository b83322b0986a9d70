"""`torch._tensor_str`: `PRINT_OPTS`, the options `set_printoptions` set, which code reads (and sets) as attributes
to save and restore them."""

from ember.core import printing

__all__ = ["PRINT_OPTS"]

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


PRINT_OPTS = _PrinterOptions()
