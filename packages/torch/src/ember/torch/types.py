"""`torch.types`: the aliases PyTorch's annotations use."""

from __future__ import annotations

from typing import Union

from ember.core.device import device as _device
from ember.core.dtypes import dtype as _dtype  # noqa: F401 - PyTorch's torch.types._dtype

Number = Union[int, float, bool]  # noqa: UP007 - a runtime alias, as PyTorch's
Device = Union[_device, str, int, None]  # noqa: UP007
_int = int
_float = float
_bool = bool
_complex = complex

__all__ = ["Number", "Device"]
