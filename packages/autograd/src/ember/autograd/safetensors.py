"""Reading and writing `.safetensors` files (Hugging Face's format), without a dependency.

The format: an 8-byte little-endian header length N, N bytes of JSON (padded with spaces to a
multiple of 8) mapping each tensor name to `{"dtype", "shape", "data_offsets": [begin, end]}`
(offsets into the byte buffer that follows), plus an optional `"__metadata__"` of strings.
The API mirrors `safetensors.torch`: `save`/`load` (bytes) and `save_file`/`load_file` (paths).
Tensors are written contiguous and each gets its own bytes (views are not shared).
"""

from __future__ import annotations

import json
import os
import struct

import numpy as np

from ember.core import dtypes
from ember.core.tensor import Tensor

__all__ = ["save", "load", "save_file", "load_file", "SafetensorError"]

_CODES = {"float64": "F64", "float32": "F32", "float16": "F16", "int64": "I64", "int32": "I32", "int16": "I16",
          "int8": "I8", "uint8": "U8", "bool": "BOOL"}
_DTYPES = {code: name for name, code in _CODES.items()}
_MAX_HEADER = 100_000_000


class SafetensorError(ValueError):
    """A file or buffer that is not a valid safetensors file."""


def save(tensors: dict[str, Tensor], metadata: dict[str, str] | None = None) -> bytes:
    """The safetensors bytes of `tensors` (a dict of name -> tensor) and string `metadata`."""
    if not isinstance(tensors, dict) or not all(isinstance(k, str) and isinstance(v, Tensor)
                                                for k, v in tensors.items()):
        raise TypeError("safetensors.save expects a dict mapping str to Tensor")
    header: dict = {}
    if metadata is not None:
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise TypeError("safetensors metadata must map str to str")
        header["__metadata__"] = dict(metadata)
    blobs, offset = [], 0
    for name in sorted(tensors, key=lambda n: (-tensors[n]._dtype.itemsize, n)):
        t = tensors[name]
        data = np.ascontiguousarray(t.detach()._host_array()).astype(t._dtype.np.newbyteorder("<"),
                                                                    copy=False).tobytes()
        header[name] = {"dtype": _CODES[t._dtype.name], "shape": list(t._shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + b"".join(blobs)


def load(data: bytes, device: str = "cpu") -> dict[str, Tensor]:
    """The tensors of a safetensors buffer, validated (dtypes, shapes, offsets in bounds)."""
    if len(data) < 8:
        raise SafetensorError("safetensors: the buffer is too small to hold a header length")
    (n,) = struct.unpack_from("<Q", data)
    if n > _MAX_HEADER or 8 + n > len(data):
        raise SafetensorError(f"safetensors: invalid header length {n} for a buffer of {len(data)} bytes "
                              "(truncated or not a safetensors file)")
    try:
        header = json.loads(data[8:8 + n])
    except ValueError as e:
        raise SafetensorError(f"safetensors: the header is not valid JSON ({e})") from None
    if not isinstance(header, dict):
        raise SafetensorError("safetensors: the header must be a JSON object")
    header.pop("__metadata__", None)
    body = memoryview(data)[8 + n:]
    out, spans = {}, []
    for name, info in header.items():
        try:
            code, shape, (begin, end) = info["dtype"], [int(s) for s in info["shape"]], info["data_offsets"]
        except (KeyError, TypeError, ValueError):
            raise SafetensorError(f"safetensors: malformed entry for tensor '{name}'") from None
        if code not in _DTYPES:
            raise SafetensorError(f"safetensors: tensor '{name}' has unsupported dtype {code}")
        dt = dtypes._BY_NAME[_DTYPES[code]]
        if any(s < 0 for s in shape) or not 0 <= begin <= end <= len(body):
            raise SafetensorError(f"safetensors: tensor '{name}' has invalid shape or offsets (truncated file?)")
        if int(np.prod(shape)) * dt.itemsize != end - begin:
            raise SafetensorError(f"safetensors: tensor '{name}' of shape {shape} and dtype {code} needs "
                                  f"{int(np.prod(shape)) * dt.itemsize} bytes but its offsets span {end - begin}")
        spans.append((begin, end, name))
        arr = np.frombuffer(body[begin:end], dtype=dt.np.newbyteorder("<")).astype(dt.np).reshape(shape)
        out[name] = Tensor._wrap(arr.copy())
    spans.sort()
    for (_, e0, a), (b1, _, b) in zip(spans, spans[1:]):
        if b1 < e0:
            raise SafetensorError(f"safetensors: tensors '{a}' and '{b}' overlap")
    if device != "cpu":
        out = {k: v.to(device) for k, v in out.items()}
    return out


def save_file(tensors: dict[str, Tensor], filename: str | os.PathLike, metadata: dict[str, str] | None = None) -> None:
    """Write `tensors` to a `.safetensors` file (atomically: a temporary file renamed over it)."""
    data = save(tensors, metadata)
    tmp = os.fspath(filename) + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, filename)


def load_file(filename: str | os.PathLike, device: str = "cpu") -> dict[str, Tensor]:
    """Read every tensor of a `.safetensors` file."""
    with open(filename, "rb") as f:
        return load(f.read(), device)


def metadata_of(data: bytes) -> dict[str, str]:
    """The `__metadata__` strings of a safetensors buffer ({} when absent)."""
    (n,) = struct.unpack_from("<Q", data)
    return json.loads(data[8:8 + n]).get("__metadata__", {})
