"""Reading and writing `.safetensors` files (Hugging Face's format) through the `safetensors`
library's numpy API, with bfloat16 (through ml_dtypes) and every dtype of the format ember has.

The format: an 8-byte little-endian header length N, N bytes of JSON (padded with spaces to a
multiple of 8) mapping each tensor name to `{"dtype", "shape", "data_offsets": [begin, end]}`
(offsets into the byte buffer that follows), plus an optional `"__metadata__"` of strings.
The API mirrors `safetensors.torch`: `save`/`load` (bytes) and `save_file`/`load_file` (paths).
Tensors are written contiguous and each gets its own bytes (views are not shared).

Loading runs ember's own validation pass first (header size, JSON, every entry's dtype, shape
and offsets inside the buffer, no two tensors' bytes overlapping), so a hostile file gets the
same `SafetensorError` naming the file and the entry whatever the library's version says; the
library then reads the bytes (`safetensors.deserialize`), and any error it still raises is
wrapped in `SafetensorError` naming the file. Saving to a path stays atomic (the library's
bytes, written to a temporary renamed over the target).
"""

from __future__ import annotations

import json
import os
import struct

import numpy as np
import safetensors as _lib
import safetensors.numpy as _lib_np

from ember.core import dtypes
from ember.core.geometry import make_tensor
from ember.core.storage import Storage
from ember.core.tensor import Tensor, contiguous_strides

from ember.autograd.checkpoint_io import CheckpointError, atomic_write

__all__ = ["save", "load", "save_file", "load_file", "metadata_of", "SafetensorError"]

_CODES = {"float64": "F64", "float32": "F32", "float16": "F16", "bfloat16": "BF16", "int64": "I64", "int32": "I32",
          "int16": "I16", "int8": "I8", "uint8": "U8", "bool": "BOOL"}
_CODES.update({"uint16": "U16", "uint32": "U32", "uint64": "U64", "float8_e4m3fn": "F8_E4M3",
               "float8_e5m2": "F8_E5M2", "float8_e8m0fnu": "F8_E8M0"})
_DTYPES = {code: name for name, code in _CODES.items()}
# codes of the format that ember has no dtype for: named in the error
_FOREIGN = ("F4", "F6_E2M3", "F6_E3M2", "C64", "C128")
_MAX_HEADER = 100_000_000


class SafetensorError(CheckpointError, ValueError):
    """A file or buffer that is not a valid safetensors file: ember's one load error
    (NOTE [ Load errors ]), and a `ValueError` as before."""


def save(tensors: dict[str, Tensor], metadata: dict[str, str] | None = None) -> bytes:
    """The safetensors bytes of `tensors` (a dict of name -> tensor) and string `metadata`."""
    if not isinstance(tensors, dict) or not all(isinstance(k, str) and isinstance(v, Tensor)
                                                for k, v in tensors.items()):
        raise TypeError("safetensors.save expects a dict mapping str to Tensor")
    if metadata is not None:
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise TypeError("safetensors metadata must map str to str")
        metadata = dict(metadata)
    arrays = {name: np.ascontiguousarray(t.detach()._host_array()) for name, t in tensors.items()}
    try:
        return _lib_np.save(arrays, metadata=metadata)
    except _lib.SafetensorError as e:
        raise SafetensorError(f"safetensors: save: {e}") from None


def load(data: bytes, device: str = "cpu", *, _name: str = "<bytes>") -> dict[str, Tensor]:
    """The tensors of a safetensors buffer, validated (dtypes, shapes, offsets in bounds)."""
    entries = {name: (code, shape) for _, _, name, code, shape in _validate(data, _name)[1]}
    try:
        views = _lib.deserialize(bytes(data))
    except _lib.SafetensorError as e:
        raise _error(_name, "file", f"the safetensors library refuses it: {e}") from None
    out = {}
    for name, view in views:
        code, shape = entries[name]
        dt = dtypes._BY_NAME[_DTYPES[code]]
        buf = np.frombuffer(view["data"], np.uint8)  # the library's fresh bytearray: owned and writable
        if dt.itemsize > 1 and np.little_endian is False:
            buf = buf.view(dt.np.newbyteorder("<")).astype(dt.np).view(np.uint8)
        # NOTE [ The geometry gate ]
        out[name] = make_tensor(Storage.wrap_cpu(buf), 0, shape, contiguous_strides(shape), dt, op="safetensors")
    if device != "cpu":
        out = {k: v.to(device) for k, v in out.items()}
    return out


