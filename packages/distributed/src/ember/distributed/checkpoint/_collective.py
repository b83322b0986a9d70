"""What `save` and `load` share: the storage object, the group, Stateful values, and steps whose
failure on any rank raises CheckpointException on every rank."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import Any

from ember.core.tensor import Tensor
from ember.distributed import c10d
from ember.distributed.checkpoint.api import CheckpointException, _failure
from ember.distributed.checkpoint.stateful import Stateful
from ember.distributed.objects import all_gather_object


def storage(given, checkpoint_id: str | os.PathLike | None, make: Callable):
    """The storage writer/reader to use: `given` (moved to `checkpoint_id` when both), else `make(checkpoint_id)`."""
    if given is None:
        if checkpoint_id is None:
            raise RuntimeError("`checkpoint_id` must be specified if storage_reader/storage_writer is None.")
        return make(checkpoint_id)
    given.reset(checkpoint_id)
    return given


def group(process_group: c10d.ProcessGroup | None, no_dist: bool, what: str) -> c10d.ProcessGroup | None:
    """The group the ranks coordinate in; None for a save/load by this process alone."""
    if no_dist or not c10d.is_initialized():
        warnings.warn("torch.distributed is disabled, unavailable or uninitialized, assuming the intent is to "
                      f"{what} in a single process.", UserWarning, stacklevel=3)
        return None
    return c10d._pg(process_group)


def rank(pg: c10d.ProcessGroup | None) -> int:
    return 0 if pg is None else pg.rank()


def gather(pg: c10d.ProcessGroup | None, obj: Any) -> list:
    """Every rank's `obj`, in rank order (just `[obj]` alone)."""
    if pg is None:
        return [obj]
    out: list = [None] * pg.size()
    all_gather_object(out, obj, group=pg)
    return out


def step(pg: c10d.ProcessGroup | None, name: str, fn: Callable[[], Any]) -> Any:
    """Run `fn` on every rank; if it raised anywhere, raise CheckpointException(name) with every failure."""
    try:
        result, failure = fn(), None
    except Exception as e:  # noqa: BLE001 - every rank's error travels to every rank
        result, failure = None, _failure(e)
    failures = {r: f for r, f in enumerate(gather(pg, failure)) if f is not None}
    if failures:
        raise CheckpointException(name, failures)
    return result


def is_stateful(value: Any) -> bool:
    return isinstance(value, Stateful) and not isinstance(value, Tensor)
