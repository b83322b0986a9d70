"""A profiler with `torch.profiler`'s API, built on core's dispatch hook.

While a `profile` records, every op call becomes an event (its host span, nested under the op
or `record_function` range that called it, with input shapes and the bytes its results allocated
when asked), and every device kernel an op runs becomes a kernel event inside it. `key_averages()`
aggregates them into PyTorch's table; `export_chrome_trace` writes a trace for Perfetto or
chrome://tracing. Nothing is installed while no profiler records, so an op pays nothing for it.
"""

from __future__ import annotations

import contextlib
import enum
import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterable

from ember.core import dispatch as _dispatch
from ember.core.dispatch import register_dispatch_hook, registered_ops, remove_dispatch_hook
from ember.core.tensor import Tensor

__all__ = ["profile", "record_function", "ProfilerActivity", "ProfilerAction", "schedule",
           "tensorboard_trace_handler", "FunctionEvent", "FunctionEventAvg", "EventList", "kineto_available"]


def kineto_available() -> bool:
    """False: ember's profiler records through its own dispatch hook, not PyTorch's Kineto library."""
    return False


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 1
    XPU = 2
    MTIA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0) -> Callable[[int], ProfilerAction]:
    """PyTorch's cycle: skip `skip_first` steps, then `wait`, `warmup`, `active` steps, `repeat` times
    (0: forever); the last active step of a cycle hands the trace to `on_trace_ready`."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise ValueError("Invalid profiler schedule arguments")
    cycle = wait + warmup + active

    def action(step: int) -> ProfilerAction:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE
    return action


class FunctionEvent:
    """One op call, `record_function` range or kernel: times in µs since the profile started."""

    __slots__ = ("id", "name", "start_us", "end_us", "thread", "input_shapes", "cpu_memory_usage",
                 "cpu_children", "cpu_parent", "device_type", "kernels", "is_user_annotation")

    def __init__(self, id: int, name: str, start_us: float, thread: int, input_shapes=None,
                 device_type: str = "cpu", is_user_annotation: bool = False) -> None:
        self.id, self.name, self.start_us, self.end_us, self.thread = id, name, start_us, start_us, thread
        self.input_shapes = input_shapes or []
        self.cpu_memory_usage = 0
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None
        self.device_type = device_type
        self.kernels: list[FunctionEvent] = []
        self.is_user_annotation = is_user_annotation

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def self_cpu_memory_usage(self) -> int:
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def device_time_total(self) -> float:
        return sum(k.end_us - k.start_us for k in self.kernels)

    cuda_time_total = device_time_total
    count = 1

    def __repr__(self) -> str:
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time_total={self.cpu_time_total:.3f}us "
                f"input_shapes={self.input_shapes}>")


class FunctionEventAvg:
    """The events of one key (name, and input shapes when grouped by them), summed."""

    def __init__(self, key: str, input_shapes=None) -> None:
        self.key = key
        self.input_shapes = input_shapes
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = self.device_time_total = 0.0
        self.cpu_memory_usage = self.self_cpu_memory_usage = 0

    def add(self, e: FunctionEvent | FunctionEventAvg) -> FunctionEventAvg:
        self.count += e.count
        self.cpu_time_total += e.cpu_time_total
        self.self_cpu_time_total += e.self_cpu_time_total
        self.device_time_total += e.device_time_total
        self.cpu_memory_usage += e.cpu_memory_usage
        self.self_cpu_memory_usage += e.self_cpu_memory_usage
        return self

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / max(self.count, 1)

    cuda_time_total = property(lambda self: self.device_time_total)

    def __repr__(self) -> str:
        return f"<FunctionEventAvg key={self.key} count={self.count} cpu_time_total={self.cpu_time_total:.3f}us>"


_SORT_KEYS = {"cpu_time_total", "self_cpu_time_total", "cpu_time", "count", "cpu_memory_usage",
              "self_cpu_memory_usage", "device_time_total", "cuda_time_total", "self_device_time_total",
              "self_cuda_time_total"}


def _fmt_us(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _fmt_bytes(n: int) -> str:
    for unit, size in (("Gb", 1 << 30), ("Mb", 1 << 20), ("Kb", 1 << 10)):
        if abs(n) >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n} b"


class EventList(list):
    """A list of events with PyTorch's `table`, `key_averages` and `total_average`."""

    def __init__(self, events: Iterable = (), profile_memory: bool = False, with_shapes: bool = False) -> None:
        super().__init__(events)
        self._profile_memory = profile_memory
        self._with_shapes = with_shapes

    def key_averages(self, group_by_input_shape: bool = False) -> EventList:
        groups: dict = {}
        for e in self:
            key = (e.key, str(e.input_shapes)) if group_by_input_shape else e.key
            if key not in groups:
                groups[key] = FunctionEventAvg(e.key, e.input_shapes if group_by_input_shape else None)
            groups[key].add(e)
        return EventList(groups.values(), self._profile_memory, group_by_input_shape)

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg("Total")
        for e in self:
            total.add(e)
        return total

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False) -> str:
        """PyTorch's summary table: self and total CPU time (with % of all self time), average, calls."""
        rows = list(self)
        if top_level_events_only:
            rows = [e for e in rows if getattr(e, "cpu_parent", None) is None]
        if sort_by is not None:
            if sort_by not in _SORT_KEYS:
                raise AttributeError(f"sort_by must be one of {sorted(_SORT_KEYS)}; got {sort_by!r}")
            attr = sort_by.replace("cuda", "device")
            if attr.startswith("self_device"):
                attr = "device_time_total"
            rows.sort(key=lambda e: getattr(e, attr), reverse=True)
        rows = rows[:row_limit] if row_limit and row_limit > 0 else rows
        self_total = sum(e.self_cpu_time_total for e in self) or 1.0
        has_device = any(e.device_time_total for e in self)
        cols = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
        if has_device:
            cols += ["Kernel total", "Kernel %"]
        if self._profile_memory:
            cols += ["CPU Mem", "Self CPU Mem"]
        cols.append("# of Calls")
        if self._with_shapes:
            cols.append("Input Shapes")
        body = []
        for e in rows:
            cells = [e.key[:max_name_column_width], f"{100 * e.self_cpu_time_total / self_total:.2f}%",
                     _fmt_us(e.self_cpu_time_total), f"{100 * e.cpu_time_total / self_total:.2f}%",
                     _fmt_us(e.cpu_time_total), _fmt_us(e.cpu_time_total / max(e.count, 1))]
            if has_device:
                device_all = sum(x.device_time_total for x in self) or 1.0
                cells += [_fmt_us(e.device_time_total), f"{100 * e.device_time_total / device_all:.2f}%"]
            if self._profile_memory:
                cells += [_fmt_bytes(e.cpu_memory_usage), _fmt_bytes(e.self_cpu_memory_usage)]
            cells.append(str(e.count))
            if self._with_shapes:
                cells.append(str(e.input_shapes)[:max_shapes_column_width])
            body.append(cells)
        widths = [max([len(c)] + [len(r[i]) for r in body]) for i, c in enumerate(cols)]
        line = "-" * (sum(widths) + 2 * (len(cols) - 1))

        def fmt(cells):
            return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))
        out = ([header] if header else []) + [line, fmt(cols), line] + [fmt(r) for r in body] + [line]
        out.append(f"Self CPU time total: {_fmt_us(sum(e.self_cpu_time_total for e in self))}")
        if has_device:
            out.append(f"Kernel time total: {_fmt_us(sum(e.device_time_total for e in self))}")
        return "\n".join(out) + "\n"


