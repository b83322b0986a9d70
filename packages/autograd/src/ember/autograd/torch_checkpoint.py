"""Reading and writing checkpoints in PyTorch's zip format (what `torch.save` writes), without
PyTorch and without running code from the file.

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
The pre-1.6 format (a bare pickle stream starting with PyTorch's magic number) is recognised and
refused with an error that says so.

NOTE [ Writing PyTorch's zip format ]
`write_torch_zip` produces what `torch.save` produces in PyTorch 2.x, so `torch.load(path,
weights_only=True)` opens it: stored (uncompressed) records `<archive>/data.pkl`,
`.format_version` ("1"), `.storage_alignment` ("64"), `byteorder` ("little"), one
`data/<key>` per storage, its bytes starting at a multiple of 64 in the file (padding in an "FB"
extra field, as PyTorch's writer does), and `version` ("3"). The pickle (protocol 2) rebuilds
each tensor with `torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
requires_grad, OrderedDict())` (a `Parameter` with `torch._utils._rebuild_parameter` around
it) over the persistent id `("storage", torch.FloatStorage, key, location, numel)`;
dtypes, devices and `Size` are the globals `torch.float32`, `torch.device`, `torch.Size`;
numpy scalars are written as the Python numbers they hold. It
holds only what `weights_only` loading allows; `can_write` says whether an object is made of
such parts (tensors, plain containers, Python scalars), and `save` writes anything else in
ember's own format.
"""

from __future__ import annotations

import io
import os
import pickle
import zipfile
from collections import OrderedDict
from typing import Any

import numpy as np

from ember.core import dtypes
from ember.core.class_paths import home_module
from ember.core.device import device as Device
from ember.core.geometry import INT64_MAX, make_tensor
from ember.core.meta import meta_storage
from ember.core.storage import Storage
from ember.core.tensor import Size, Tensor

from ember.autograd.checkpoint_io import (CheckpointError, CorruptArchiveError, UnsafeGlobalError, check_depth,
                                         reraise)
from ember.autograd.tensor_api import warn_if_has_hooks

__all__ = ["is_torch_zip", "load_torch_zip", "is_legacy_torch", "can_write", "write_torch_zip"]

