"""`save` / `load`: checkpoints in PyTorch's zip format (which `torch.load` opens) and in
ember's own format; loading never executes code from the file.

`save` writes PyTorch's zip format (NOTE [ Writing PyTorch's zip format ] in `torch_checkpoint`)
whenever the object is made of tensors (and `Parameter`s), plain dicts/lists/tuples, Python
scalars, dtypes, devices and Sizes, i.e. what `torch.load(weights_only=True)` accepts; anything
else (a whole module, another tensor subclass, one storage seen as two dtypes) is written in
ember's format below. `load` reads both, and PyTorch's own files.

NOTE [ Checkpoint format ]
A checkpoint is one file (or byte stream), all integers little-endian:

    offset 0   magic b"EMBERCKP"
           8   format version, u32 (1)
          12   header length N, u64
          20   header: N bytes of UTF-8 JSON
               zero padding to a multiple of 64
        data   the storages' raw bytes, each starting at a multiple of 64 from the data start
         end   SHA-256 of every byte before it (32 bytes)

The header holds the storages (`nbytes`, `offset` from the data start, `device`: a `meta` storage has
no bytes in the data section, and loads as meta) and the saved
object, encoded with tagged JSON objects: `{"__tensor__": {storage, offset, shape, stride,
dtype, requires_grad}}`, `{"__list__": [...]}`, `{"__tuple__": [...]}`, `{"__dict__": [[k, v],
...]}` (keys of any supported type, order kept), `{"__odict__": ...}`, `{"__float__": "nan"}`,
`{"__dtype__": "float32"}`, `{"__device__": "cuda:0"}`, `{"__size__": [...]}`; None, bools,
ints, strings and finite floats are plain JSON. Tensors that share a storage share its single
copy in the file, so views stay views after loading. A tensor subclass (`nn.Parameter`) records
its class name and comes back as that class when its module is already imported (nothing is
imported for it). Loading checks, in order: the magic, the length (truncation), the checksum,
the storage table (integer byte ranges inside the data section), then every entry as it is
decoded: tags, types, nesting depth (`MAX_DEPTH`), dtypes, storage indices, and each tensor's
geometry through the gate (NOTE [ The geometry gate ]); it builds only tensors and the
containers above. Every failure is a `CheckpointError` naming the file and the entry
(NOTE [ Load errors ]).

Any other object (a whole `nn.Module`) is stored as `{"__pickle__": base64}`, with its tensors
still in the storages (pickle's persistent ids). Unpickling runs code named by the file, so the
default (weights-only) load resolves only allowlisted globals inside such an entry: containers,
dtypes, devices and what the program allowed with `add_safe_globals`/`safe_globals` (PyTorch's
`torch.serialization` API), and `BUILD` may not touch a tensor (its geometry passed the gate);
`weights_only=False` resolves anything. Saving to a path writes a temporary file in the same
directory and renames it over the target (`os.replace`), so a crash mid-save leaves the old file;
the temporary of a save killed outright is removed by the next save into that directory
(`checkpoint_io.atomic_write`).
"""

from __future__ import annotations

import _compat_pickle
import base64
import hashlib
import io
import json
import math
import os
import pickle
import pickletools
import struct
import sys
from collections import Counter, OrderedDict
from typing import Any, BinaryIO

import numpy as np

from ember.core import dtypes
from ember.core.class_paths import home_module
from ember.core.device import device as Device
from ember.core.geometry import make_tensor
from ember.core.meta import meta_storage
from ember.core.storage import Storage
from ember.core.sparse import (SparseTensor, _rebuild_coo, _rebuild_csc, _rebuild_csr, sparse_coo_tensor,
                               sparse_csc_tensor, sparse_csr_tensor)
from ember.core.tensor import Size, Tensor

from ember.autograd import legacy_magic, torch_checkpoint
from ember.autograd.checkpoint_io import (MAX_DEPTH, CallerError, CheckpointError, UnsafeGlobalError, atomic_write,
                                         check_depth, reraise)
from ember.autograd.tensor_api import warn_if_has_hooks