def _shapes(args) -> list:
    shapes = []
    for a in args:
        if isinstance(a, Tensor):
            shapes.append(list(a.shape))
        elif isinstance(a, list | tuple) and a and isinstance(a[0], Tensor):
            shapes.append([list(t.shape) for t in a])
        else:
            shapes.append([])
    return shapes


def _new_bytes(result, args) -> int:
    """Bytes of the storages `result` holds that no argument shared (what the op allocated)."""
    inputs = {id(a._storage) for a in args if isinstance(a, Tensor)}
    outs = result if isinstance(result, tuple | list) else (result,)
    seen, total = set(), 0
    for t in outs:
        if isinstance(t, Tensor) and id(t._storage) not in inputs and id(t._storage) not in seen:
            seen.add(id(t._storage))
            total += t._storage.nbytes
    return total


_active: list[profile] = []  # the recording profilers; record_function and the hook feed them
_local = threading.local()


def _stack() -> list[FunctionEvent]:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


class profile:
    """`with torch.profiler.profile(...) as prof: ...; print(prof.key_averages().table(...))`.

    Args:
        activities: `ProfilerActivity` values; CPU records ops, CUDA (or any device) adds kernel spans.
        schedule: a `schedule(...)` callable of the step number; without it, everything is recorded.
        on_trace_ready: called with the profiler at the end of each recorded cycle (and at stop).
        record_shapes: record input shapes (needed by `key_averages(group_by_input_shape=True)`).
        profile_memory: record the bytes each op's results allocated.
    """

    def __init__(self, enabled: bool = True, *, activities: Iterable[ProfilerActivity] | None = None,
                 schedule: Callable | None = None, on_trace_ready: Callable | None = None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config=None, execution_trace_observer=None,
                 acc_events: bool = False, use_cuda: bool | None = None, custom_trace_id_callback=None,
                 use_device: str | None = None, use_kineto: bool = False, use_cpu: bool = True) -> None:
        self._enabled = enabled  # `torch.autograd.profiler.profile(enabled=...)`: off records nothing
        if use_device is not None and use_device != "cpu":
            use_cuda = True
        self.activities = set(activities) if activities is not None else {ProfilerActivity.CPU}
        if use_cuda:
            self.activities.add(ProfilerActivity.CUDA)
        self.schedule = schedule
        self.on_trace_ready = on_trace_ready
        self.record_shapes, self.profile_memory = record_shapes, profile_memory
        self.acc_events = acc_events
        self.step_num = 0
        self._events: list[FunctionEvent] = []
        self._kernels = ProfilerActivity.CPU not in self.activities or len(self.activities) > 1
        self._recording = False
        self._saved_kernels: list = []
        self._t0 = time.perf_counter_ns()
        self._next_id = 0
        self._action = ProfilerAction.RECORD
        self._prev_composite: Callable | None = None
        self._composite_ids: set[int] = set()

    # --- recording -------------------------------------------------------------------------------
    def _now_us(self) -> float:
        return (time.perf_counter_ns() - self._t0) / 1e3

    def _open(self, name: str, shapes=None, user: bool = False) -> FunctionEvent:
        stack = _stack()
        e = FunctionEvent(self._next_id, name, self._now_us(), threading.get_ident(), shapes, "cpu", user)
        self._next_id += 1
        if stack:
            e.cpu_parent = stack[-1]
            stack[-1].cpu_children.append(e)
        stack.append(e)
        return e

    def _close(self, e: FunctionEvent) -> None:
        e.end_us = self._now_us()
        stack = _stack()
        if stack and stack[-1] is e:
            stack.pop()
        self._events.append(e)

    def _composite(self, name: str, fn: Callable, args: tuple, kwargs: dict):
        """A composite function (`F.linear`, `@`, the losses) as one event over the ops it runs, as PyTorch's
        `aten::linear` over `aten::addmm`; the composite hook it replaced (autocast's) still runs inside."""
        e = self._open("aten::" + name, _shapes(args) if self.record_shapes else None)
        self._composite_ids.add(e.id)
        try:
            prev = self._prev_composite
            return prev(name, fn, args, kwargs) if prev is not None else fn(*args, **kwargs)
        finally:
            self._close(e)

    def _hook(self, op, args, kwargs, call_next):
        stack = _stack()
        if stack and stack[-1].id in self._composite_ids and stack[-1].name == "aten::" + op.name:
            return call_next(op, args, kwargs)  # the composite's own op of the same name: one event, as PyTorch
        e = self._open("aten::" + op.name, _shapes(args) if self.record_shapes else None)
        try:
            result = call_next(op, args, kwargs)
        finally:
            self._close(e)
        if self.profile_memory:
            e.cpu_memory_usage = _new_bytes(result, args)
        return result

    def _wrap_kernel(self, fn: Callable, device: str) -> Callable:
        def timed(*args, **kwargs):
            stack = _stack()
            start = self._now_us()
            try:
                return fn(*args, **kwargs)
            finally:
                if stack:
                    k = FunctionEvent(self._next_id, stack[-1].name, start, threading.get_ident(), None, device)
                    self._next_id += 1
                    k.end_us = self._now_us()
                    stack[-1].kernels.append(k)
        return timed

    def _start_recording(self) -> None:
        if self._recording:
            return
        self._recording = True
        if self._kernels:
            for op in registered_ops().values():
                for dev, fn in list(op.kernels.items()):
                    self._saved_kernels.append((op, dev, fn))
                    op.kernels[dev] = self._wrap_kernel(fn, dev)
        register_dispatch_hook(self._hook)
        self._prev_composite = _dispatch.set_composite_hook(self._composite)
        _active.append(self)

    def _stop_recording(self) -> None:
        if not self._recording:
            return
        self._recording = False
        _active.remove(self)
        remove_dispatch_hook(self._hook)
        if _dispatch._composite_hook == self._composite:  # autocast entered meanwhile replaced it: leave its own
            _dispatch.set_composite_hook(self._prev_composite)
        for op, dev, fn in reversed(self._saved_kernels):
            op.kernels[dev] = fn
        self._saved_kernels.clear()

    # --- the public cycle ------------------------------------------------------------------------
    def start(self) -> None:
        if not self._enabled:
            return
        self._action = self.schedule(self.step_num) if self.schedule else ProfilerAction.RECORD
        if self._action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._start_recording()

    def stop(self) -> None:
        if not self._enabled:
            return
        was_recording = self._recording
        self._stop_recording()
        self.function_events = self.events()  # the legacy `torch.autograd.profiler.profile`'s results
        if was_recording and self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def step(self) -> None:
        """The end of one training step: move along the schedule, handing a finished cycle on."""
        previous = self._action
        self.step_num += 1
        self._action = self.schedule(self.step_num) if self.schedule else ProfilerAction.RECORD
        if previous == ProfilerAction.RECORD_AND_SAVE:
            self._stop_recording()
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
        if self._action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            if previous not in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE) and not self.acc_events:
                self._events = []
            self._start_recording()
        else:
            self._stop_recording()

    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # --- results ---------------------------------------------------------------------------------
    def events(self) -> EventList:
        return EventList(sorted(self._events, key=lambda e: (e.start_us, e.id)), self.profile_memory,
                         self.record_shapes)

    def _finished(self) -> EventList:
        if not hasattr(self, "function_events"):
            raise RuntimeError("Profiler didn't finish running")
        return self.function_events

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False) -> str:
        """The legacy profiler's summary table of its events (`EventList.table`)."""
        return self._finished().table(sort_by, row_limit, max_src_column_width, max_name_column_width,
                                      max_shapes_column_width, header, top_level_events_only)

    def total_average(self) -> FunctionEventAvg:
        """Every event averaged into one row (the legacy profiler's)."""
        return self._finished().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        """The self CPU time of every event, in µs (the legacy profiler's)."""
        return sum(e.self_cpu_time_total for e in self._finished())

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        if group_by_input_shape and not self.record_shapes:
            raise RuntimeError("key_averages(group_by_input_shape=True) needs profile(record_shapes=True)")
        return self.events().key_averages(group_by_input_shape)

    def export_chrome_trace(self, path: str) -> str:
        """A Chrome trace (Perfetto, chrome://tracing): host op spans on each thread, kernels beside."""
        pid = os.getpid()
        threads = sorted({e.thread for e in self._events})
        tid = {t: i for i, t in enumerate(threads)}
        trace = []
        for e in self.events():
            args = {"External id": e.id}
            if e.input_shapes:
                args["Input Dims"] = e.input_shapes
            if self.profile_memory:
                args["Bytes"] = e.cpu_memory_usage
            cat = "user_annotation" if e.is_user_annotation else "cpu_op"
            trace.append({"ph": "X", "cat": cat, "name": e.name, "pid": pid, "tid": tid[e.thread],
                          "ts": e.start_us, "dur": max(e.cpu_time_total, 0.001), "args": args})
            for k in e.kernels:
                trace.append({"ph": "X", "cat": "kernel", "name": k.name, "pid": pid, "tid": f"{k.device_type} kernels",
                              "ts": k.start_us, "dur": max(k.end_us - k.start_us, 0.001),
                              "args": {"External id": e.id, "device": k.device_type}})
        meta = [{"ph": "M", "name": "process_name", "pid": pid, "args": {"name": "ember"}}]
        meta += [{"ph": "M", "name": "thread_name", "pid": pid, "tid": tid[t], "args": {"name": f"thread {t}"}}
                 for t in threads]
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump({"traceEvents": meta + trace, "displayTimeUnit": "ms", "schemaVersion": 1}, f)
        os.replace(tmp, path)
        return path