_STORAGE_DTYPES = {
    "FloatStorage": "float32", "DoubleStorage": "float64", "HalfStorage": "float16", "LongStorage": "int64",
    "IntStorage": "int32", "ShortStorage": "int16", "CharStorage": "int8", "ByteStorage": "uint8",
    "BoolStorage": "bool", "BFloat16Storage": "bfloat16",
    "ComplexFloatStorage": "complex64", "ComplexDoubleStorage": "complex128",
}
_STORAGE_OF = {dt: cls for cls, dt in _STORAGE_DTYPES.items()}
# the dtypes PyTorch writes over an UntypedStorage with the dtype as an argument (_rebuild_tensor_v3)
_UNTYPED = dtypes.RESTRICTED | {dtypes.complex32}
# the pickle stream of a pre-1.6 `torch.save` starts with PROTO 2 and this LONG1 magic number
_LEGACY_MAGIC = b"\x80\x02\x8a\nl\xfc\x9cF\xf9 j\xa8P\x19."
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
                        ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
                        ("torch._utils", "_rebuild_meta_tensor_no_storage"): _rebuild_meta_tensor}
        for cls, dt in _STORAGE_DTYPES.items():
            self.allowed[("torch", cls)] = _StorageType(cls, dtypes._BY_NAME[dt])
        for d in dtypes.ALL:
            self.allowed[("torch", d.name)] = d
        # uint16/32/64 and float8: PyTorch writes them over an UntypedStorage (byte count), dtype last
        self.allowed[("torch.storage", "UntypedStorage")] = _StorageType("UntypedStorage", dtypes.uint8)
        self.allowed[("torch._utils", "_rebuild_tensor_v3")] = self._rebuild_tensor_v3
        for d in _UNTYPED:
            self.allowed[("torch", d.name)] = d
        self.allowed[("torch", "Size")] = _size
        self.allowed[("_codecs", "encode")] = _encoded_bytes
        self.allowed[("torch", "device")] = _device
        self.storages: dict[str, Storage] = {}

    def fail(self, problem: str) -> CheckpointError:
        return CheckpointError(f"load: {self.name}: {self.record}: {problem}")

    def find_class(self, module: str, name: str):
        obj = self.allowed.get((module, name))
        if obj is None:
            raise UnsafeGlobalError(
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
        if st is None and location == "meta":  # no record: meta stays meta wherever map_location points
            st = self.storages[key] = meta_storage(numel * stype.dtype.itemsize)
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

    def _rebuild_tensor_v3(self, storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                           dtype=None, metadata=None) -> Tensor:
        if not isinstance(storage, _TypedStorage) or not isinstance(dtype, dtypes.dtype):
            raise self.fail("a _rebuild_tensor_v3 call without an untyped storage and a dtype")
        typed = _TypedStorage(storage.storage, dtype, storage.key)
        return self._rebuild_tensor_v2(typed, storage_offset, size, stride, requires_grad, backward_hooks, metadata)

    def _rebuild_tensor_v2(self, storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                           metadata=None) -> Tensor:
        if not isinstance(storage, _TypedStorage):
            raise self.fail(f"a tensor's storage is a {type(storage).__name__}, not a storage of the archive")
        try:  # NOTE [ The geometry gate ]
            t = make_tensor(storage.storage, storage_offset, size, stride, storage.dtype, op="_rebuild_tensor_v2")
        except (TypeError, RuntimeError) as e:
            raise self.fail(f"tensor over {self.prefix}/data/{storage.key}: {e}") from None
        if isinstance(metadata, dict) and metadata.get("conj") is True and t._dtype.is_complex:
            t._conj = True
            t._npc = None
        if isinstance(metadata, dict) and metadata.get("neg") is True and t._storage.device.type == "cpu":
            t._neg = True
            t._npc = None
        if requires_grad is True and (t._dtype.is_floating_point or t._dtype.is_complex):
            t.requires_grad_(True)
        return t


def safe_global_names() -> frozenset[str]:
    """The "module.name" globals the restricted unpickler resolves: a weights-only load's defaults for PyTorch files."""
    return frozenset(f"{module}.{name}" for module, name in _Unpickler(b"", None, "", None, "").allowed)


def _encoded_bytes(text, encoding: str = "utf-8") -> bytes:
    """`_codecs.encode`, as protocol 2 pickles write `bytes`: text to bytes, nothing else."""
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1", "utf-8", "ascii"):
        raise pickle.UnpicklingError(f"_codecs.encode expects a str and a text encoding; got {type(text).__name__}")
    return text.encode(encoding)


def _size(sizes) -> Size:
    """`torch.Size(sizes)` inside the pickle: a tuple of non-negative ints only."""
    if not (isinstance(sizes, tuple | list) and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0
                                                    for n in sizes)):
        raise TypeError(f"torch.Size expects non-negative integers; got {sizes!r:.80}")
    return Size(sizes)


def _device(type_or_name, index=None) -> Device:
    """`torch.device("cuda", 0)` inside the pickle: strings and an int index only."""
    if not isinstance(type_or_name, str) or not (index is None or (isinstance(index, int)
                                                                   and not isinstance(index, bool))):
        raise TypeError(f"torch.device expects a string and an optional int; got {type_or_name!r:.40}, {index!r:.20}")
    return Device(type_or_name if index is None else f"{type_or_name}:{index}")


def _rebuild_meta_tensor(dtype, size, stride, requires_grad=False) -> Tensor:
    """PyTorch's `_rebuild_meta_tensor_no_storage`: a meta tensor is saved as its geometry alone."""
    if not (isinstance(dtype, dtypes.dtype) and isinstance(requires_grad, bool)):
        raise TypeError(f"_rebuild_meta_tensor_no_storage expects a dtype and a bool; got {type(dtype).__name__} "
                        f"and {type(requires_grad).__name__}")
    size, stride = _size(size), _size(stride)
    span = 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    t = make_tensor(meta_storage(span * dtype.itemsize), 0, size, stride, dtype, op="_rebuild_meta_tensor_no_storage")
    return t.requires_grad_(True) if requires_grad and (dtype.is_floating_point or dtype.is_complex) else t


