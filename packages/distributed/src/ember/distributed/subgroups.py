"""`new_subgroups` and `new_subgroups_by_enumeration`: the default group split into subgroups, each made by
`new_group` on every rank (MPI creates communicators collectively), this rank's own returned first."""

from __future__ import annotations

import datetime

from ember.distributed import c10d

__all__ = ["new_subgroups", "new_subgroups_by_enumeration"]


def new_subgroups(group_size: int | None = None, group: c10d.ProcessGroup | None = None,
                  timeout: datetime.timedelta | None = None, backend: str | None = None, pg_options=None,
                  group_desc: str | None = None) -> tuple[c10d.ProcessGroup, list[c10d.ProcessGroup]]:
    """Equal subgroups of `group_size` consecutive ranks: (this rank's subgroup, all of them).

    Raises:
        ValueError: no `group_size` (PyTorch's default is the node's CUDA devices), a size that is not
            positive, exceeds the world size, or does not divide it.
    """
    if group is not None:
        raise NotImplementedError("new_subgroups(group=...) is not supported yet: split the default group")
    if group_size is None:
        raise ValueError("Default group size only takes effect when CUDA is available.If your subgroup using a "
                         "backend that does not depend on CUDA,please pass in 'group_size' correctly.")
    world = c10d.get_world_size()
    if group_size <= 0:
        raise ValueError(f"The arg 'group_size' ({group_size}) must be positive")
    if group_size > world:
        raise ValueError(f"The arg 'group_size' ({group_size}) must not exceed the world size ({world})")
    if world % group_size != 0:
        raise ValueError("The world size must be divisible by 'group_size'")
    return new_subgroups_by_enumeration([list(range(s, s + group_size)) for s in range(0, world, group_size)],
                                        timeout, backend, pg_options, group_desc)


def new_subgroups_by_enumeration(ranks_per_subgroup_list: list[list[int]], timeout: datetime.timedelta | None = None,
                                 backend: str | None = None, pg_options=None,
                                 group_desc: str | None = None) -> tuple[c10d.ProcessGroup | None,
                                                                         list[c10d.ProcessGroup]]:
    """A subgroup for each list of global ranks: (this rank's subgroup or None, all of them).

    Raises:
        ValueError: an empty list, or a rank in two subgroups.
    """
    if not ranks_per_subgroup_list:
        raise ValueError("The arg 'ranks_per_subgroup_list' cannot be empty")
    me = c10d.get_rank()
    owner: dict[int, list[int]] = {}
    cur, subgroups = None, []
    for ranks in ranks_per_subgroup_list:
        pg = c10d.new_group(ranks, timeout=timeout, backend=backend, pg_options=pg_options, group_desc=group_desc)
        subgroups.append(pg)
        for r in ranks:
            if r in owner:
                raise ValueError(f"Rank {r} has appeared in both subgroup {owner[r]} and {ranks}")
            owner[r] = ranks
            if r == me:
                cur = pg
    return cur, subgroups
