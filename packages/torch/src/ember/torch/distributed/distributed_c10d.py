"""`torch.distributed.distributed_c10d`: the module PyTorch defines the process-group API in (programs
import from it directly, private helpers included); ember-distributed's names."""

from __future__ import annotations

from ember.distributed import *  # noqa: F403
from ember.distributed import c10d as _c10d
from ember.distributed.c10d import Work, default_pg_timeout  # noqa: F401


def _get_default_group() -> _c10d.ProcessGroup:
    """The default process group.

    Raises:
        ValueError: none has been initialized.
    """
    return _c10d._default()


def _get_process_group_name(pg: _c10d.ProcessGroup) -> str:
    """A name for `pg` (PyTorch numbers its groups by creation)."""
    return str(_c10d._groups.index(pg)) if pg in _c10d._groups else "None"
