"""DistributedSampler: each of `num_replicas` processes gets its own, equally long share of the keys."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sized

from ember.core import randperm
from ember.data.sampler import _T_co, Sampler, seeded_generator

__all__ = ["DistributedSampler", "register_group_query"]

# set by a distributed layer above (ember.distributed): () -> (world size, rank) of the default
# process group, or None while it is not initialized
_group_query: Callable[[], tuple[int, int] | None] | None = None


def register_group_query(query: Callable[[], tuple[int, int] | None]) -> None:
    """Let `DistributedSampler` take `num_replicas` and `rank` from the default process group:
    `query()` returns (world size, rank), or None while no group is initialized."""
    global _group_query
    _group_query = query


def _default_group() -> tuple[int, int]:
    if _group_query is None:
        raise RuntimeError("Requires distributed package to be available")
    got = _group_query()
    if got is None:
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")
    return got


class DistributedSampler(Sampler[_T_co]):
    """The keys of replica `rank`: every `num_replicas`-th key of one shared (shuffled) order.

    The order is `randperm(len(dataset))` from a generator seeded with `seed + epoch` (call
    `set_epoch` each epoch), padded by repeating its head to a multiple of `num_replicas`, or cut
    to one if `drop_last`. `num_replicas` and `rank` default to the world size and rank of the
    default process group (ember-distributed's), as in PyTorch.

    >>> DistributedSampler(range(10), num_replicas=4, rank=1, shuffle=False).indices_for_epoch()
    [1, 5, 9]
    """

    def __init__(self, dataset: Sized, num_replicas: int | None = None, rank: int | None = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            world, me = _default_group()
            num_replicas = world if num_replicas is None else num_replicas
            rank = me if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def indices_for_epoch(self) -> list[int]:
        """This replica's keys for the current epoch (what `iter()` yields)."""
        if self.shuffle:
            indices = randperm(len(self.dataset), generator=seeded_generator(self.seed + self.epoch)).tolist()
        else:
            indices = list(range(len(self.dataset)))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[: self.total_size]
        return indices[self.rank: self.total_size: self.num_replicas]

    def __iter__(self) -> Iterator[int]:
        return iter(self.indices_for_epoch())

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Reshuffle differently for `epoch` (all replicas must use the same epoch)."""
        self.epoch = epoch
