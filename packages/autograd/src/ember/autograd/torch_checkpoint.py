"""Reading checkpoints written by `torch.save` (PyTorch's zip format), without PyTorch and
without running code from the file.

A PyTorch checkpoint is a zip archive: `<name>/data.pkl` (a pickle whose persistent ids name the
storages), `<name>/data/<key>` (each storage's raw little-endian bytes) and `<name>/byteorder`.
The pickle is read by a restricted unpickler, like PyTorch's own `weights_only` loader: the
only globals it resolves are `collections.OrderedDict`, the tensor and parameter rebuild
functions and the typed-storage classes, each mapped to an ember function here; any other
global (a class of a pickled module, `os.system` ...) is refused, and so are the opcodes that
build arbitrary objects (`INST`, `OBJ`, `NEWOBJ`, extensions, out-of-band buffers) and `BUILD`
on anything but an `OrderedDict` (a state dict's `_metadata`), so no tensor's metadata can be
rewritten after the geometry gate checked it. Before a member is decompressed its declared
size is checked: a storage must declare exactly the bytes its persistent id names, and no
member may claim more than deflate can expand to (zip bombs). Errors: NOTE [ Load errors ].
"""

from __future__ import annotations

import io
import pickle
import zipfile
from collections import OrderedDict

import numpy as np

from ember.core import dtypes
from ember.core.geometry import INT64_MAX, make_tensor
from ember.core.storage import Storage
from ember.core.tensor import Tensor

from ember.autograd.checkpoint_io import CheckpointError, check_depth, reraise

__all__ = ["is_torch_zip", "load_torch_zip"]

_STORAGE_DTYPES = {
    "FloatStorage": "float32", "DoubleStorage": "float64", "HalfStorage": "float16", "LongStorage": "int64",
    "IntStorage": "int32", "ShortStorage": "int16", "CharStorage": "int8", "ByteStorage": "uint8",
    "BoolStorage": "bool",
}
# deflate expands at most ~1032:1; a member declaring more than this is a zip bomb, refused unread
_MAX_DEFLATE_RATIO = 1032
_REFUSED_OPCODES = (pickle.INST, pickle.OBJ, pickle.NEWOBJ, pickle.NEWOBJ_EX, pickle.EXT1, pickle.EXT2,
                    pickle.EXT4, pickle.NEXT_BUFFER, pickle.READONLY_BUFFER)


class _StorageType:
    """Stands for `torch.FloatStorage` & co. inside the pickle: just a dtype."""

    def __init__(self, name: str, dtype: dtypes.dtype) -> None:
        self.name, self.dtype = name, dtype

    def __repr__(self) -> str:
        return f"torch.{self.name}"


class _TypedStorage:
    __slots__ = ("storage", "dtype", "key")

    def __init__(self, storage: Storage, dtype: dtypes.dtype, key: str) -> None:
        self.storage, self.dtype, self.key = storage, dtype, key


def _refuse(self) -> None:
    raise CheckpointError(f"load: {self.name}: {self.record}: the pickle uses an opcode that builds arbitrary "
                          "objects; ember reads tensors, state dicts and containers of them only")


def _build(self) -> None:
    """BUILD, for an OrderedDict's attributes only (a state dict's `_metadata`)."""
    state = self.stack.pop()
    inst = self.stack[-1]
    if type(inst) is not OrderedDict or not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
        raise CheckpointError(f"load: {self.name}: {self.record}: refusing to set the state of a "
                              f"{type(inst).__name__} (only an OrderedDict's attributes may be restored)")
    inst.__dict__.update(state)


class _Opcodes(dict):
    def __missing__(self, key: int):
        raise pickle.UnpicklingError(f"invalid load key {bytes([key])!r}")


