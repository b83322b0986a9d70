"""`RemovableHandle`: what `register_*_hook` returns; `.remove()` takes the hook out again."""

from __future__ import annotations

import itertools
import weakref

__all__ = ["RemovableHandle"]


class RemovableHandle:
    """A handle that removes one hook from the dicts it was registered in."""

    _ids = itertools.count()

    def __init__(self, hooks_dict: dict, *, extra_dict: dict | None = None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._ids)
        self.extra_dict_ref = weakref.ref(extra_dict) if extra_dict is not None else None

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref, self.extra_dict_ref):
            d = ref() if ref is not None else None
            if d is not None and self.id in d:
                del d[self.id]

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *args) -> None:
        self.remove()
