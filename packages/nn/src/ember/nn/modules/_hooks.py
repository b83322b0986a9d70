"""`RemovableHandle`: what `register_*_hook` returns; `.remove()` takes the hook out again."""

from __future__ import annotations

import itertools

__all__ = ["RemovableHandle"]


class RemovableHandle:
    """A handle that removes one hook from the dicts it was registered in."""

    _ids = itertools.count()

    def __init__(self, hooks_dict: dict, *, extra_dict: dict | None = None) -> None:
        self.hooks_dicts = [hooks_dict] + ([extra_dict] if extra_dict is not None else [])
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        for d in self.hooks_dicts:
            d.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *args) -> None:
        self.remove()