__all__ = ["save", "load", "CheckpointError", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals", "get_unsafe_globals_in_checkpoint"]

# globals a weights-only load may resolve inside pickled objects: containers, dtypes and devices, and what
# the program allowlisted (`add_safe_globals`, `safe_globals`), as PyTorch's weights-only unpickler
def _is_nested(obj) -> bool:
    """Whether `obj` is a nested tensor, without importing `ember.core.nested` (defining its class turns on the
    subclass check of every op: NOTE [ Tensor subclasses ]); none exists before that module is loaded."""
    nested = sys.modules.get("ember.core.nested")
    return nested is not None and isinstance(obj, nested.NestedTensor)


def _rebuild_nested(*args):
    """A pickled nested tensor rebuilt by `ember.core.nested._rebuild` (its buffer and geometry checked against
    each other), imported only when a checkpoint holds one."""
    from ember.core.nested import _rebuild

    return _rebuild(*args)


_BUILTIN_SAFE = {("collections", "OrderedDict"): OrderedDict, ("collections", "Counter"): Counter,
                 ("builtins", "set"): set, ("builtins", "bytearray"): bytearray, ("builtins", "complex"): complex,
                 ("ember.core.dtypes", "as_dtype"): dtypes.as_dtype, ("ember.core.device", "device"): Device,
                 # a pickled sparse tensor: rebuilt through the validating constructors
                 ("ember.core.sparse", "_rebuild_coo"): _rebuild_coo,
                 ("ember.core.sparse", "_rebuild_csr"): _rebuild_csr,
                 ("ember.core.sparse", "_rebuild_csc"): _rebuild_csc,
                 # a nested tensor: its buffer and geometry, checked against each other
                 ("ember.core.nested", "_rebuild"): _rebuild_nested}
_safe_globals: list = []


def add_safe_globals(safe_globals: list) -> None:
    """Allow a weights-only `load` to build these classes and call these functions (each an object, or an
    `(object, "module.name")` pair naming where the checkpoint refers to it)."""
    _safe_globals.extend(safe_globals)


def get_safe_globals() -> list:
    """What `add_safe_globals` allowed so far."""
    return list(_safe_globals)


def clear_safe_globals() -> None:
    """Forget everything `add_safe_globals` allowed."""
    _safe_globals.clear()


class safe_globals:
    """`with safe_globals([Cls]):` allows `Cls` to weights-only loads inside the block only."""

    def __init__(self, safe_globals: list) -> None:
        self.safe_globals = list(safe_globals)

    def __enter__(self) -> None:
        self._saved = list(_safe_globals)
        _safe_globals.extend(self.safe_globals)

    def __exit__(self, *exc) -> None:
        _safe_globals[:] = self._saved


def get_unsafe_globals_in_checkpoint(f) -> list[str]:
    """The globals (`"module.name"`, sorted: PyTorch's list comes from a set) that the pickles of checkpoint `f` (a
    path or a binary file) name and a weights-only `load` would refuse: neither allowed by default nor by
    `add_safe_globals` / `safe_globals`. Nothing is unpickled, so no code runs.

    Raises:
        ValueError: `f` is neither a PyTorch zip checkpoint nor an ember one (PyTorch's words).
    """
    data, name = _read_all(f)
    data = bytes(data) if not isinstance(data, bytes) else data
    if torch_checkpoint.is_torch_zip(data):
        pickles, allowed = torch_checkpoint.pickles_and_allowed(data, name)
    elif data[:len(MAGIC)] == MAGIC:
        pickles, allowed = _pickled_entries(_check(data, name)["object"]), {}
    else:
        raise ValueError("Expected input to be a checkpoint returned by torch.save")
    # protocol 2's Python 2 names mapped back, as unpickling maps them
    found = {_compat_pickle.NAME_MAPPING.get(g, (_compat_pickle.IMPORT_MAPPING.get(g[0], g[0]), g[1])): g
             for pkl in pickles for g in _pickle_globals(pkl)}
    return sorted(f"{m}.{n}" for (m, n), raw in found.items()
                  if raw not in allowed and (m, n) not in allowed and _allowed_global(m, n) is None)


def _pickled_entries(v) -> list[bytes]:
    """The pickles of an ember checkpoint's `__pickle__` entries, anywhere in its tagged JSON object."""
    if isinstance(v, dict):
        if isinstance(v.get("__pickle__"), str):
            return [base64.b64decode(v["__pickle__"])]
        v = list(v.values())
    return [p for e in v for p in _pickled_entries(e)] if isinstance(v, list) else []


def _pickle_globals(pkl: bytes) -> list[tuple[str, str]]:
    """The (module, name) of each GLOBAL / STACK_GLOBAL of a pickle, read from its opcodes (the two strings a
    STACK_GLOBAL pops may come from the memo)."""
    out, strings, memo, last = [], [], {}, None
    for op, arg, _ in pickletools.genops(pkl):
        if op.name == "GLOBAL":
            out.append(tuple(arg.split(" ", 1)))
        elif op.name == "STACK_GLOBAL" and len(strings) >= 2:
            out.append((strings[-2], strings[-1]))
        if op.name in ("SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE"):
            strings.append(last := arg)
            continue
        if op.name in ("BINGET", "LONG_BINGET", "GET") and isinstance(memo.get(arg), str):
            strings.append(last := memo[arg])
            continue
        if op.name == "MEMOIZE" and last is not None:
            memo[len(memo)] = last
        elif op.name in ("BINPUT", "LONG_BINPUT", "PUT") and last is not None:
            memo[arg] = last
        elif op.name == "MEMOIZE":
            memo[len(memo)] = None
        last = None
    return out


def _allowed_global(module: str, name: str):
    obj = _BUILTIN_SAFE.get((module, name))
    if obj is not None:
        return obj
    for entry in reversed(_safe_globals):
        obj, full = entry if isinstance(entry, tuple) else (entry, None)
        if full is None:
            qualname = getattr(obj, '__qualname__', getattr(obj, '__name__', ''))
            if isinstance(obj, type) and f"{home_module(obj)}.{qualname}" == f"{module}.{name}":
                return obj  # a file written without the torch names (NOTE [ Classes named by PyTorch's paths ])
            full = f"{getattr(obj, '__module__', '')}.{qualname}"
        if full == f"{module}.{name}":
            return obj
    return None

MAGIC = b"EMBERCKP"
VERSION = 1
_PREAMBLE = struct.Struct("<8sIQ")
_ALIGN = 64
_DIGEST = 32


def _align(n: int) -> int:
    return (n + _ALIGN - 1) // _ALIGN * _ALIGN


class _Encoder:
    """Turns the object into tagged JSON and collects the storages it references (each once)."""

    def __init__(self) -> None:
        self.storages: list[Storage] = []
        self.index: dict[int, int] = {}

    def encode(self, obj: Any) -> Any:
        if obj is None or isinstance(obj, bool | int | str):
            return obj
        if isinstance(obj, float):
            return obj if math.isfinite(obj) else {"__float__": repr(obj)}
        if isinstance(obj, Tensor) and not _is_nested(obj):  # a nested one pickles its parts
            if isinstance(obj, SparseTensor):
                return {"__sparse__": self._sparse(obj)}
            return {"__tensor__": self._tensor(obj)}
        if isinstance(obj, Size):
            return {"__size__": list(obj)}
        # exact types: a subclass (Counter, defaultdict, a namedtuple) is pickled, so it loads as itself
        if type(obj) is OrderedDict:
            return {"__odict__": [[self.encode(k), self.encode(v)] for k, v in obj.items()]}
        if type(obj) is dict:
            return {"__dict__": [[self.encode(k), self.encode(v)] for k, v in obj.items()]}
        if type(obj) is list:
            return {"__list__": [self.encode(v) for v in obj]}
        if type(obj) is tuple:
            return {"__tuple__": [self.encode(v) for v in obj]}
        if isinstance(obj, dtypes.dtype):
            return {"__dtype__": obj.name}
        if isinstance(obj, Device):
            return {"__device__": str(obj)}
        if isinstance(obj, np.generic):
            return self.encode(obj.item())
        buf = io.BytesIO()
        _TensorPickler(buf, self).dump(obj)
        return {"__pickle__": base64.b64encode(buf.getvalue()).decode("ascii")}

    def _sparse(self, t: SparseTensor) -> dict:
        """A sparse tensor as its index and value tensors; loading rebuilds it through the validating constructor."""
        coo = t.layout.name == "sparse_coo"
        parts = [t._indices(), t._values()] if coo else [t.crow_indices(), t.col_indices(), t._values()] \
            if t.layout.name == "sparse_csr" else [t.ccol_indices(), t.row_indices(), t._values()]
        enc = {"layout": t.layout.name, "size": list(t._shape), "coalesced": bool(coo and t.is_coalesced()),
               "requires_grad": bool(t.requires_grad), "parts": [self._tensor(p.detach()) for p in parts]}
        if f"{home_module(type(t))}:{type(t).__qualname__}" == _PARAMETER_CLASS:  # `Parameter(sparse)`
            enc["parameter"] = True
        return enc

    def _tensor(self, t: Tensor) -> dict:
        if t._requires_grad:
            warn_if_has_hooks(t)
        st = t._storage.root
        i = self.index.get(id(st))
        if i is None:
            i = self.index[id(st)] = len(self.storages)
            self.storages.append(st)
        enc = {"storage": i, "offset": t._offset, "shape": list(t._shape), "stride": list(t._strides),
               "dtype": t._dtype.name, "requires_grad": bool(t._requires_grad)}
        if type(t) is not Tensor:
            enc["cls"] = f"{home_module(type(t))}:{type(t).__qualname__}"
        if t._conj:  # the storage holds the conjugates of its values (NOTE [ Complex storage and conj ])
            enc["conj"] = True
        if t._neg:  # and of a negative view the negations
            enc["neg"] = True
        return enc


class _TensorPickler(pickle.Pickler):
    """Pickles an arbitrary object, leaving its tensors to the checkpoint's storages."""

    def __init__(self, f, encoder: _Encoder) -> None:
        super().__init__(f, protocol=4)
        self.encoder = encoder

    def persistent_id(self, obj):
        if isinstance(obj, Tensor) and not (isinstance(obj, SparseTensor) or _is_nested(obj)):  # these pickle parts
            return ("tensor", self.encoder._tensor(obj))
        return None


class _TensorUnpickler(pickle._Unpickler):
    """Pickled objects whose tensors come from the storages; the pure-Python unpickler, so that a
    weights-only load can refuse `BUILD` on a tensor (it would rewrite a geometry the gate checked)."""

    dispatch = dict(pickle._Unpickler.dispatch)

    def __init__(self, f, decoder: _Decoder) -> None:
        super().__init__(f)
        self.decoder = decoder

    def _load_build(self) -> None:
        if self.decoder.weights_only and isinstance(self.stack[-2], Tensor):
            raise CheckpointError(f"load: {self.decoder.name}: {self.decoder.record}: a pickled object sets the "
                                  "state of a tensor (BUILD), which a weights-only load refuses")
        pickle._Unpickler.load_build(self)

    dispatch[pickle.BUILD[0]] = _load_build

    def find_class(self, module: str, name: str):
        if not self.decoder.weights_only:
            return super().find_class(module, name)
        obj = _allowed_global(module, name)
        if obj is None:
            raise _unsupported_global(self.decoder, "holds pickled Python objects (such as a whole module), and "
                                      "loading them runs code named by the file", module, name)
        return obj

    def persistent_load(self, pid):
        return self.decoder._tensor(pid[1])


def _unsupported_global(decoder, what: str, module: str, name: str) -> CheckpointError:
    return UnsafeGlobalError(
        f"load: {decoder.name}: {decoder.record}: {what}. Weights only load failed: Unsupported global: GLOBAL "
        f"{module}.{name} was not an allowed global by default. Please use "
        f"`torch.serialization.add_safe_globals([{name}])` or the "
        f"`torch.serialization.safe_globals([{name}])` context manager to allowlist this global if you "
        "trust this class/function, pass weights_only=False only if you trust where this file comes "
        "from, or save a state_dict instead.")


def _storage_bytes(st: Storage) -> bytes:
    if st.device.type == "cpu":
        return st.data[: st.nbytes].tobytes()
    u8 = Tensor._make(st, 0, (st.nbytes,), (1,), dtypes.uint8)
    return u8._host_array().tobytes()


def _serialize(obj: Any) -> list[bytes]:
    """The checkpoint's bytes as chunks (preamble+header, each storage, padding, digest)."""
    if sys.byteorder != "little":
        raise NotImplementedError("save: ember checkpoints are written on little-endian machines only")
    enc = _Encoder()
    root = enc.encode(obj)
    entries, offset = [], 0
    for st in enc.storages:
        entries.append({"nbytes": st.nbytes, "offset": offset, "device": str(st.device)})
        if st.device.type != "meta":  # a meta storage has no bytes to write
            offset = _align(offset + st.nbytes)
    header = json.dumps({"storages": entries, "data_nbytes": offset, "object": root},
                        separators=(",", ":")).encode()
    head = _PREAMBLE.pack(MAGIC, VERSION, len(header)) + header
    chunks = [head + b"\0" * (_align(len(head)) - len(head))]
    pos = 0
    for st, e in zip(enc.storages, entries):
        data = _storage_bytes(st) if st.device.type != "meta" else b""
        chunks.append(data)
        pos = e["offset"] + len(data)
        chunks.append(b"\0" * (_align(pos) - pos))
    digest = hashlib.sha256()
    for c in chunks:
        digest.update(c)
    chunks.append(digest.digest())
    return chunks


def _write_chunks(f: BinaryIO, chunks: list[bytes]) -> None:
    for c in chunks:
        f.write(c)


def save(obj: Any, f, pickle_module: Any = None, pickle_protocol: int = 2,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    """Save tensors and (nested) lists/tuples/dicts of tensors and Python scalars to `f`.

    Args:
        obj: what to save (a state dict, an optimizer state, a tensor ...), written in PyTorch's
            zip format, which `torch.load(f, weights_only=True)` opens. Any other object (a
            whole module) is pickled into ember's own format, and loading it then needs
            `weights_only=False`.
        f: a path, or a binary file object such as `io.BytesIO`. A path is written atomically.

    The pickle arguments of `torch.save` are accepted and ignored (see NOTE [ Checkpoint format ]).

    Example:
        >>> import io
        >>> from ember.autograd import tensor
        >>> buf = io.BytesIO()
        >>> save({"w": tensor([1.0, 2.0])}, buf)
        >>> _ = buf.seek(0)
        >>> load(buf)["w"]
        tensor([1., 2.])
    """
    if not hasattr(f, "write") and not isinstance(f, str | bytes | os.PathLike):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")
    storages = torch_checkpoint.can_write(obj)
    if storages is not None:
        chunks = [torch_checkpoint.write_torch_zip(obj, storages, torch_checkpoint.archive_name_for(f))]
    else:
        chunks = _serialize(obj)
    if hasattr(f, "write"):
        _write_chunks(f, chunks)
        return
    atomic_write(f, lambda out: _write_chunks(out, chunks))


def _read_all(f) -> tuple[bytes, str]:
    if hasattr(f, "read"):
        return f.read(), getattr(f, "name", "<file object>")
    if not isinstance(f, str | bytes | os.PathLike):  # PyTorch takes it for a buffer and seeks it
        raise AttributeError(f"'{type(f).__name__}' object has no attribute 'seek'. You can only torch.load from a "
                             "file that is seekable. Please pre-load the data into a buffer like io.BytesIO and try to "
                             "load from it instead.")
    path = os.fspath(f)
    with open(path, "rb") as fh:
        return fh.read(), path


def _fail(name: str, record: str, problem: str) -> CheckpointError:
    return CheckpointError(f"load: {name}: {record}: {problem}")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check(data: bytes, name: str) -> dict:
    """Validate magic, length, checksum and the storage table; return the parsed header."""
    if len(data) < _PREAMBLE.size or data[:8] != MAGIC:
        raise _fail(name, "preamble", "is not an ember checkpoint: bad magic number")
    _, version, n = _PREAMBLE.unpack_from(data)
    if version != VERSION:
        raise _fail(name, "preamble", f"is an ember checkpoint of format version {version}; this ember reads "
                    f"version {VERSION}")
    head_end = _PREAMBLE.size + n
    if len(data) < head_end + _DIGEST:
        raise _fail(name, "header", f"truncated: the header needs {head_end + _DIGEST} bytes, the file has "
                    f"{len(data)}")
    try:
        header = json.loads(data[_PREAMBLE.size:head_end])
    except RecursionError:
        raise _fail(name, "header", f"nesting too deep (more than {MAX_DEPTH} levels)") from None
    except ValueError as e:
        raise _fail(name, "header", f"corrupted: checksum mismatch (unreadable header: {e})") from None
    if not isinstance(header, dict) or not _is_int(header.get("data_nbytes")) or header["data_nbytes"] < 0 \
            or not isinstance(header.get("storages"), list) or "object" not in header:
        raise _fail(name, "header", "corrupted: the header lacks its storages, data_nbytes or object")
    total = _align(head_end) + header["data_nbytes"] + _DIGEST
    if len(data) < total:
        raise _fail(name, "data", f"truncated: expected {total} bytes, found {len(data)}")
    if len(data) > total:
        raise _fail(name, "data", f"corrupted: {len(data) - total} unexpected bytes after the checkpoint")
    if hashlib.sha256(memoryview(data)[:-_DIGEST]).digest() != data[-_DIGEST:]:
        raise _fail(name, "digest", "corrupted: checksum mismatch")
    for i, e in enumerate(header["storages"]):
        if not (isinstance(e, dict) and _is_int(e.get("nbytes")) and _is_int(e.get("offset"))
                and isinstance(e.get("device"), str)):
            raise _fail(name, f"storage {i}", "malformed entry (needs integer nbytes and offset and a device string)")
        span = 0 if e["device"] == "meta" else e["nbytes"]  # a meta storage's bytes are not in the file
        if e["nbytes"] < 0 or e["offset"] < 0 or e["offset"] + span > header["data_nbytes"]:
            raise _fail(name, f"storage {i}", f"bytes [{e['offset']}, {e['offset'] + e['nbytes']}) lie outside the "
                        f"data section of {header['data_nbytes']} bytes")
        try:
            e["device"] = Device(e["device"])
        except Exception as err:
            raise _fail(name, f"storage {i}", f"invalid device {e['device']!r:.40} ({err})") from None
    header["_data_start"] = _align(head_end)
    return header


def _check_map_location(map_location) -> None:
    if not (map_location is None or callable(map_location) or isinstance(map_location, dict | str | Device)):
        raise TypeError(f"load: map_location must be None, a device, a string, a dict or a callable; got "
                        f"{type(map_location).__name__}")


def _target_device(saved: str, map_location) -> Device:
    if map_location is None:
        dev = Device(saved)
    elif isinstance(map_location, dict):
        dev = Device(map_location.get(saved, saved))
    elif isinstance(map_location, str | Device):
        dev = Device(map_location)
    else:
        raise TypeError(f"load: map_location must be None, a device, a string, a dict or a callable; got "
                        f"{type(map_location).__name__}")
    if dev.type == "cuda":
        from ember.core import cuda

        if not cuda.is_available():  # PyTorch's error, raised as it is (not as a load error)
            raise CallerError(RuntimeError(
                "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you "
                "are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to "
                "map your storages to the CPU."))
    return dev


def _mapped_by(fn, storage: Storage, location: str) -> Storage:
    """PyTorch's callable `map_location(storage, location)`: given the CPU storage and the saved
    location ("cpu", "cuda:0"), it returns the storage to use (None keeps the CPU one)."""
    try:
        out = fn(storage, location)
    except Exception as e:
        raise CallerError(e) from None
    if out is None:
        return storage
    if not isinstance(out, Storage):
        raise CallerError(TypeError(f"load: map_location returned {type(out).__name__}; it must return the "
                                    "storage it was given (or another Storage)"))
    return out


_TAGS = ("__tensor__", "__list__", "__tuple__", "__dict__", "__odict__", "__float__", "__size__", "__dtype__",
         "__device__", "__pickle__", "__sparse__")


class _Decoder:
    """Builds the saved object from the header, checking every entry; `self.record` names the
    entry being read, for the load error (NOTE [ Load errors ])."""

    def __init__(self, data: bytes, header: dict, name: str, map_location, weights_only: bool) -> None:
        self.name = name
        self.weights_only = weights_only
        self.record = "object"
        start = header["_data_start"]
        self.storages = []
        for e in header["storages"]:
            if e["device"].type == "meta":  # no data, wherever map_location puts the rest
                self.storages.append(meta_storage(e["nbytes"]))
                continue
            buf = np.frombuffer(data, np.uint8, e["nbytes"], start + e["offset"]).copy()
            st = Storage.wrap_cpu(buf)
            if callable(map_location) and not isinstance(map_location, dict | str | Device):
                self.storages.append(_mapped_by(map_location, st, str(e["device"])))
                continue
            dev = _target_device(str(e["device"]), map_location)
            if dev.type != "cpu":
                st = Tensor._make(st, 0, (st.nbytes,), (1,), dtypes.uint8).to(dev)._storage
            self.storages.append(st)

    def _sparse(self, body: Any) -> SparseTensor:
        """A sparse tensor rebuilt by its constructor, which checks every index against the size."""
        if not (isinstance(body, dict) and body.get("layout") in ("sparse_coo", "sparse_csr", "sparse_csc")
                and isinstance(body.get("parts"), list) and isinstance(body.get("size"), list)
                and all(_is_int(n) and n >= 0 for n in body["size"])):
            raise self.fail("corrupted sparse tensor entry")
        coo = body["layout"] == "sparse_coo"
        if len(body["parts"]) != (2 if coo else 3):
            raise self.fail("corrupted sparse tensor entry: wrong number of parts")
        parts = [self._tensor(p) for p in body["parts"]]
        grad = bool(body.get("requires_grad"))
        try:
            if coo:
                t = sparse_coo_tensor(*parts, tuple(body["size"]), is_coalesced=bool(body.get("coalesced")),
                                      requires_grad=grad, check_invariants=True)
            else:
                make = sparse_csr_tensor if body["layout"] == "sparse_csr" else sparse_csc_tensor
                t = make(*parts, tuple(body["size"]), requires_grad=grad, check_invariants=True)
        except (RuntimeError, TypeError) as e:
            raise self.fail(f"invalid sparse tensor: {e}") from None
        if body.get("parameter") is True:  # a Parameter again where ember.nn is imported (its class holds sparse)
            param = _loaded_class(_PARAMETER_CLASS)
            return t if param is Tensor else param(t, grad)
        return t

    def fail(self, problem: str) -> CheckpointError:
        return _fail(self.name, self.record, problem)

    def decode(self, v: Any, path: str = "object", depth: int = 0) -> Any:
        self.record = path
        if v is None or isinstance(v, bool | int | float | str):
            return v
        if not isinstance(v, dict) or len(v) != 1:
            raise self.fail(f"unexpected JSON {type(v).__name__} (expected a value or a single-tag object)")
        if depth >= MAX_DEPTH:
            raise self.fail(f"containers nested deeper than {MAX_DEPTH} levels")
        (tag, body), = v.items()
        if tag not in _TAGS:
            raise self.fail(f"corrupted: unknown entry '{tag:.40}'")
        if tag == "__tensor__":
            return self._tensor(body)
        if tag == "__sparse__":
            return self._sparse(body)
        if tag in ("__list__", "__tuple__"):
            items = [self.decode(x, f"{path}[{i}]", depth + 1) for i, x in enumerate(self._list(body, tag))]
            return items if tag == "__list__" else tuple(items)
        if tag in ("__dict__", "__odict__"):
            out = {} if tag == "__dict__" else OrderedDict()
            for i, kv in enumerate(self._list(body, tag)):
                if not (isinstance(kv, list) and len(kv) == 2):
                    raise self.fail(f"entry {i} of {tag} is not a [key, value] pair")
                k = self._key(self.decode(kv[0], f"{path}.key[{i}]", depth + 1))
                out[k] = self.decode(kv[1], f"{path}[{k!r:.40}]", depth + 1)
            return out
        if tag == "__float__":
            if body not in ("nan", "inf", "-inf"):
                raise self.fail(f"invalid non-finite float {body!r:.40}")
            return float(body)
        if tag == "__size__":
            sizes = self._list(body, tag)
            if not all(_is_int(n) and n >= 0 for n in sizes):
                raise self.fail(f"a Size must hold non-negative integers; got {sizes!r:.80}")
            return Size(sizes)
        if tag == "__dtype__":
            if not isinstance(body, str) or body not in dtypes._BY_NAME:
                raise self.fail(f"unknown dtype {body!r:.40}")
            return dtypes._BY_NAME[body]
        if tag == "__device__":
            if not isinstance(body, str):
                raise self.fail(f"a device must be a string; got {type(body).__name__}")
            return Device(body)
        if not isinstance(body, str):  # weights-only: globals restricted to the allowlist (find_class)
            raise self.fail("a pickled entry must be a base64 string")
        obj = _TensorUnpickler(io.BytesIO(base64.b64decode(body, validate=True)), self).load()
        self.record = path
        check_depth(obj, self.name, path, MAX_DEPTH - depth)
        return obj

    def _list(self, body, tag: str) -> list:
        if not isinstance(body, list):
            raise self.fail(f"{tag} must hold a JSON array; got {type(body).__name__}")
        return body

    def _key(self, k):
        k = tuple(k) if isinstance(k, list) else k
        try:
            hash(k)
        except TypeError:
            raise self.fail(f"unhashable dict key of type {type(k).__name__}") from None
        return k

    def _tensor(self, b) -> Tensor:
        if not isinstance(b, dict):
            raise self.fail("a tensor entry must be a JSON object")
        i, dt = b.get("storage"), b.get("dtype")
        if not _is_int(i) or not 0 <= i < len(self.storages):
            raise self.fail(f"invalid storage index {i!r:.40} (the file has {len(self.storages)} storages)")
        if not isinstance(dt, str) or dt not in dtypes._BY_NAME:
            raise self.fail(f"unknown dtype {dt!r:.40}")
        if not isinstance(b.get("requires_grad", False), bool) or not isinstance(b.get("cls"), str | None) \
                or not isinstance(b.get("conj", False), bool):
            raise self.fail("requires_grad and conj must be bools and cls a string")
        cls = b.get("cls")
        if cls and self.weights_only and cls not in _WEIGHTS_ONLY_TENSORS:
            # PyTorch's weights-only unpickler builds Tensor and Parameter; another subclass (such as
            # UninitializedParameter, which has no data to hold) only when allowlisted
            module, _, qualname = cls.partition(":")
            if _allowed_global(module, qualname) is None:
                raise _unsupported_global(self, "holds a tensor of a subclass", module, qualname)
        try:  # NOTE [ The geometry gate ]
            t = make_tensor(self.storages[i], b.get("offset"), b.get("shape"), b.get("stride"), dtypes._BY_NAME[dt],
                            _loaded_class(cls), op="load")
        except (TypeError, RuntimeError) as e:
            raise self.fail(f"tensor over storage {i}: {e}") from None
        if b.get("conj"):
            if not t._dtype.is_complex:
                raise self.fail(f"only complex tensors can be conjugate views; got {dt}")
            t._conj = True
            t._npc = None
        if b.get("neg"):
            t._neg = True
            t._npc = None
        if b.get("requires_grad"):
            if not (t._dtype.is_floating_point or t._dtype.is_complex):
                raise self.fail(f"only floating point and complex tensors can require gradients; got {dt}")
            t.requires_grad_(True)
        return t


_PARAMETER_CLASS = "ember.nn.parameter:Parameter"
_WEIGHTS_ONLY_TENSORS = frozenset({_PARAMETER_CLASS})  # subclasses a weights-only load builds


def _loaded_class(name: str | None) -> type:
    """The tensor subclass named `module:qualname` if its module is imported, else Tensor."""
    if not name:
        return Tensor
    module, _, qualname = name.partition(":")
    obj = sys.modules.get(module)
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    return obj if isinstance(obj, type) and issubclass(obj, Tensor) else Tensor


def load(f, map_location=None, pickle_module: Any = None, *, weights_only: bool = True, mmap: bool | None = None,
         **pickle_load_args: Any) -> Any:
    """Load what `save` wrote, building only tensors and plain containers (no code runs).

    Args:
        f: a path or a binary file object.
        map_location: None (each tensor back on its saved device), a device or string for all of
            them, a dict mapping saved device strings to new ones (`{"cuda:0": "cpu"}`), or a
            callable `(storage, location) -> storage` given each storage on the CPU.
        weights_only: True (the default) builds pickled objects (whole modules) only from the globals
            allowlisted with `add_safe_globals`/`safe_globals`; False unpickles anything, which runs
            code named by the file.

    Checkpoints written by `torch.save` (PyTorch's zip format) load too: their tensors, state
    dicts and containers, through a restricted unpickler (see `torch_checkpoint`).

    Raises:
        CheckpointError: (a `RuntimeError` and a `pickle.UnpicklingError`) the file is not a
            checkpoint, is truncated or corrupted, holds a tensor outside its storage, nests too
            deep, or, with `weights_only`, a pickled object names a global that is not allowlisted
            (`add_safe_globals`: then printed as PyTorch's `UnpicklingError`); the message names the file and
            the record (NOTE [ Load errors ]). Bytes that are no checkpoint at all raise what PyTorch raises
            for them (`legacy_magic`).
        TypeError: `map_location` is of an unsupported type or returned something else than a storage.
    """
    _check_map_location(map_location)
    if mmap and (hasattr(f, "read") or not isinstance(f, str | bytes | os.PathLike)):
        raise ValueError("f must be a file path in order to use the mmap argument")
    data, name = _read_all(f)
    data = bytes(data) if not isinstance(data, bytes) else data
    if torch_checkpoint.is_torch_zip(data):
        return torch_checkpoint.load_torch_zip(data, name, map_location)
    if torch_checkpoint.is_legacy_torch(data):
        raise CheckpointError(f"load: {name}: preamble: is a PyTorch checkpoint in the legacy format (written by "
                              "torch.save before PyTorch 1.6, or with _use_new_zipfile_serialization=False), which "
                              "ember does not read; load it in PyTorch and save it again with torch.save")
    if not (data and MAGIC.startswith(data[:len(MAGIC)])):  # not even the start of an ember checkpoint
        legacy_magic.raise_as_pytorch(data, weights_only)
    header = _check(data, name)
    decoder = None
    try:
        decoder = _Decoder(data, header, name, map_location, weights_only)
        return decoder.decode(header["object"])
    except Exception as e:
        reraise(e, name, decoder.record if decoder is not None else "storages")
