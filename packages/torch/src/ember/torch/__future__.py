"""`torch.__future__`: the flags that choose how `nn.Module.to()`/`_apply` converts parameters (ember keeps them
in ember.nn's Module)."""

from ember.nn.modules.module import CONVERSION_FLAGS as _FLAGS

__all__ = ["set_overwrite_module_params_on_conversion", "get_overwrite_module_params_on_conversion",
           "set_swap_module_params_on_conversion", "get_swap_module_params_on_conversion"]


def set_overwrite_module_params_on_conversion(value: bool) -> None:
    """True: converting a module (`.to(dtype)`, `.double()`) replaces each parameter with a new Parameter object
    instead of changing the existing one's data."""
    _FLAGS[0] = value


def get_overwrite_module_params_on_conversion() -> bool:
    """Whether module conversion replaces parameter objects (default False)."""
    return _FLAGS[0]


def set_swap_module_params_on_conversion(value: bool) -> None:
    """True: module conversion swaps each parameter's contents in place (`swap_tensors`), keeping the object; it
    takes precedence over the overwrite flag."""
    _FLAGS[1] = value


def get_swap_module_params_on_conversion() -> bool:
    """Whether module conversion swaps parameters in place (default False)."""
    return _FLAGS[1]
