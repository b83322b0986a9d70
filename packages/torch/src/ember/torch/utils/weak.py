"""`torch.utils.weak`: dictionaries keyed by object identity that do not keep their keys alive. A tensor's `==`
is elementwise and its hash is its id, so `weakref.WeakKeyDictionary` cannot hold tensors; library code (optimizer
state trackers, caches of per-tensor metadata) uses `WeakTensorKeyDictionary` instead."""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Mapping, MutableMapping

from ember.core import Tensor

__all__ = ["TensorWeakRef", "WeakIdRef", "WeakIdKeyDictionary", "WeakTensorKeyDictionary"]


class WeakIdRef(weakref.ref):
    """A weak reference that hashes and compares by its referent's identity (equal to another while both
    referents live and are the same object; after that, only to itself)."""

    __slots__ = ["_id"]

    def __init__(self, key, callback=None) -> None:
        self._id = id(key)
        super().__init__(key, callback)

    def __hash__(self) -> int:
        return self._id

    def __eq__(self, other) -> bool:
        a, b = self(), other()
        if a is not None and b is not None:
            return a is b
        return self is other


class WeakIdKeyDictionary(MutableMapping):
    """A mapping from objects (compared by identity) to values; an entry goes when its key is collected."""

    def __init__(self, dict=None, ref_type=WeakIdRef) -> None:  # noqa: A002 - PyTorch's argument name
        self.data: dict = {}
        self.ref_type = ref_type
        owner = weakref.ref(self)

        def remove(ref) -> None:
            me = owner()
            if me is not None:
                me.data.pop(ref, None)

        self._remove = remove
        if dict is not None:
            self.update(dict)

    def __getitem__(self, key):
        return self.data[self.ref_type(key)]

    def __setitem__(self, key, value) -> None:
        self.data[self.ref_type(key, self._remove)] = value

    def __delitem__(self, key) -> None:
        del self.data[self.ref_type(key)]

    def __contains__(self, key) -> bool:
        try:
            ref = self.ref_type(key)
        except TypeError:
            return False
        return ref in self.data

    def __iter__(self) -> Iterator:
        for ref in list(self.data):
            obj = ref()
            if obj is not None:
                yield obj

    def __len__(self) -> int:
        return sum(1 for ref in list(self.data) if ref() is not None)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} at {id(self):#x}>"

    def copy(self) -> WeakIdKeyDictionary:
        return type(self)({k: v for k, v in self.items()}, ref_type=self.ref_type)

    __copy__ = copy

    def __eq__(self, other) -> bool:
        if not isinstance(other, Mapping):
            return NotImplemented
        return {id(k): v for k, v in self.items()} == {id(k): v for k, v in other.items()}

    __hash__ = None


WeakTensorKeyDictionary = WeakIdKeyDictionary


class TensorWeakRef:
    """A weak reference to a tensor; calling it gives the tensor, or None once it is collected."""

    def __init__(self, tensor: Tensor) -> None:
        if not isinstance(tensor, Tensor):
            raise AssertionError(f"expected torch.Tensor, got {type(tensor)}.")
        self.ref = weakref.ref(tensor)

    def __call__(self) -> Tensor | None:
        return self.ref()
