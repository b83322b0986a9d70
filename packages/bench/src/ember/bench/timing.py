"""Timing helpers: medians with a spread, interleaved across frameworks in one run."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

__all__ = ["Stat", "stat_of", "time_calls", "per_call_us"]


class Stat(dict):
    """A measurement: `median` and `spread` (half the inter-quartile range), in the given unit."""

    @property
    def median(self) -> float:
        return self["median"]


def stat_of(samples: list[float]) -> Stat:
    s = sorted(samples)
    if len(s) >= 4:
        q = statistics.quantiles(s, n=4)
        spread = (q[2] - q[0]) / 2
    else:
        spread = (s[-1] - s[0]) / 2
    return Stat(median=statistics.median(s), spread=spread, n=len(s))


def time_calls(fns: dict[str, Callable[[], object]], repeats: int, warmup: int,
               sync: dict[str, Callable[[], None]] | None = None, tick: Callable[[], None] | None = None,
               clock: Callable[[], float] = time.perf_counter) -> dict[str, list[float]]:
    """Seconds per call of each fn, interleaved round by round so drift hits all of them alike
    (`clock=time.process_time` counts this process's CPU time, steadier on a shared machine)."""
    sync = sync or {}
    for name, fn in fns.items():
        for _ in range(warmup):
            fn()
        sync.get(name, _noop)()
    out: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = clock()
            fn()
            sync.get(name, _noop)()
            out[name].append(clock() - t0)
        if tick is not None:
            tick()
    return out


def per_call_us(fn: Callable[[], object], calls: int = 2000, rounds: int = 7) -> Stat:
    """Median microseconds per call of a fast fn, over `rounds` batches of `calls` calls."""
    fn()
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - t0) / calls * 1e6)
    return stat_of(samples)


def _noop() -> None:
    return None
