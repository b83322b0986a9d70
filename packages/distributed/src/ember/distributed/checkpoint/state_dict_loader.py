"""`load`: fill a state dict in place from a checkpoint directory (torch.distributed.checkpoint.load)."""

from __future__ import annotations

import os
import warnings
from typing import Any

from ember.autograd import no_grad
from ember.core.tensor import Tensor
from ember.distributed import c10d
from ember.distributed.checkpoint import _collective as _c
from ember.distributed.checkpoint._nested import flatten, set_at
from ember.distributed.checkpoint.filesystem import FileSystemReader
from ember.distributed.checkpoint.metadata import Metadata, TensorStorageMetadata

__all__ = ["load", "load_state_dict"]


def load(state_dict: dict[str, Any], *, checkpoint_id: str | os.PathLike | None = None, storage_reader=None,
         planner=None, process_group: c10d.ProcessGroup | None = None, no_dist: bool = False) -> None:
    """Load the checkpoint at `checkpoint_id` (or through `storage_reader`) into `state_dict`, in place:
    each tensor is copied into (cast to its dtype), any other value is replaced, and a Stateful value
    gets `load_state_dict` of what was loaded into its `state_dict()`. Keys the checkpoint has and
    `state_dict` lacks are not loaded.

    Raises:
        RuntimeError: neither `checkpoint_id` nor `storage_reader` given.
        CheckpointException: on some rank a key is missing from the checkpoint ("Missing key in
            checkpoint state_dict: k."), a tensor's size differs (ValueError "Size mismatch ..."), a
            non-tensor value was saved as a tensor, or the directory holds no checkpoint.
    """
    reader = _c.storage(storage_reader, checkpoint_id, FileSystemReader)
    pg = _c.group(process_group, no_dist, "load")
    me = _c.rank(pg)
    stateful = [k for k, v in state_dict.items() if _c.is_stateful(v)]
    resolved = {k: (v.state_dict() if k in stateful else v) for k, v in state_dict.items()}
    flat, paths, _ = flatten(resolved)

    def plan() -> Metadata:
        try:
            metadata = reader.read_metadata()
        except FileNotFoundError as e:
            raise AssertionError(f"metadata is None; global metadata read failed: {e}; rank local metadata read "
                                 f"failed: [Errno 2] No such file or directory: '{reader.path / f'__{me}.metadata'}'"
                                 ) from None
        for fqn, dest in flat.items():
            entry = metadata.state_dict_metadata.get(fqn)
            if entry is None:
                raise RuntimeError(f"Missing key in checkpoint state_dict: {fqn}.")
            if isinstance(dest, Tensor):
                if isinstance(entry, TensorStorageMetadata) and entry.size != dest.shape:
                    raise ValueError(f"Size mismatch between saved {entry.size} and current: {dest.shape} for {fqn}")
            elif isinstance(entry, TensorStorageMetadata):
                raise ValueError(f"Invalid checkpoint metadata for {fqn}, expected BytesStorageMetadata but found "
                                 f"{type(entry)}")
        return metadata

    metadata = _c.step(pg, "plan", plan)
    values = _c.step(pg, "read", lambda: reader._read_items(metadata, list(flat)))
    with no_grad():
        for fqn, value in values.items():
            dest = flat[fqn]
            if isinstance(dest, Tensor) and isinstance(value, Tensor):
                dest.copy_(value)
            else:
                set_at(resolved, paths[fqn], value)
    for k, v in resolved.items():
        if k in stateful:
            state_dict[k].load_state_dict(v)
        else:
            state_dict[k] = v


def load_state_dict(state_dict: dict[str, Any], storage_reader, process_group: c10d.ProcessGroup | None = None,
                    coordinator_rank: int = 0, no_dist: bool = False, planner=None) -> None:
    """The deprecated name of `load` (FutureWarning); needs a process group unless `no_dist`."""
    warnings.warn("`load_state_dict` is deprecated and will be removed in future versions. Please use `load` "
                  "instead.", FutureWarning, stacklevel=2)
    if not no_dist:
        c10d._pg(process_group)
    load(state_dict, storage_reader=storage_reader, process_group=process_group, no_dist=no_dist)
