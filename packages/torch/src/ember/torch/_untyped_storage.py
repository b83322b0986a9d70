"""`torch.UntypedStorage` and `torch.StorageBase`: PyTorch's byte storage, over ember's core `Storage`.

NOTE [ nbytes, attribute and method ]: core's `Storage.nbytes` is an int slot that core reads on hot
paths; PyTorch's `UntypedStorage.nbytes()` is a method. `UntypedStorage` is a slot-less subclass whose
`nbytes` reads the same slot and returns an int that can also be called, so both spellings work on
it. `Tensor.untyped_storage()` hands out the tensor's own storage object, re-classed to
`UntypedStorage` the first time (same object, same memory, still a `Storage` to core).
"""

from __future__ import annotations

import numpy as np

import ember.autograd as _ag
from ember.core import sharing
from ember.core.device import device as _device
from ember.core.methods import attach
from ember.core.storage import Storage

__all__ = ["UntypedStorage", "StorageBase"]

StorageBase = Storage  # PyTorch's base class of every byte storage: every ember storage is one
_NBYTES = Storage.nbytes  # the core slot's descriptor


class _NBytes(int):
    """A byte count that PyTorch code may also call: `storage.nbytes()`."""

    __slots__ = ()

    def __call__(self) -> int:
        return int(self)


class UntypedStorage(Storage):
    """`nbytes` bytes on one device: `UntypedStorage(n, device=None)` allocates (uninitialised), or
    `UntypedStorage(sequence of bytes)`; `Tensor.untyped_storage()` returns a tensor's own."""

    __slots__ = ()

    def __new__(cls, *args, device=None) -> UntypedStorage:
        data = args[0] if args else 0
        if isinstance(data, int):
            t = _ag.empty(data, dtype=_ag.uint8, device=device)
        else:
            t = _ag.tensor(list(data), dtype=_ag.uint8, device=device)
        return _adopt(t._storage)

    def __init__(self, *args, device=None) -> None:
        """Made by `__new__`: a new tensor's storage, adopted."""

    @property
    def nbytes(self) -> _NBytes:
        return _NBytes(_NBYTES.__get__(self))

    @nbytes.setter
    def nbytes(self, value: int) -> None:
        _NBYTES.__set__(self, int(value))

    def size(self) -> int:
        return _NBYTES.__get__(self)

    def __len__(self) -> int:
        return _NBYTES.__get__(self)

    def element_size(self) -> int:
        return 1

    def _bytes_tensor(self):
        """The storage's bytes as a uint8 tensor over the same memory."""
        from ember.core.tensor import Tensor

        n = _NBYTES.__get__(self)
        return Tensor._make(self, 0, (n,), (1,), _ag.uint8)

    def tolist(self) -> list[int]:
        return self._bytes_tensor().tolist()

    def __getitem__(self, i):
        """A byte, or for a slice (step 1) a storage over the same bytes (a copy on CUDA)."""
        if isinstance(i, slice):
            start, stop, step = i.indices(_NBYTES.__get__(self))
            if step != 1:
                raise RuntimeError(f"Trying to slice with a step of {step}, but only a step of 1 is supported")
            if self.device.type != "cpu":
                return _adopt(self._bytes_tensor()[i].clone()._storage)
            stop = max(start, stop)
            return _adopt(Storage.wrap_cpu(self.root.data[start:stop]))
        return int(self._bytes_tensor()[i].item())

    def __setitem__(self, i, value) -> None:
        self._bytes_tensor()[i] = value

    def __iter__(self):
        return iter(self.tolist())

    def fill_(self, value: int) -> UntypedStorage:
        self._bytes_tensor().fill_(value)
        return self

    def copy_(self, source: Storage, non_blocking: bool = False) -> UntypedStorage:
        if _NBYTES.__get__(source) != _NBYTES.__get__(self):
            raise RuntimeError(f"size does not match, self was {_NBYTES.__get__(self)} bytes but src was "
                               f"{_NBYTES.__get__(source)} bytes")
        self._bytes_tensor().copy_(_adopt(source)._bytes_tensor())
        return self

    def clone(self) -> UntypedStorage:
        return _adopt(self._bytes_tensor().clone()._storage)

    def to(self, device=None, non_blocking: bool = False) -> UntypedStorage:
        d = _device(device)
        return self if d == self.device else _adopt(self._bytes_tensor().to(d)._storage)

    def cpu(self) -> UntypedStorage:
        return self.to("cpu")

    def cuda(self, device=None, non_blocking: bool = False) -> UntypedStorage:
        return self.to(_device("cuda") if device is None else _device("cuda", device)
                       if isinstance(device, int) else device)

    @property
    def _cdata(self) -> int:
        """An integer naming this storage: equal for every tensor viewing it (PyTorch's C pointer)."""
        return id(self)

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def get_device(self) -> int | None:
        """The CUDA device's index; None on the CPU (PyTorch 2.13's)."""
        return self.device.index if self.device.type == "cuda" else None

    def untyped(self) -> UntypedStorage:
        return self

    def type(self, dtype=None, non_blocking: bool = False):
        return "torch.storage.UntypedStorage" if dtype is None else self

    def is_shared(self) -> bool:
        return sharing.is_shared(self._bytes_tensor())

    def share_memory_(self) -> UntypedStorage:
        """Move the bytes into shared memory in place (a no-op on CUDA, as PyTorch's)."""
        sharing.share_memory_(self._bytes_tensor())
        return self

    def is_pinned(self, device="cuda") -> bool:
        return False

    def pin_memory(self, device="cuda") -> UntypedStorage:
        return self

    def resize_(self, size: int) -> UntypedStorage:
        """Keep the first `size` bytes (new ones are zero); CPU only."""
        if self.device.type != "cpu":
            raise RuntimeError("UntypedStorage.resize_: resizing a CUDA storage is not supported")
        if not self.resizable():
            raise RuntimeError("Trying to resize storage that is not resizable")
        data = np.zeros(size, np.uint8)
        n = min(size, _NBYTES.__get__(self))
        data[:n] = self.data[:n]
        self.data = data
        _NBYTES.__set__(self, size)
        return self

    def new(self) -> UntypedStorage:
        return UntypedStorage(0, device=self.device)

    @classmethod
    def from_buffer(cls, buffer, byte_order: str = "native", count: int = -1, offset: int = 0, dtype=None):
        """A CPU storage holding a copy of `buffer`'s elements of `dtype` (from byte `offset`, `count` elements or
        all), in native byte order."""
        if dtype is None:
            raise RuntimeError("argument 'dtype' cannot be None")
        dt = _ag.dtypes.as_dtype(dtype)
        order = {"native": "=", "little": "<", "big": ">"}[byte_order]
        raw = np.frombuffer(buffer, dtype=np.dtype(dt.np).newbyteorder(order), count=count, offset=offset)
        return _adopt(Storage.wrap_cpu(raw.astype(dt.np).view(np.uint8)))

    def __repr__(self) -> str:
        body = "\n".join(f" {v}" for v in self.tolist())
        return f"{body}\n[torch.storage.UntypedStorage(device={self.device}) of size {len(self)}]"


def _adopt(st: Storage) -> UntypedStorage:
    """The same storage object, seen as an `UntypedStorage` (NOTE [ nbytes, attribute and method ])."""
    if type(st) is Storage:
        st.__class__ = UntypedStorage
    return st


def _untyped_storage(self) -> UntypedStorage:
    """`Tensor.untyped_storage()`: the tensor's own byte storage (its owner's, for a `.data` tensor)."""
    return _adopt(self._storage.root)


attach("untyped_storage", _untyped_storage, replace=True)  # core's returns the plain Storage
