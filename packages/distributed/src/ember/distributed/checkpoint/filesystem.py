"""Checkpoint directories on a file system (torch.distributed.checkpoint.filesystem).

NOTE [ ember's DCP directory ]
A checkpoint is a directory in PyTorch's layout: each rank writes the entries it owns to
`__{rank}_0.distcp`, one after another, each a `torch.save` archive (a tensor, or any other value);
rank 0 then writes `.metadata`, PyTorch's pickle of its Metadata dataclasses (every key with a
tensor's dtype and size or a bytes marker, its path in the nested state dict, and the file, offset and
length of its bytes), pickled by naming PyTorch's classes (`_pytorch_metadata.py`). So PyTorch loads
what ember saves, and ember what PyTorch saves. Every file is written to a temporary name and renamed
into place, `.metadata` last, so a crash never leaves a half-written file under a checkpoint's name.
Loading never runs code from the directory: `.metadata` is unpickled by an allowlist that maps each
of PyTorch's metadata classes to ember's twin and refuses any other global, each entry is loaded with
`weights_only=True`, and an entry's file must lie inside the directory. Tensors saved in pieces
(sharded DTensors) are refused.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

from ember.autograd import serialization
from ember.core import dtypes
from ember.core.tensor import Size, Tensor
from ember.distributed.checkpoint import _pytorch_metadata
from ember.distributed.checkpoint.metadata import (BytesStorageMetadata, ChunkStorageMetadata, Metadata,
                                                   MetadataIndex, TensorProperties, TensorStorageMetadata,
                                                   _StorageInfo)

__all__ = ["FileSystemWriter", "FileSystemReader"]

_METADATA = ".metadata"


def _write_atomically(path: Path, chunks: list[bytes], sync: bool) -> None:
    """Write `chunks` to `path` through a temporary file renamed over it."""
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            for c in chunks:
                f.write(c)
            if sync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _entry(value: Any) -> dict:
    """The JSON record of one flattened value."""
    if isinstance(value, Tensor):
        return {"kind": "tensor", "dtype": str(value.dtype).rpartition(".")[2], "size": list(value.shape),
                "requires_grad": bool(value.requires_grad)}
    return {"kind": "bytes"}


class FileSystemWriter:
    """Writes a checkpoint into the directory `path` (created when missing).

    Args:
        path: the checkpoint directory.
        sync_files: fsync each file before it is renamed into place.
        overwrite: when False, saving where a checkpoint already is raises.
        single_file_per_rank, thread_count, per_thread_copy_ahead, cache_staged_state_dict: PyTorch's
            tuning knobs, kept for their values (ember writes one file per rank, from one thread).
    """

    def __init__(self, path: str | os.PathLike, single_file_per_rank: bool = True, sync_files: bool = True,
                 thread_count: int = 1, per_thread_copy_ahead: int = 10_000_000,
                 cache_staged_state_dict: bool = False, overwrite: bool = True, _extensions=None,
                 serialization_format=None) -> None:
        self.path = Path(path)
        self.single_file_per_rank = single_file_per_rank
        self.sync_files = sync_files
        self.thread_count = thread_count
        self.per_thread_copy_ahead = per_thread_copy_ahead
        self.cache_staged_state_dict = cache_staged_state_dict
        self.overwrite = overwrite

    def reset(self, checkpoint_id: str | os.PathLike | None = None) -> None:
        """Point the writer at another directory (when given) before a save."""
        if checkpoint_id:
            self.path = Path(checkpoint_id)

    def _prepare(self) -> None:
        if not self.overwrite and (self.path / _METADATA).exists():
            raise RuntimeError("Checkpoint already exists and self.overwrite=False.")
        self.path.mkdir(parents=True, exist_ok=True)

    def _write_items(self, rank: int, items: dict[str, Any]) -> dict[str, list]:
        """Write this rank's entries to its data file; returns where each one lies."""
        name = f"__{rank}_0.distcp"
        chunks, where, offset = [], {}, 0
        for fqn, value in items.items():
            buf = io.BytesIO()
            serialization.save(value, buf)
            data = buf.getvalue()
            chunks.append(data)
            where[fqn] = [name, offset, len(data)]
            offset += len(data)
        if items:
            _write_atomically(self.path / name, chunks, self.sync_files)
        return where

    def _write_metadata(self, metadata: Metadata) -> None:
        _write_atomically(self.path / _METADATA, [_pytorch_metadata.write(metadata)], self.sync_files)