def _rebuild_parameter(data, requires_grad, backward_hooks=None) -> Tensor:
    from ember.autograd.serialization import _loaded_class

    if not isinstance(data, Tensor) or not isinstance(requires_grad, bool):
        raise TypeError(f"_rebuild_parameter expects a tensor and a bool; got {type(data).__name__} and "
                        f"{type(requires_grad).__name__}")
    t = data._as_subclass(_loaded_class("ember.nn.parameter:Parameter"))
    return t.requires_grad_(requires_grad) if t._dtype.is_floating_point or t._dtype.is_complex else t


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
    try:
        return archive.read(info)
    except zipfile.BadZipFile as e:
        if "CRC" not in str(e):
            raise
        raise CheckpointError(f"load: {name}: {member}: corrupted: checksum mismatch (the record's CRC-32 does not "
                              "match its bytes)") from None


def is_torch_zip(data: bytes) -> bool:
    return data[:4] == b"PK\x03\x04"


def is_legacy_torch(data: bytes) -> bool:
    """Whether `data` is a checkpoint of PyTorch's pre-1.6 (non-zip) format."""
    return data.startswith(_LEGACY_MAGIC)


def corrupt_archive(nbytes: int) -> CorruptArchiveError:
    """PyTorch's error for a zip checkpoint its reader cannot open: under 22 bytes (no room for the end record)
    "not a ZIP archive", else "failed finding central directory" (a truncated or corrupted file)."""
    problem = "not a ZIP archive" if nbytes < 22 else "failed finding central directory"
    return CorruptArchiveError(f"PytorchStreamReader failed reading zip archive: {problem}. This is an internal miniz "
                               "error. If you are seeing this error, there is a high likelihood that your checkpoint "
                               "file is corrupted. This can happen if the checkpoint was not saved properly, was "
                               "transferred incorrectly, or the file was modified after saving.")


def pickles_and_allowed(data: bytes, name: str) -> tuple[list[bytes], dict]:
    """The data.pkl of a PyTorch zip checkpoint and the globals its loader builds (for
    `get_unsafe_globals_in_checkpoint`)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise corrupt_archive(len(data)) from None
    pkls = [n for n in archive.namelist() if n.endswith("/data.pkl") and n.count("/") == 1]
    prefix = pkls[0].split("/")[0] if pkls else ""
    return [archive.read(n) for n in pkls], _Unpickler(b"", archive, prefix, None, name).allowed


def load_torch_zip(data: bytes, name: str, map_location=None):
    """The object a PyTorch zip checkpoint holds, built from tensors and plain containers only."""
    record = "zip directory"
    try:
        try:
            archive = zipfile.ZipFile(io.BytesIO(data))
        except zipfile.BadZipFile:
            raise corrupt_archive(len(data)) from None
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


# --- writing (NOTE [ Writing PyTorch's zip format ]) ----------------------------------------------
_ALIGN = 64
_PARAMETER = ("ember.nn.parameter", "Parameter")


class _Global:
    """A global the pickle names (`torch._utils._rebuild_tensor_v2`), written as GLOBAL without
    importing its module."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle's save_reduce wants a callable; this one is only ever written
        raise TypeError(f"{self.module}.{self.name} is a name written into a checkpoint, not a function")


_REBUILD_TENSOR = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_TENSOR_V3 = _Global("torch._utils", "_rebuild_tensor_v3")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_REBUILD_META = _Global("torch._utils", "_rebuild_meta_tensor_no_storage")
_ORDERED_DICT = _Global("collections", "OrderedDict")


class _StorageRef:
    __slots__ = ("cls", "key", "location", "numel")

    def __init__(self, cls: str, key: str, location: str, numel: int) -> None:
        self.cls, self.key, self.location, self.numel = cls, key, location, numel


