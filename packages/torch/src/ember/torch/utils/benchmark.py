"""`torch.utils.benchmark`'s Python timer: `Timer(stmt, setup, globals=...)` with `timeit` and
`blocked_autorange`, returning a `Measurement` (per-run `times`, `mean`, `median`, `iqr`); `torch` is
in the statement's namespace, as in PyTorch. Callgrind counts, `Compare` tables and fuzzers are not provided."""

from __future__ import annotations

import statistics
import time
import timeit as _timeit

import ember.torch as _torch

__all__ = ["Timer", "Measurement", "TaskSpec", "select_unit"]

timer = time.perf_counter


def select_unit(t: float) -> tuple[str, float]:
    """The unit ("ns", "us", "ms" or "s") to print `t` seconds in, and its size in seconds."""
    for unit, scale in (("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3)):
        if t < scale * 1e3:
            return unit, scale
    return "s", 1.0


class TaskSpec:
    """What was timed: the statement, its setup, labels and thread count."""

    def __init__(self, stmt, setup, global_setup="", label=None, sub_label=None, description=None, env=None,
                 num_threads=1):
        self.stmt, self.setup, self.global_setup = stmt, setup, global_setup
        self.label, self.sub_label, self.description, self.env = label, sub_label, description, env
        self.num_threads = num_threads

    @property
    def title(self) -> str:
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        return self.stmt if "\n" not in self.stmt else "stmt: (multi-line)"


class Measurement:
    """The seconds of `len(raw_times)` blocks of `number_per_run` runs each; `times` are per run."""

    def __init__(self, number_per_run: int, raw_times: list[float], task_spec: TaskSpec, metadata=None):
        self.number_per_run = number_per_run
        self.raw_times = list(raw_times)
        self.task_spec = task_spec
        self.metadata = metadata

    def __getattr__(self, name):
        if name in ("stmt", "setup", "global_setup", "label", "sub_label", "description", "env", "num_threads",
                    "title"):
            return getattr(self.__dict__["task_spec"], name)
        raise AttributeError(f"'Measurement' object has no attribute '{name}'")

    @property
    def times(self) -> list[float]:
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def mean(self) -> float:
        return statistics.fmean(self.times)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def iqr(self) -> float:
        if len(self.times) < 2:
            return 0.0
        q = statistics.quantiles(self.times, n=4, method="inclusive")
        return q[2] - q[0]

    @property
    def has_warnings(self) -> bool:
        return False

    def __repr__(self) -> str:
        unit, scale = select_unit(self.median)
        n = len(self.times)
        lines = [f"<torch.utils.benchmark.utils.common.Measurement object at {hex(id(self))}>", self.title]
        if self.description:
            lines.append(self.description)
        if self.setup != "pass":
            lines.append(f"setup: {self.setup}")
        lines.append(f"  {'Median: ' if n > 1 else ''}{self.median / scale:.2f} {unit}")
        runs = f"{self.number_per_run} runs per measurement" if n > 1 else f"{self.number_per_run} runs "
        threads = f"{self.num_threads} thread" + ("s" if self.num_threads != 1 else "")
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {runs}, {threads}")
        return "\n".join(lines)


class Timer:
    """Times a Python statement (a string) run in `globals` (plus `torch`) after `setup`."""

    def __init__(self, stmt: str = "pass", setup: str = "pass", global_setup: str = "", timer=timer, globals=None,  # noqa: A002 (PyTorch's name)
                 label=None, sub_label=None, description=None, env=None, num_threads: int = 1, language="python"):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if str(language).lower() not in ("python", "language.python", "py"):
            raise ValueError(f"Only Python timing is provided by ember, not {language!r}")
        namespace = {"torch": _torch, **(globals or {})}
        if global_setup:
            exec(global_setup, namespace)
        self._task_spec = TaskSpec(stmt, setup, global_setup, label, sub_label, description, env, num_threads)
        self._timer = _timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=namespace)

    def _timeit(self, number: int) -> float:
        previous = _torch.get_num_threads()
        _torch.set_num_threads(self._task_spec.num_threads)
        try:
            return max(self._timer.timeit(number), 1e-9)
        finally:
            _torch.set_num_threads(previous)

    def timeit(self, number: int = 1000000) -> Measurement:
        """One block of `number` runs, after a warm-up of `number // 100` (at least 2)."""
        self._timeit(max(number // 100, 2))
        return Measurement(number, [self._timeit(number)], self._task_spec)

    def blocked_autorange(self, callback=None, min_run_time: float = 0.2) -> Measurement:
        """Blocks of a run count sized to take about 0.1 s (or `min_run_time / 1000`) each, for `min_run_time`."""
        number = 1
        while True:
            t = self._timeit(number)
            if t >= max(min_run_time / 1000, 1e-4) or number >= 10**9:
                break
            number *= 10
        times, total = [], 0.0
        while total < min_run_time or len(times) < 2:
            t = self._timeit(number)
            total += t
            if callback is not None:
                callback(number, t)
            times.append(t)
        return Measurement(number, times, self._task_spec)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01, max_run_time: float = 10.0,
                           callback=None) -> Measurement:
        """`blocked_autorange` repeated until the IQR is under `threshold` of the median or `max_run_time` passes."""
        m = self.blocked_autorange(callback, min_run_time)
        spent = sum(m.raw_times)
        while m.iqr / m.median > threshold and spent < max_run_time:
            more = self.blocked_autorange(callback, min_run_time)
            spent += sum(more.raw_times)
            m = Measurement(m.number_per_run, m.raw_times + [t * m.number_per_run / more.number_per_run
                                                               for t in more.raw_times], self._task_spec)
        return m
