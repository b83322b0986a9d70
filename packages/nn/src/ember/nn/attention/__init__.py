"""`torch.nn.attention`: the `SDPBackend` names and the `sdpa_kernel` context manager (and the
`flex_attention` and `bias` submodules).

ember has one implementation of `scaled_dot_product_attention` (the math one, on every device), so
selecting backends changes nothing about how attention is computed; the context manager checks its
arguments as PyTorch does and records the selection for `_current_backends()`.
"""

from __future__ import annotations

import contextlib
import enum

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    """The backends of scaled dot product attention, with PyTorch's values."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __str__(self) -> str:
        return f"SDPBackend.{self.name}"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


_ALL = [SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH,
        SDPBackend.OVERRIDEABLE]
_enabled: list[SDPBackend] = list(_ALL)


def _current_backends() -> list[SDPBackend]:
    """The backends the innermost `sdpa_kernel` selected (all of them outside one)."""
    return list(_enabled)


@contextlib.contextmanager
def sdpa_kernel(backends: list[SDPBackend] | SDPBackend, set_priority: bool = False):
    """Select the attention backends inside the `with` block (restored on exit)."""
    global _enabled
    if not isinstance(backends, list | SDPBackend):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
                             f"{type(backends).__name__}")
    if isinstance(backends, SDPBackend):
        backends = [backends]
    previous = _enabled
    _enabled = list(dict.fromkeys(backends))
    try:
        yield {}
    finally:
        _enabled = previous


from ember.nn.attention import bias, flex_attention  # noqa: E402 - the submodules, as torch.nn.attention's
