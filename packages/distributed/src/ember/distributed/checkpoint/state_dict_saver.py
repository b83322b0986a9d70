"""`save`: write a state dict as a checkpoint directory, each rank its share (torch.distributed.checkpoint.save)."""

from __future__ import annotations

import os
import warnings
from concurrent.futures import Future
from typing import Any

from ember.distributed import c10d
from ember.distributed.checkpoint import _collective as _c
from ember.distributed.checkpoint._nested import flatten
from ember.distributed.checkpoint.filesystem import FileSystemWriter, _entry, _metadata
from ember.distributed.checkpoint.metadata import Metadata

__all__ = ["save", "async_save", "save_state_dict"]


def save(state_dict: dict[str, Any], *, checkpoint_id: str | os.PathLike | None = None, storage_writer=None,
         planner=None, process_group: c10d.ProcessGroup | None = None, no_dist: bool = False,
         use_collectives: bool = True) -> Metadata:
    """Save `state_dict` (nested dicts of tensors and other values; a Stateful value through its
    `state_dict()`) to the directory `checkpoint_id` or through `storage_writer`.

    In a process group every rank calls it with its own state dict; a key several ranks hold is written
    once, by the lowest of them, and rank 0 writes the table of contents last (NOTE [ ember's DCP
    directory ] in `filesystem.py`).

    Returns:
        The checkpoint's Metadata (the same on every rank).

    Raises:
        RuntimeError: neither `checkpoint_id` nor `storage_writer` given.
        CheckpointException: writing failed on some rank (`overwrite=False` where a checkpoint is).
    """
    writer = _c.storage(storage_writer, checkpoint_id, FileSystemWriter)
    pg = _c.group(process_group, no_dist, "save")
    me = _c.rank(pg)
    resolved = {k: (v.state_dict() if _c.is_stateful(v) else v) for k, v in state_dict.items()}
    flat, _, named = flatten(resolved)
    holders = _c.gather(pg, list(flat))
    owner: dict[str, int] = {}
    for r, keys in enumerate(holders):
        for k in keys:
            owner.setdefault(k, r)

    _c.step(pg, "prepare", writer._prepare if me == 0 else lambda: None)

    def write() -> tuple[dict, dict, dict]:
        where = writer._write_items(me, {k: v for k, v in flat.items() if owner[k] == me})
        return {k: _entry(v) for k, v in flat.items()}, {k: list(p) for k, p in named.items()}, where

    table: dict[str, dict] = {"entries": {}, "paths": {}, "storage": {}}
    for entries, key_paths, where in _c.gather(pg, _c.step(pg, "write", write)):
        for k, rec in entries.items():
            table["entries"].setdefault(k, rec)
            table["paths"].setdefault(k, key_paths[k])
        table["storage"].update(where)
    metadata = _metadata(table)
    metadata.version = "1.0.0"
    _c.step(pg, "finish", lambda: writer._write_metadata(metadata) if me == 0 else None)
    return metadata


def async_save(state_dict: dict[str, Any], *, checkpoint_id: str | os.PathLike | None = None, storage_writer=None,
               planner=None, process_group: c10d.ProcessGroup | None = None, async_checkpointer_type=None,
               async_stager=None, no_dist: bool = False, use_collectives: bool = True) -> Future:
    """`save`, returning a `concurrent.futures.Future` of its Metadata. ember writes before it returns (the
    future is done), so training may change the tensors as soon as it has the future, as with PyTorch's staging.

    Raises:
        ValueError: no process group is initialized (PyTorch's async save needs one unless `no_dist`).
    """
    if not no_dist:
        c10d._pg(process_group)
    fut: Future = Future()
    fut.set_result(save(state_dict, checkpoint_id=checkpoint_id, storage_writer=storage_writer,
                        process_group=process_group, no_dist=no_dist))
    return fut


def save_state_dict(state_dict: dict[str, Any], storage_writer, process_group: c10d.ProcessGroup | None = None,
                    coordinator_rank: int = 0, no_dist: bool = False, planner=None) -> Metadata:
    """The deprecated name of `save` (FutureWarning); needs a process group unless `no_dist`."""
    warnings.warn("`save_state_dict` is deprecated and will be removed in future versions.Please use `save` "
                  "instead.", FutureWarning, stacklevel=2)
    if not no_dist:
        c10d._pg(process_group)
    return save(state_dict, storage_writer=storage_writer, process_group=process_group, no_dist=no_dist)