def _validate(data: bytes, _name: str) -> tuple[dict[str, str], list]:
    """ember's checks of a safetensors buffer before the library reads it: its metadata and its
    entries `(begin, end, name, code, shape)` in byte order."""
    if len(data) < 8:
        raise _error(_name, "header", "the buffer is too small to hold a header length")
    (n,) = struct.unpack_from("<Q", data)
    if n > _MAX_HEADER:
        raise _error(_name, "header", f"header too large: invalid header length {n} (the limit is {_MAX_HEADER})")
    if 8 + n > len(data):
        raise _error(_name, "header", f"invalid header length {n} for a buffer of {len(data)} bytes (truncated or "
                     "not a safetensors file)")
    try:
        header = json.loads(bytes(data[8:8 + n]))
    except RecursionError:
        raise _error(_name, "header", "the header nests too deep") from None
    except ValueError as e:
        raise _error(_name, "header", f"the header is not valid JSON ({e})") from None
    if not isinstance(header, dict):
        raise _error(_name, "header", "the header must be a JSON object")
    meta = header.pop("__metadata__", {})
    if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
        raise _error(_name, "__metadata__", "must map strings to strings")
    body = memoryview(data)[8 + n:]
    entries = []
    for name, info in header.items():
        code, shape, begin, end = _entry(_name, name, info, len(body))
        entries.append((begin, end, name, code, shape))
    entries.sort(key=lambda e: (e[0], e[1]))
    for (_, e0, a, *_), (b1, _, b, *_) in zip(entries, entries[1:]):
        if b1 < e0:
            raise _error(_name, f"tensor '{b}'", f"its bytes overlap those of tensor '{a}'")
    return meta, entries


def _error(name: str, record: str, problem: str) -> SafetensorError:
    return SafetensorError(f"safetensors: load: {name}: {record}: {problem}")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _entry(file: str, name: str, info, body_nbytes: int) -> tuple[str, tuple[int, ...], int, int]:
    """A header entry's (dtype code, shape, begin, end), each checked against the format and the body."""
    record = f"tensor '{name:.80}'"
    if not (isinstance(info, dict) and isinstance(info.get("dtype"), str) and isinstance(info.get("shape"), list)
            and isinstance(info.get("data_offsets"), list) and len(info["data_offsets"]) == 2):
        raise _error(file, record, "malformed entry (needs a dtype string, a shape list and two data_offsets)")
    code, shape, (begin, end) = info["dtype"], info["shape"], info["data_offsets"]
    if code not in _DTYPES:
        detail = " (a dtype of the format that ember does not have)" if code in _FOREIGN else ""
        raise _error(file, record, f"unsupported dtype {code:.40}{detail}")
    if not all(_is_int(s) and s >= 0 for s in shape):
        raise _error(file, record, f"the shape must hold non-negative integers; got {shape!r:.80}")
    if not (_is_int(begin) and _is_int(end)):
        raise _error(file, record, f"data_offsets must be integers; got {[begin, end]!r:.80}")
    if not 0 <= begin <= end <= body_nbytes:
        raise _error(file, record, f"invalid offsets [{begin}, {end}) for a data buffer of {body_nbytes} bytes "
                     "(truncated file?)")
    numel = 1
    for s in shape:
        numel *= s
    itemsize = dtypes._BY_NAME[_DTYPES[code]].itemsize
    if numel * itemsize != end - begin:
        raise _error(file, record, f"shape {shape} and dtype {code} need {numel * itemsize} bytes but its offsets "
                     f"span {end - begin}")
    return code, tuple(shape), begin, end


def save_file(tensors: dict[str, Tensor], filename: str | os.PathLike, metadata: dict[str, str] | None = None) -> None:
    """Write `tensors` to a `.safetensors` file (atomically: a temporary file renamed over it)."""
    data = save(tensors, metadata)
    atomic_write(filename, lambda f: f.write(data))


def load_file(filename: str | os.PathLike, device: str = "cpu") -> dict[str, Tensor]:
    """Read every tensor of a `.safetensors` file."""
    with open(filename, "rb") as f:
        return load(f.read(), device, _name=os.fspath(filename))


def metadata_of(data: bytes | str | os.PathLike) -> dict[str, str]:
    """The `__metadata__` strings of a safetensors buffer or file ({} when absent), validated as a load is."""
    name = "<bytes>"
    if not isinstance(data, bytes | bytearray | memoryview):
        name = os.fspath(data)
        with open(name, "rb") as f:
            data = f.read()
    return dict(_validate(data, name)[0])
