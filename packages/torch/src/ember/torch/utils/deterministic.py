"""`torch.utils.deterministic`: `fill_uninitialized_memory` (default True), whether `empty` and its kin fill new
memory with NaN or an integer's largest value while `torch.use_deterministic_algorithms(True)` is in force."""

import sys
import types

from ember.core import settings as _settings

__all__ = ["fill_uninitialized_memory"]  # noqa: F822 - a property of the module's class


class _Deterministic(types.ModuleType):
    """The module, with `fill_uninitialized_memory` a property that reads and sets ember's flag."""

    @property
    def fill_uninitialized_memory(self) -> bool:
        """Whether new memory is filled under deterministic algorithms."""
        return _settings._fill_uninitialized

    @fill_uninitialized_memory.setter
    def fill_uninitialized_memory(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise RuntimeError(f"expected a bool, but got {type(mode).__name__}")
        _settings._fill_uninitialized = mode


sys.modules[__name__].__class__ = _Deterministic