class _Call:
    """`fn(*args)` in the pickle (a REDUCE): the tensor inside `_rebuild_parameter`, `OrderedDict()`."""

    __slots__ = ("fn", "args")

    def __init__(self, fn: _Global, args: tuple) -> None:
        self.fn, self.args = fn, args


def _save_global(pickler, obj: _Global) -> None:
    pickler.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("ascii"))
    pickler.memoize(obj)


def _save_dtype(pickler, obj: dtypes.dtype) -> None:
    _save_global(pickler, _Global("torch", obj.name))


def _save_number(pickler, obj: np.generic) -> None:
    """A numpy scalar (a metric in a checkpoint dict) as the Python number it holds: PyTorch's
    `weights_only` loader refuses numpy's globals."""
    pickler.save(obj.item())


_NUMPY_SCALARS = (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
                  np.float16, np.float32, np.float64)


class _ZipPickler(pickle._Pickler):
    """The pure-Python pickler, with ember's tensors, dtypes, devices and Sizes written as the
    globals and calls PyTorch records."""

    dispatch = dict(pickle._Pickler.dispatch)
    dispatch[_Global] = _save_global
    dispatch.update(dict.fromkeys({type(d) for d in dtypes.ALL}, _save_dtype))  # bfloat16 has a subclass
    dispatch.update(dict.fromkeys({type(d) for d in _UNTYPED}, _save_dtype))
    dispatch.update(dict.fromkeys(_NUMPY_SCALARS, _save_number))

    def __init__(self, f, storages: dict[int, tuple[str, Storage, dtypes.dtype]]) -> None:
        super().__init__(f, protocol=2)
        self.storages = storages

    def persistent_id(self, obj):
        if type(obj) is _StorageRef:
            module = "torch.storage" if obj.cls == "UntypedStorage" else "torch"
            return ("storage", _Global(module, obj.cls), obj.key, obj.location, obj.numel)
        return None

    def reducer_override(self, obj):
        if type(obj) is _Call:
            return obj.fn, obj.args
        if isinstance(obj, Tensor):
            return self._tensor(obj)
        if isinstance(obj, Size):
            return _Global("torch", "Size"), (tuple(obj),)
        if isinstance(obj, Device):
            return _Global("torch", "device"), (str(obj),)
        return NotImplemented

    def _tensor(self, t: Tensor):
        if t._requires_grad:
            warn_if_has_hooks(t)
        key, st, dt = self.storages[id(t._storage.root)]
        parameter = _is_parameter(t)
        if st.device.type == "meta":  # PyTorch's record of a meta tensor: its geometry, no storage
            args = (t._dtype, tuple(t._shape), tuple(t._strides), bool(t._requires_grad) and not parameter)
            if parameter:
                return _REBUILD_PARAMETER, (_Call(_REBUILD_META, args), bool(t._requires_grad),
                                            _Call(_ORDERED_DICT, ()))
            return _REBUILD_META, args
        if dt in _UNTYPED:  # PyTorch's layout for them: bytes in an UntypedStorage, the dtype as an argument
            ref = _StorageRef("UntypedStorage", key, str(st.device), st.nbytes)
            args = (ref, t._offset, tuple(t._shape), tuple(t._strides), bool(t._requires_grad) and not parameter,
                    _Call(_ORDERED_DICT, ()), dt)
            if parameter:
                return _REBUILD_PARAMETER, (_Call(_REBUILD_TENSOR_V3, args), bool(t._requires_grad),
                                            _Call(_ORDERED_DICT, ()))
            return _REBUILD_TENSOR_V3, args
        ref = _StorageRef(_STORAGE_OF[dt.name], key, str(st.device), st.nbytes // dt.itemsize)
        args = (ref, t._offset, tuple(t._shape), tuple(t._strides), bool(t._requires_grad) and not parameter,
                _Call(_ORDERED_DICT, ()))
        if t._conj or t._neg:  # PyTorch's tensor metadata: the storage holds the conjugates or negations
            args += ({"conj": True} if t._conj else {"neg": True},)  # (NOTE [ Complex storage and conj ])
        if parameter:
            return _REBUILD_PARAMETER, (_Call(_REBUILD_TENSOR, args), bool(t._requires_grad), _Call(_ORDERED_DICT, ()))
        return _REBUILD_TENSOR, args


def _is_parameter(t: Tensor) -> bool:
    """A dense Parameter (a sparse one, also named Parameter, is written as other sparse tensors are)."""
    return t._dense_like and (home_module(type(t)), type(t).__qualname__) == _PARAMETER


def _collect(obj: Any, storages: dict, depth: int = 0) -> bool:
    """Whether `obj` is made only of what the zip format holds (NOTE [ Writing PyTorch's zip
    format ]); gathers each tensor's storage (key, storage, dtype) into `storages` on the way."""
    if depth > 100:
        return False
    if obj is None or type(obj) in (bool, int, float, str, bytes) or isinstance(obj, dtypes.dtype | Device | Size):
        return True
    if type(obj) in _NUMPY_SCALARS:
        return True
    if isinstance(obj, Tensor):
        if type(obj) is not Tensor and not _is_parameter(obj):
            return False
        st = obj._storage.root  # `.data`'s alias: its owner's memory (NOTE [ .data's version counter ])
        seen = storages.get(id(st))
        if seen is None:
            storages[id(st)] = (str(len(storages)), st, obj._dtype)
            return True
        return seen[2] is obj._dtype  # one storage seen as two dtypes: PyTorch's format cannot say it
    if type(obj) in (dict, OrderedDict):
        if type(obj) is OrderedDict and obj.__dict__ and not _collect(obj.__dict__, storages, depth + 1):
            return False
        return all(_collect(k, storages, depth + 1) and _collect(v, storages, depth + 1) for k, v in obj.items())
    if type(obj) in (list, tuple):
        return all(_collect(v, storages, depth + 1) for v in obj)
    return False


def can_write(obj: Any) -> dict | None:
    """The storages to write when `obj` fits PyTorch's zip format (else None)."""
    storages: dict = {}
    return storages if _collect(obj, storages) else None


def _storage_bytes(st: Storage, nbytes: int) -> bytes:
    if st.device.type == "cpu":
        return st.data[:nbytes].tobytes()
    u8 = Tensor._make(st, 0, (st.nbytes,), (1,), dtypes.uint8)
    return u8._host_array()[:nbytes].tobytes()


def write_torch_zip(obj: Any, storages: dict, archive_name: str = "archive") -> bytes:
    """The bytes of a PyTorch zip checkpoint of `obj`, whose storages `can_write` gathered."""
    pkl = io.BytesIO()
    _ZipPickler(pkl, storages).dump(obj)
    records = [("data.pkl", pkl.getvalue()), (".format_version", b"1"), (".storage_alignment", b"64"),
               ("byteorder", b"little")]
    for key, st, dt in storages.values():
        if st.device.type == "meta":  # PyTorch writes no record for a meta storage: it has no data
            continue
        records.append((f"data/{key}", _storage_bytes(st, st.nbytes // dt.itemsize * dt.itemsize)))
    records.append(("version", b"3\n"))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED, allowZip64=True) as z:
        for name, data in records:
            info = zipfile.ZipInfo(f"{archive_name}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            start = out.tell() + 30 + len(info.filename.encode()) + 4  # local header, name, extra block header
            info.extra = b"FB" + (-start % _ALIGN).to_bytes(2, "little") + b"Z" * (-start % _ALIGN)
            z.writestr(info, data)
    return out.getvalue()


def archive_name_for(f) -> str:
    """PyTorch's archive folder: the file's name without its extension, else "archive"."""
    if isinstance(f, str | os.PathLike):
        stem = os.path.splitext(os.path.basename(os.fspath(f)))[0]
        if stem and stem.isascii() and stem.isprintable() and "/" not in stem:
            return stem
    return "archive"
