"""Reading checkpoints written by `torch.save` (PyTorch's zip format), without PyTorch and
without running code from the file.

A PyTorch checkpoint is a zip archive: `<name>/data.pkl` (a pickle whose persistent ids name the
storages), `<name>/data/<key>` (each storage's raw little-endian bytes) and `<name>/byteorder`.
The pickle is read by a restricted unpickler, like PyTorch's own `weights_only` loader: the
only globals it resolves are `collections.OrderedDict`, the tensor and parameter rebuild
functions and the typed-storage classes, each mapped to an ember function here; any other
global (a class of a pickled module, `os.system` ...) is refused.
"""

from __future__ import annotations

import io
import pickle
import zipfile
from collections import OrderedDict

import numpy as np

from ember.core import dtypes
from ember.core.storage import Storage
from ember.core.tensor import Tensor

__all__ = ["is_torch_zip", "load_torch_zip"]

_STORAGE_DTYPES = {
    "FloatStorage": "float32", "DoubleStorage": "float64", "HalfStorage": "float16", "LongStorage": "int64",
    "IntStorage": "int32", "ShortStorage": "int16", "CharStorage": "int8", "ByteStorage": "uint8",
    "BoolStorage": "bool",
}


class _StorageType:
    """Stands for `torch.FloatStorage` & co. inside the pickle: just a dtype."""

    def __init__(self, dtype: dtypes.dtype) -> None:
        self.dtype = dtype


class _TypedStorage:
    __slots__ = ("storage", "dtype")

    def __init__(self, storage: Storage, dtype: dtypes.dtype) -> None:
        self.storage, self.dtype = storage, dtype


def _rebuild_tensor_v2(storage: _TypedStorage, storage_offset: int, size, stride, requires_grad=False,
                       backward_hooks=None, metadata=None) -> Tensor:
    shape, strides = tuple(size), tuple(stride)
    n = 1
    for s in shape:
        n *= s
    if n and (storage_offset + sum((a - 1) * b for a, b in zip(shape, strides)) + 1) * storage.dtype.itemsize \
            > storage.storage.nbytes:
        raise pickle.UnpicklingError("load: a tensor of the PyTorch checkpoint reaches past its storage")
    t = Tensor._make(storage.storage, int(storage_offset), shape, strides, storage.dtype)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data: Tensor, requires_grad: bool, backward_hooks=None) -> Tensor:
    from ember.autograd.serialization import _loaded_class

    t = data._as_subclass(_loaded_class("ember.nn.parameter:Parameter"))
    return t.requires_grad_(requires_grad) if t._dtype.is_floating_point else t


def _globals() -> dict:
    table = {("collections", "OrderedDict"): OrderedDict,
             ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
             ("torch._utils", "_rebuild_parameter"): _rebuild_parameter}
    for name, dt in _STORAGE_DTYPES.items():
        table[("torch", name)] = _StorageType(dtypes._BY_NAME[dt])
    return table


class _Unpickler(pickle.Unpickler):
    def __init__(self, data: bytes, archive: zipfile.ZipFile, prefix: str, map_location, name: str) -> None:
        super().__init__(io.BytesIO(data))
        self.archive, self.prefix, self.map_location, self.name = archive, prefix, map_location, name
        self.allowed = _globals()
        self.storages: dict[str, Storage] = {}

    def find_class(self, module: str, name: str):
        obj = self.allowed.get((module, name))
        if obj is None:
            raise pickle.UnpicklingError(
                f"load: {self.name} is a PyTorch checkpoint that needs the global {module}.{name}; ember reads "
                "tensors, state dicts and containers of them from PyTorch files, and never runs code from them "
                "(save a state_dict in PyTorch, or re-save with ember)")
        return obj

    def persistent_load(self, pid):
        from ember.autograd.serialization import _target_device

        if not (isinstance(pid, tuple) and pid and pid[0] == "storage" and isinstance(pid[1], _StorageType)):
            raise pickle.UnpicklingError(f"load: {self.name}: unsupported persistent id {pid!r:.80}")
        _, stype, key, location, _numel = pid
        st = self.storages.get(key)
        if st is None:
            raw = self.archive.read(f"{self.prefix}/data/{key}")
            st = Storage.wrap_cpu(np.frombuffer(raw, np.uint8).copy())
            dev = _target_device(str(location), self.map_location)
            if dev.type != "cpu":
                st = Tensor._make(st, 0, (st.nbytes,), (1,), dtypes.uint8).to(dev)._storage
            self.storages[key] = st
        return _TypedStorage(st, stype.dtype)


def is_torch_zip(data: bytes) -> bool:
    return data[:4] == b"PK\x03\x04"


def load_torch_zip(data: bytes, name: str, map_location=None):
    """The object a PyTorch zip checkpoint holds, built from tensors and plain containers only."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        pkl = next(n for n in archive.namelist() if n.endswith("/data.pkl") and n.count("/") == 1)
    except (zipfile.BadZipFile, StopIteration):
        raise RuntimeError(f"load: {name} is not an ember checkpoint (it looks like a zip archive, but not a "
                           "PyTorch checkpoint)") from None
    prefix = pkl.split("/")[0]
    order = archive.read(f"{prefix}/byteorder").decode() if f"{prefix}/byteorder" in archive.namelist() else "little"
    if order != "little":
        raise RuntimeError(f"load: {name} was written on a big-endian machine; ember reads little-endian files")
    return _Unpickler(archive.read(pkl), archive, prefix, map_location, name).load()
