"""`torch.utils.benchmark`'s Python timer: `Timer(stmt, setup, globals=...)` with `timeit` and
`blocked_autorange`, returning a `Measurement` (per-run `times`, `mean`, `median`, `iqr`); `torch` is
in the statement's namespace, as in PyTorch; `Compare` lays measurements out in PyTorch's table. Callgrind counts
and fuzzers are not provided."""

from __future__ import annotations

import math
import statistics
import time
import timeit as _timeit

import numpy as np

import ember.torch as _torch

__all__ = ["Timer", "Measurement", "TaskSpec", "select_unit", "Compare"]

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

    @property
    def significant_figures(self) -> int:
        """A rough count of trustworthy digits of the median, from the spread of the middle half (1 to 4)."""
        times = sorted(self.times)
        n = len(times)
        middle = times[n // 4:math.ceil(3 * n / 4)]
        spread = statistics.pstdev(middle) if len(middle) > 1 else 0.0
        interval = max(1.645 * spread / math.sqrt(len(middle)), 25e-9)
        return min(max(math.floor(math.log10(self.median / interval)), 1), 4)

    @property
    def as_row_name(self) -> str:
        return self.sub_label or self.stmt or "[Unknown]"

    @staticmethod
    def merge(measurements) -> list[Measurement]:
        """One Measurement per task (same statement, labels and threads), its per-run times pooled."""
        groups: dict = {}
        for m in measurements:
            t = m.task_spec
            key = (t.stmt, t.setup, t.global_setup, t.label, t.sub_label, t.description, t.env, t.num_threads)
            groups.setdefault(key, (t, []))[1].extend(m.times)
        return [Measurement(1, times, spec) for spec, times in groups.values()]

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


_UNIT_NAMES = {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}
_BEST, _GOOD, _BAD, _VERY_BAD, _BOLD, _END = "\033[92m", "\033[34m", "\033[2m\033[91m", "\033[31m", "\033[1m", "\033[0m"


def _digits(x: float) -> int:
    """The digits of `x` before the point, computed in float32 as PyTorch's table does."""
    return int(np.ceil(np.log10(np.float32(abs(x)))))


def _trim_sigfig(x: float, n: int) -> float:
    """`x` rounded to `n` significant figures, in float32 arithmetic as PyTorch's (so 1.2e11 prints 120000004096)."""
    scale = 10 ** (_digits(x) - n)
    return float(np.round(np.float32(x / scale)) * np.float32(scale))


def _shade(cell: str, value: float, best: float) -> str:
    """A cell coloured by how far its median is from the best one (Compare.colorize)."""
    if value <= best * 1.01 or value <= best + 100e-9:
        return _BEST + _BOLD + cell + _END * 2
    if value <= best * 1.1:
        return _GOOD + _BOLD + cell + _END * 2
    if value >= best * 5:
        return _VERY_BAD + _BOLD + cell + _END * 2
    if value >= best * 2:
        return _BAD + cell + _END * 2
    return cell


def _render_table(results: list[Measurement], colorize: str, trim: bool) -> str:
    """One label's measurements: a row per (threads, env, sub_label or stmt), a column per description."""
    unit, scale = select_unit(min(r.median for r in results))
    rows = sorted(dict.fromkeys((r.num_threads, r.env, r.as_row_name) for r in results),
                  key=lambda k: (k[0], "" if k[1] is None else k[1]))
    cols = list(dict.fromkeys(r.description for r in results))
    cell = {((r.num_threads, r.env, r.as_row_name), r.description): r for r in results}
    envs = {r.env for r in results}
    env_width = max(len(str(e)) for e in envs) if len(envs) > 1 else 0
    groups = [k[0] for k in rows]  # the thread count of each row: the columns' digits are set per column
    formats = []
    for c in cols:
        ms = [cell.get((k, c)) for k in rows]
        digits = [_digits(m.median / scale) if m else None for m in ms]
        whole = max(d for d in digits if d is not None)
        decimals = min(max(m.significant_figures - d, 0) for d, m in zip(digits, ms) if m) if trim else 1
        formats.append((whole + decimals + (1 if decimals else 0), decimals))
    table = [[""] + [str(c) if c is not None else "None" for c in cols]]
    prior_env, prior_threads = None, None
    for k in rows:
        first_of_group = k[0] != prior_threads
        env = f"({k[1]})" if env_width and (first_of_group or k[1] != prior_env) else ""
        line = ["  " + env.ljust(env_width + 4 if env_width else 4) + k[2]]
        for c, (width, decimals) in zip(cols, formats):
            m = cell.get((k, c))
            if m is None:
                line.append(" " * width)
                continue
            value = m.median / scale
            if trim:
                value = _trim_sigfig(value, m.significant_figures)
            line.append(f"{value:>{width}.{decimals}f}")
        table.append(line)
        prior_env, prior_threads = k[1], k[0]
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    header = "  |  ".join(t.center(w) for t, w in zip(table[0], widths))
    out = [header]
    prior_threads = None
    for k, line, n in zip(rows, table[1:], groups):
        if n != prior_threads:
            out.append(f"{n} threads: ".ljust(len(header), "-"))
        prior_threads = n
        cells = [line[0].ljust(widths[0])]
        for i, (text, c) in enumerate(zip(line[1:], cols), start=1):
            text = text.center(widths[i])
            m = cell.get((k, c))
            if colorize != "none" and m is not None:
                if colorize == "rowwise":
                    best = min(x.median for x in (cell.get((k, cc)) for cc in cols) if x is not None)
                else:
                    best = min(x.median for kk in rows if kk[0] == k[0] and (x := cell.get((kk, c))) is not None)
                text = _shade(text, m.median, best)
            cells.append(text)
        out.append("  |  ".join(cells))
    label = results[0].label or ""
    title = f"[{(' ' + label + ' ').center(len(header) - 2, '-')}]"
    return title + "\n" + "\n".join(out) + f"\n\nTimes are in {_UNIT_NAMES[unit]}s ({unit}).\n"


class Compare:
    """`Compare([m1, m2, ...])`: the measurements as PyTorch's table, one per label, a row per sub_label (or
    statement) and thread count, a column per description; `print()` or `str()` it."""

    def __init__(self, results: list[Measurement]) -> None:
        self._results: list[Measurement] = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = "none"
        self._highlight_warnings = False

    def __str__(self) -> str:
        return "\n".join(self._render())

    def extend_results(self, results) -> None:
        """Add measurements to the table."""
        for r in results:
            if not isinstance(r, Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self) -> None:
        """Print each time with only the digits its spread supports."""
        self._trim_significant_figures = True

    def colorize(self, rowwise: bool = False) -> None:
        """Colour each time by its distance from the best of its column (or row)."""
        self._colorize = "rowwise" if rowwise else "columnwise"

    def highlight_warnings(self) -> None:
        """Accepted; ember's measurements carry no variance warnings."""
        self._highlight_warnings = True

    def print(self) -> None:
        print(str(self))

    def _render(self) -> list[str]:
        by_label: dict = {}
        for r in Measurement.merge(self._results):
            by_label.setdefault(r.label, []).append(r)
        return [_render_table(group, self._colorize, self._trim_significant_figures) for group in by_label.values()]