class record_function(contextlib.ContextDecorator):
    """Label a region: it appears as one event (with its ops nested in it) in every recording profiler."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name, self.args = name, args
        self._events: list[tuple[profile, FunctionEvent]] = []

    def __enter__(self) -> record_function:
        self._events = [(p, p._open(self.name, user=True)) for p in _active if p._recording]
        return self

    def __exit__(self, *exc) -> None:
        for p, e in reversed(self._events):
            p._close(e)
        self._events = []


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None, use_gzip: bool = False) -> Callable:
    """An `on_trace_ready` that writes each cycle's Chrome trace into `dir_name`, as TensorBoard's
    profiler plugin reads them (`<worker>.<ms>.pt.trace.json[.gz]`)."""
    def handler(prof: profile) -> None:
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        stamp = time.time_ns() // 1_000_000
        name = os.path.join(dir_name, f"{worker}.{stamp}.pt.trace.json")
        while os.path.exists(name) or os.path.exists(name + ".gz"):  # two cycles in one millisecond
            stamp += 1
            name = os.path.join(dir_name, f"{worker}.{stamp}.pt.trace.json")
        prof.export_chrome_trace(name)
        if use_gzip:
            import gzip
            import shutil

            with open(name, "rb") as src, gzip.open(name + ".gz", "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.remove(name)
    return handler
