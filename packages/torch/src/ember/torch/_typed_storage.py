"""`torch.TypedStorage` and the legacy typed storages (`torch.FloatStorage` ...): a dtype's view of a
tensor's byte storage, as `Tensor.storage()` returns it (deprecated in PyTorch for `untyped_storage()`,
with the same warning)."""

from __future__ import annotations

import numpy as np

import ember.autograd as _ag
from ember.core.methods import attach
from ember.core.ops._util import warn_at_caller
from ember.core.storage import Storage
from ember.core.tensor import Tensor

__all__ = ["is_storage", "TypedStorage", "BoolStorage", "ByteStorage", "CharStorage", "ShortStorage", "IntStorage",
           "LongStorage", "HalfStorage", "BFloat16Storage", "FloatStorage", "DoubleStorage", "ComplexFloatStorage",
           "ComplexDoubleStorage"]

_DEPRECATED = ("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
               "storage class. This should only matter to you if you are using storages directly.  To access "
               "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()")
_warned = [False]


def _warn_typed_storage_removal() -> None:
    """PyTorch's deprecation warning of typed storages: the first use in the process only, at the user's line."""
    if not _warned[0]:
        _warned[0] = True
        warn_at_caller(_DEPRECATED)


class TypedStorage:
    """`size` elements of `dtype` over a byte storage: `TypedStorage(n, dtype=...)` allocates, a tensor's
    `storage()` views the tensor's own bytes. The legacy classes (`torch.FloatStorage(...)`) make one too, and
    `isinstance` matches it against the legacy class of its dtype, as PyTorch's."""

    def __init__(self, *args, dtype=None, device=None, wrap_storage: Storage | None = None) -> None:
        _warn_typed_storage_removal()
        self.dtype = _ag.dtypes.as_dtype(dtype or _ag.get_default_dtype())
        if wrap_storage is not None:
            self._untyped_storage = wrap_storage
            return
        data = args[0] if args else 0
        values = None if isinstance(data, int) else list(data)
        n = data if values is None else len(values)
        t = _ag.empty(n, dtype=self.dtype, device=device) if values is None else \
            _ag.tensor(values, dtype=self.dtype, device=device)
        self._untyped_storage = t.untyped_storage()

    @classmethod
    def _view(cls, storage: Storage, dtype) -> TypedStorage:
        obj = object.__new__(TypedStorage)
        obj.dtype, obj._untyped_storage = dtype, storage
        return obj

    def _tensor(self) -> Tensor:
        """The storage's elements as a 1-D tensor over the same memory."""
        return Tensor._make(self._untyped_storage, 0, (self.size(),), (1,), self.dtype)

    def _array(self) -> np.ndarray:
        st = self._untyped_storage
        host = st.data if st.device.type == "cpu" else st.data.copy_to_host()
        return host[: self.size() * self.element_size()].view(self.dtype.np)

    def size(self) -> int:
        return self._untyped_storage.nbytes // self.element_size()

    def __len__(self) -> int:
        return self.size()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes

    @property
    def device(self):
        return self._untyped_storage.device

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def get_device(self) -> int | None:
        return self._untyped_storage.get_device()

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    def untyped(self) -> Storage:
        return self._untyped_storage

    def tolist(self) -> list:
        return self._array().tolist()

    def __getitem__(self, i):
        if isinstance(i, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        return self._array()[i].tolist()

    def __setitem__(self, i, value) -> None:
        if not isinstance(i, int | slice):
            raise RuntimeError(f"can't index a {type(self)} with {type(i)}")
        self._tensor()[i] = value

    def __iter__(self):
        return iter(self.tolist())

    def fill_(self, value) -> TypedStorage:
        self._tensor().fill_(value)
        return self

    def copy_(self, source, non_blocking: bool | None = None) -> TypedStorage:
        """Copy `source`'s bytes (a storage of the same byte size) into this one."""
        self._untyped_storage.copy_(source._untyped_storage if isinstance(source, TypedStorage) else source)
        return self

    def clone(self) -> TypedStorage:
        return TypedStorage._view(self._untyped_storage.clone(), self.dtype)

    def resize_(self, size: int) -> None:
        self._untyped_storage.resize_(size * self.element_size())

    def is_shared(self) -> bool:
        return self._untyped_storage.is_shared()

    def share_memory_(self) -> TypedStorage:
        self._untyped_storage.share_memory_()
        return self

    def is_pinned(self, device="cuda") -> bool:
        return self._untyped_storage.is_pinned(device)

    def to(self, *, device=None, non_blocking: bool = False) -> TypedStorage:
        return TypedStorage._view(self._untyped_storage.to(device, non_blocking), self.dtype)

    def cpu(self) -> TypedStorage:
        return self.to(device="cpu")

    def cuda(self, device=None, non_blocking: bool = False) -> TypedStorage:
        return TypedStorage._view(self._untyped_storage.cuda(device, non_blocking), self.dtype)

    def pickle_storage_type(self) -> str:
        """The name of the legacy class of this dtype (`'FloatStorage'`), as serialization records it."""
        return _BY_DTYPE[self.dtype].__name__

    def type(self, dtype=None, non_blocking: bool = False):
        """The legacy class name (`'torch.FloatStorage'`, `'torch.cuda.FloatStorage'` on a GPU); given a legacy
        class or its name, PyTorch's conversion: one element of it per byte, the bytes copied (so only the byte-sized
        classes take it; the others raise the copy's size mismatch, as PyTorch's)."""
        if dtype is None:
            return f"torch.{'cuda.' if self.is_cuda else ''}{self.pickle_storage_type()}"
        if isinstance(dtype, str):
            dtype = _BY_NAME[dtype.rsplit(".", 1)[-1]]
        return TypedStorage(self.nbytes(), dtype=dtype.dtype, device=self.device).copy_(self._untyped_storage)

    def _to(self, dtype) -> TypedStorage:
        """A copy of the elements cast to `dtype` (a copy even in the same dtype, as PyTorch's)."""
        t = self._tensor().to(dtype)
        if t.data_ptr() == self.data_ptr():
            t = t.clone()
        return TypedStorage._view(t.untyped_storage(), dtype)

    def __repr__(self) -> str:
        body = "\n".join(f" {v}" for v in self.tolist())
        return f"{body}\n[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size {self.size()}]"

    @classmethod
    def from_buffer(cls, buffer, byte_order: str = "native", count: int = -1, offset: int = 0, dtype=None):
        """A CPU storage of `dtype` (the legacy class's own) holding a copy of `buffer`'s elements."""
        dt = _ag.dtypes.as_dtype(getattr(cls, "_legacy_dtype", None) or dtype or _ag.get_default_dtype())
        order = {"native": "=", "little": "<", "big": ">"}[byte_order]
        arr = np.frombuffer(buffer, dtype=np.dtype(dt.np).newbyteorder(order), count=count, offset=offset)
        return TypedStorage._view(_ag.tensor(arr.astype(dt.np)).untyped_storage(), dt)

    @classmethod
    def _new_shared(cls, size: int, *, device=None) -> TypedStorage:
        dt = getattr(cls, "_legacy_dtype", None) or _ag.get_default_dtype()
        return TypedStorage(size, dtype=dt, device=device).share_memory_()


def _caster(name: str, dtype):
    def cast(self) -> TypedStorage:
        return self._to(dtype)
    cast.__name__, cast.__qualname__, cast.__doc__ = name, f"TypedStorage.{name}", f"A copy in {dtype.name}."
    return cast


for _name, _dt in {"float": _ag.float32, "double": _ag.float64, "half": _ag.float16, "bfloat16": _ag.bfloat16,
                   "int": _ag.int32, "long": _ag.int64, "short": _ag.int16, "char": _ag.int8, "byte": _ag.uint8,
                   "bool": _ag.bool, "complex_float": _ag.complex64, "complex_double": _ag.complex128}.items():
    setattr(TypedStorage, _name, _caster(_name, _dt))


class _LegacyStorageMeta(type):
    """The legacy classes: calling one makes a `TypedStorage` of its dtype; a `TypedStorage` of that dtype on the
    CPU is an instance."""

    def __call__(cls, *args, device=None, **kwargs):
        return TypedStorage(*args, dtype=cls._legacy_dtype, device=device, **kwargs)

    def __instancecheck__(cls, obj) -> bool:
        if type(obj) is TypedStorage:
            return obj.dtype is cls._legacy_dtype and obj.device.type == "cpu"
        return super().__instancecheck__(obj)

    @property
    def dtype(cls):
        return cls._legacy_dtype


def _legacy(name: str, dtype) -> type:
    cls = _LegacyStorageMeta(name, (TypedStorage,), {"_legacy_dtype": dtype,
                                                     "__doc__": f"The legacy storage of {dtype.name}."})
    cls.__module__ = "ember.torch"
    return cls


BoolStorage = _legacy("BoolStorage", _ag.bool)
ByteStorage = _legacy("ByteStorage", _ag.uint8)
CharStorage = _legacy("CharStorage", _ag.int8)
ShortStorage = _legacy("ShortStorage", _ag.int16)
IntStorage = _legacy("IntStorage", _ag.int32)
LongStorage = _legacy("LongStorage", _ag.int64)
HalfStorage = _legacy("HalfStorage", _ag.float16)
BFloat16Storage = _legacy("BFloat16Storage", _ag.bfloat16)
FloatStorage = _legacy("FloatStorage", _ag.float32)
DoubleStorage = _legacy("DoubleStorage", _ag.float64)
ComplexFloatStorage = _legacy("ComplexFloatStorage", _ag.complex64)
ComplexDoubleStorage = _legacy("ComplexDoubleStorage", _ag.complex128)
_BY_DTYPE = {c._legacy_dtype: c for c in (BoolStorage, ByteStorage, CharStorage, ShortStorage, IntStorage,
                                          LongStorage, HalfStorage, BFloat16Storage, FloatStorage, DoubleStorage,
                                          ComplexFloatStorage, ComplexDoubleStorage)}
_BY_NAME = {c.__name__: c for c in _BY_DTYPE.values()}


def _storage(self) -> TypedStorage:
    """`Tensor.storage()`: the tensor's bytes as a TypedStorage of its dtype (deprecated, as in PyTorch)."""
    _warn_typed_storage_removal()
    return TypedStorage._view(self.untyped_storage(), self.dtype)


def _storage_type(self) -> type:
    """`Tensor.storage_type()`: the legacy storage class of the tensor's dtype."""
    return _BY_DTYPE.get(self.dtype, TypedStorage)


def is_storage(obj) -> bool:
    """`torch.is_storage`: an untyped or a typed storage."""
    return isinstance(obj, Storage | TypedStorage)


_core_set_ = Tensor.set_


def _set_(self, source=None, storage_offset: int = 0, size=None, stride=None):
    """`Tensor.set_`, whose source may also be a TypedStorage (its bytes are set)."""
    if isinstance(source, TypedStorage):
        source = source._untyped_storage
    return _core_set_(self, source, storage_offset, size, stride)


attach("set_", _set_, replace=True)
attach("storage", _storage)
attach("storage_type", _storage_type)
