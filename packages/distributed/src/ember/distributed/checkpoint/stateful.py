"""`Stateful`: an object DCP saves through its own `state_dict()` and restores through `load_state_dict()`."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["Stateful"]


@runtime_checkable
class Stateful(Protocol):
    """Anything with `state_dict()` and `load_state_dict(sd)` (a module, an optimizer, an app's state)."""

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, state_dict: dict[str, Any]) -> None: ...