class _Unpickler(pickle._Unpickler):
    """The pure-Python unpickler with a restricted opcode table (`BUILD` checked, object builders
    refused); its speed does not matter, the pickle holds metadata only."""

    dispatch = _Opcodes(pickle._Unpickler.dispatch)
    dispatch[pickle.BUILD[0]] = _build
    for _op in _REFUSED_OPCODES:
        dispatch[_op[0]] = _refuse
    del _op

    def __init__(self, data: bytes, archive: zipfile.ZipFile, prefix: str, map_location, name: str) -> None:
        super().__init__(io.BytesIO(data))
        self.archive, self.prefix, self.map_location, self.name = archive, prefix, map_location, name
        self.record = f"{prefix}/data.pkl"
        self.allowed = {("collections", "OrderedDict"): OrderedDict,
                        ("torch._utils", "_rebuild_tensor_v2"): self._rebuild_tensor_v2,
                        ("torch._utils", "_rebuild_parameter"): _rebuild_parameter}
        for cls, dt in _STORAGE_DTYPES.items():
            self.allowed[("torch", cls)] = _StorageType(cls, dtypes._BY_NAME[dt])
        self.storages: dict[str, Storage] = {}

    def fail(self, problem: str) -> CheckpointError:
        return CheckpointError(f"load: {self.name}: {self.record}: {problem}")

    def find_class(self, module: str, name: str):
        obj = self.allowed.get((module, name))
        if obj is None:
            raise CheckpointError(
                f"load: {self.name}: {self.record}: Weights only load failed: the PyTorch checkpoint needs the "
                f"global {module}.{name}; ember reads tensors, state dicts and containers of them from PyTorch "
                "files, and never runs code from them (save a state_dict in PyTorch, or re-save with ember)")
        return obj

    def persistent_load(self, pid):
        from ember.autograd.serialization import _mapped_by, _target_device

        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"
                and isinstance(pid[1], _StorageType) and isinstance(pid[2], str) and isinstance(pid[3], str)
                and isinstance(pid[4], int) and not isinstance(pid[4], bool) and 0 <= pid[4] <= INT64_MAX):
            raise self.fail(f"unsupported persistent id {pid!r:.80}")
        _, stype, key, location, numel = pid
        st = self.storages.get(key)
        if st is None:
            raw = _read_member(self.archive, f"{self.prefix}/data/{key}", self.name, numel * stype.dtype.itemsize)
            st = Storage.wrap_cpu(np.frombuffer(raw, np.uint8).copy())
            if callable(self.map_location) and not isinstance(self.map_location, dict | str):
                st = _mapped_by(self.map_location, st, location)
            else:
                dev = _target_device(location, self.map_location)
                if dev.type != "cpu":
                    st = Tensor._make(st, 0, (st.nbytes,), (1,), dtypes.uint8).to(dev)._storage
            self.storages[key] = st
        return _TypedStorage(st, stype.dtype, key)

    def _rebuild_tensor_v2(self, storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                           metadata=None) -> Tensor:
        if not isinstance(storage, _TypedStorage):
            raise self.fail(f"a tensor's storage is a {type(storage).__name__}, not a storage of the archive")
        try:  # NOTE [ The geometry gate ]
            t = make_tensor(storage.storage, storage_offset, size, stride, storage.dtype, op="_rebuild_tensor_v2")
        except (TypeError, RuntimeError) as e:
            raise self.fail(f"tensor over {self.prefix}/data/{storage.key}: {e}") from None
        if requires_grad is True and t._dtype.is_floating_point:
            t.requires_grad_(True)
        return t


def _rebuild_parameter(data, requires_grad, backward_hooks=None) -> Tensor:
    from ember.autograd.serialization import _loaded_class

    if not isinstance(data, Tensor) or not isinstance(requires_grad, bool):
        raise TypeError(f"_rebuild_parameter expects a tensor and a bool; got {type(data).__name__} and "
                        f"{type(requires_grad).__name__}")
    t = data._as_subclass(_loaded_class("ember.nn.parameter:Parameter"))
    return t.requires_grad_(requires_grad) if t._dtype.is_floating_point else t


def _read_member(archive: zipfile.ZipFile, member: str, name: str, expected: int | None = None) -> bytes:
    """The bytes of `member`, after checking its declared size (before anything is decompressed)."""
    try:
        info = archive.getinfo(member)
    except KeyError:
        raise CheckpointError(f"load: {name}: {member}: the record is missing from the archive") from None
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise CheckpointError(f"load: {name}: {member}: unsupported compression method {info.compress_type}")
    if expected is not None and info.file_size != expected:
        raise CheckpointError(f"load: {name}: {member}: the record declares {info.file_size} bytes, its storage "
                              f"needs {expected}")
    limit = info.compress_size * (_MAX_DEFLATE_RATIO if info.compress_type == zipfile.ZIP_DEFLATED else 1) + 64
    if info.file_size > limit:
        raise CheckpointError(f"load: {name}: {member}: declares {info.file_size} bytes from {info.compress_size} "
                              "compressed bytes, more than compression can produce (a zip bomb)")
    return archive.read(info)


def is_torch_zip(data: bytes) -> bool:
    return data[:4] == b"PK\x03\x04"


def load_torch_zip(data: bytes, name: str, map_location=None):
    """The object a PyTorch zip checkpoint holds, built from tensors and plain containers only."""
    record = "zip directory"
    try:
        try:
            archive = zipfile.ZipFile(io.BytesIO(data))
        except zipfile.BadZipFile as e:
            raise CheckpointError(f"load: {name}: {record}: is not an ember checkpoint (it looks like a zip "
                                  f"archive, but it cannot be read: {e})") from None
        pkls = [n for n in archive.namelist() if n.endswith("/data.pkl") and n.count("/") == 1]
        if len(pkls) != 1:
            raise CheckpointError(f"load: {name}: {record}: is not an ember checkpoint (it looks like a zip archive, "
                                  f"but not a PyTorch checkpoint: {len(pkls)} data.pkl records)")
        prefix = pkls[0].split("/")[0]
        record = f"{prefix}/byteorder"
        order = "little"
        if record in archive.namelist():
            order = _read_member(archive, record, name).decode("ascii", "replace")
        if order != "little":
            raise CheckpointError(f"load: {name}: {record}: the file was written on a {order[:20]!r} machine; "
                                  "ember reads little-endian files")
        record = pkls[0]
        unpickler = _Unpickler(_read_member(archive, record, name), archive, prefix, map_location, name)
        obj = unpickler.load()
        check_depth(obj, name, record)
        return obj
    except Exception as e:
        reraise(e, name, record)
