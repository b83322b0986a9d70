"""`torch.TypedStorage` and the legacy typed storages (`torch.FloatStorage` ...): a dtype's view of a
tensor's byte storage, as `Tensor.storage()` returns it (deprecated in PyTorch for `untyped_storage()`,
with the same warning)."""

from __future__ import annotations

import numpy as np

import ember.autograd as _ag
from ember.core.methods import attach
from ember.core.ops._util import warn_at_caller
from ember.core.storage import Storage

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
    `storage()` views the tensor's own bytes."""

    _fixed_dtype = None

    def __init__(self, *args, dtype=None, device=None, wrap_storage: Storage | None = None) -> None:
        _warn_typed_storage_removal()
        self.dtype = _ag.dtypes.as_dtype(self._fixed_dtype or dtype or _ag.get_default_dtype())
        if wrap_storage is not None:
            self._untyped = wrap_storage
            return
        data = args[0] if args else 0
        values = None if isinstance(data, int) else list(data)
        n = data if values is None else len(values)
        t = _ag.empty(n, dtype=self.dtype, device=device) if values is None else \
            _ag.tensor(values, dtype=self.dtype, device=device)
        self._untyped = t.untyped_storage()

    @classmethod
    def _view(cls, storage: Storage, dtype) -> TypedStorage:
        obj = object.__new__(cls)
        obj.dtype, obj._untyped = dtype, storage
        return obj

    def _array(self) -> np.ndarray:
        st = self._untyped
        host = st.data if st.device.type == "cpu" else st.data.copy_to_host()
        return host[: self.size() * self.element_size()].view(self.dtype.np)

    def size(self) -> int:
        return self._untyped.nbytes // self.element_size()

    def __len__(self) -> int:
        return self.size()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def nbytes(self) -> int:
        return self._untyped.nbytes

    @property
    def device(self):
        return self._untyped.device

    def data_ptr(self) -> int:
        return self._untyped.data_ptr()

    def untyped(self) -> Storage:
        return self._untyped

    def tolist(self) -> list:
        return self._array().tolist()

    def __getitem__(self, i):
        return self._array()[i].tolist()

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self) -> str:
        body = "\n".join(f" {v}" for v in self.tolist())
        return f"{body}\n[{type(self).__module__}.{type(self).__name__}(dtype={self.dtype}, device={self.device}) " \
               f"of size {self.size()}]"


def _legacy(name: str, dtype) -> type:
    cls = type(name, (TypedStorage,), {"_fixed_dtype": dtype, "__doc__": f"The legacy storage of {dtype.name}."})
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
_BY_DTYPE = {c._fixed_dtype: c for c in (BoolStorage, ByteStorage, CharStorage, ShortStorage, IntStorage, LongStorage,
                                         HalfStorage, BFloat16Storage, FloatStorage, DoubleStorage,
                                         ComplexFloatStorage, ComplexDoubleStorage)}


def _storage(self) -> TypedStorage:
    """`Tensor.storage()`: the tensor's bytes as a TypedStorage of its dtype (deprecated, as in PyTorch)."""
    _warn_typed_storage_removal()
    return _BY_DTYPE.get(self.dtype, TypedStorage)._view(self.untyped_storage(), self.dtype)


def _storage_type(self) -> type:
    """`Tensor.storage_type()`: the legacy storage class of the tensor's dtype."""
    return _BY_DTYPE.get(self.dtype, TypedStorage)


def is_storage(obj) -> bool:
    """`torch.is_storage`: an untyped or a typed storage."""
    return isinstance(obj, Storage | TypedStorage)


attach("storage", _storage)
attach("storage_type", _storage_type)