class FileSystemReader:
    """Reads a checkpoint from the directory `path` (see NOTE [ ember's DCP directory ])."""

    def __init__(self, path: str | os.PathLike, _extension_registry=None) -> None:
        self.path = Path(path)

    def reset(self, checkpoint_id: str | os.PathLike | None = None) -> None:
        """Point the reader at another directory (when given) before a load."""
        if checkpoint_id:
            self.path = Path(checkpoint_id)

    def read_metadata(self) -> Metadata:
        """The checkpoint's table of contents.

        Raises:
            FileNotFoundError: `path` holds no checkpoint.
            ValueError: `.metadata` is not a checkpoint's, or names a class outside the allowlist.
        """
        with open(self.path / _METADATA, "rb") as f:
            raw = f.read()
        try:
            return _pytorch_metadata.read(raw)
        except ValueError as e:
            raise ValueError(f"{self.path / _METADATA}: {e}") from None

    def _read_items(self, metadata: Metadata, fqns: list[str]) -> dict[str, Any]:
        """Load the entries `fqns` (weights only), each checked against its metadata."""
        where = {idx.fqn: info for idx, info in metadata.storage_data.items()}
        values, files = {}, {}
        for fqn in fqns:
            info = where[fqn]
            if not _plain_name(info.relative_path):
                raise ValueError(f"{self.path / _METADATA}: the entry of {fqn} lies outside the checkpoint "
                                 f"({info.relative_path!r})")
            if info.relative_path not in files:
                files[info.relative_path] = (self.path / info.relative_path).read_bytes()
            blob = files[info.relative_path][info.offset:info.offset + info.length]
            value = serialization.load(io.BytesIO(blob), weights_only=True)
            entry = metadata.state_dict_metadata[fqn]
            if isinstance(entry, TensorStorageMetadata) != isinstance(value, Tensor) or (
                    isinstance(value, Tensor) and (value.shape != entry.size
                                                   or value.dtype != entry.properties.dtype)):
                raise ValueError(f"{self.path / info.relative_path}: the entry of {fqn} does not match the "
                                 "checkpoint's metadata")
            values[fqn] = value
        return values


def _plain_name(name) -> bool:
    """Whether `name` is a file directly inside the checkpoint directory."""
    return isinstance(name, str) and name not in ("", ".", "..") and "/" not in name and "\\" not in name


def _metadata(table: dict) -> Metadata:
    """The Metadata of a parsed `.metadata` table."""
    entries, storage = {}, {}
    for fqn, rec in table["entries"].items():
        rel, offset, length = table["storage"][fqn]
        if not (_plain_name(rel) and rel.endswith(".distcp")
                and isinstance(offset, int) and isinstance(length, int) and offset >= 0 and length >= 0):
            raise ValueError(f"bad storage record for {fqn}")
        info = _StorageInfo(rel, offset, length)
        if rec["kind"] == "tensor":
            dtype = getattr(dtypes, rec["dtype"])
            if not isinstance(dtype, dtypes.dtype):
                raise ValueError(f"unknown dtype {rec['dtype']!r}")
            size = Size([int(n) for n in rec["size"]])
            props = TensorProperties(dtype=dtype, requires_grad=bool(rec["requires_grad"]))
            entries[fqn] = TensorStorageMetadata(props, size, [ChunkStorageMetadata(Size([0] * len(size)), size)])
            storage[MetadataIndex(fqn, Size([0] * len(size)), 0)] = info
        elif rec["kind"] == "bytes":
            entries[fqn] = BytesStorageMetadata()
            storage[MetadataIndex(fqn)] = info
        else:
            raise ValueError(f"unknown entry kind {rec['kind']!r}")
    planner_data = {fqn: tuple(path) for fqn, path in table["paths"].items()}
    return Metadata(entries, planner_data, storage)
