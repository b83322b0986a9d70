"""Fetchers: turn one entry of the (batch) sampler into one collated batch, in a worker or in-process."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["MapFetcher", "IterableFetcher", "make_fetcher"]


class MapFetcher:
    """Map-style datasets: `dataset[i]` for every key of a batch (or `__getitems__` when defined)."""

    def __init__(self, dataset, auto_collation: bool, collate_fn: Callable, drop_last: bool) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn

    def fetch(self, index) -> Any:
        if self.auto_collation:
            getitems = getattr(self.dataset, "__getitems__", None)
            data = getitems(index) if getitems is not None else [self.dataset[i] for i in index]
        else:
            data = self.dataset[index]
        return self.collate_fn(data)


class IterableFetcher:
    """Iterable datasets: the next `len(index)` samples of one iterator; `StopIteration` at its end."""

    def __init__(self, dataset, auto_collation: bool, collate_fn: Callable, drop_last: bool) -> None:
        self.iterator = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def fetch(self, index) -> Any:
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.iterator))
        data = []
        for _ in index:
            try:
                data.append(next(self.iterator))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


def make_fetcher(dataset, is_iterable: bool, auto_collation: bool, collate_fn: Callable, drop_last: bool):
    """The fetcher for `dataset`'s kind (a fresh iterator for an iterable dataset)."""
    cls = IterableFetcher if is_iterable else MapFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)
