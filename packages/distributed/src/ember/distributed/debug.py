"""torch.distributed's debug level: `DebugLevel`, read from TORCH_DISTRIBUTED_DEBUG once, settable."""

from __future__ import annotations

import enum
import os

__all__ = ["DebugLevel", "get_debug_level", "set_debug_level", "set_debug_level_from_env"]


class DebugLevel(enum.IntEnum):
    OFF = 0
    INFO = 1
    DETAIL = 2

    def __repr__(self) -> str:
        return f"<DebugLevel.{self.name}: {self.value}>"

    def __str__(self) -> str:
        return f"DebugLevel.{self.name}"


_level = [DebugLevel.OFF]


def get_debug_level() -> DebugLevel:
    return _level[0]


def set_debug_level(level: DebugLevel) -> None:
    _level[0] = DebugLevel(level)


def set_debug_level_from_env() -> None:
    """The level TORCH_DISTRIBUTED_DEBUG names (OFF when unset).

    Raises:
        ValueError: any other value.
    """
    name = os.environ.get("TORCH_DISTRIBUTED_DEBUG", "OFF").upper()
    if name not in DebugLevel.__members__:
        raise ValueError("The value of TORCH_DISTRIBUTED_DEBUG must be OFF, INFO, or DETAIL.")
    _level[0] = DebugLevel[name]


if os.environ.get("TORCH_DISTRIBUTED_DEBUG", "OFF").upper() in DebugLevel.__members__:
    set_debug_level_from_env()
