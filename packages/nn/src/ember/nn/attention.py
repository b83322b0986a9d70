"""`torch.nn.attention`: the backend selection of scaled_dot_product_attention.

ember has one implementation of `F.scaled_dot_product_attention` (the math one, on either
device), so `sdpa_kernel` checks its argument as PyTorch does and selects nothing; programs that
pick a fused backend run unchanged.
"""

from __future__ import annotations

import contextlib
from enum import IntEnum

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(IntEnum):
    """PyTorch's attention backends (values as PyTorch's)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    """Accept PyTorch's backend choice (an `SDPBackend` or a list of them); ember computes attention one way.

    >>> from ember.nn.attention import SDPBackend, sdpa_kernel
    >>> with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    ...     pass
    """
    if not isinstance(backends, list | SDPBackend):
        raise AssertionError(f"Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
                             f"{type(backends).__name__}")
    yield {}
