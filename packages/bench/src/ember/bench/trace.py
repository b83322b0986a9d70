"""Figure 1: how far the host runs ahead of the device during training steps.

Every op call is timed twice through core's dispatch hook: its whole host-side span (Python,
autograd recording, dispatch) and, inside it, the device kernel. On the CPU the kernel runs in
the calling thread, so the trace shows dispatch overhead against kernel time; on a GPU the kernel
is only queued, and CUDA events place its execution on the device timeline.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

__all__ = ["run_trace", "record_ops"]


class _Recorder:
    """Collects (name, host start, host end, kernel start, kernel end) per op, in ns."""

    def __init__(self) -> None:
        self.events: list[tuple[str, int, int, int, int]] = []
        self._kernel_span: list[tuple[int, int]] = []

    def hook(self, op, args, kwargs, call_next):
        t0 = time.perf_counter_ns()
        depth = len(self._kernel_span)
        result = call_next(op, args, kwargs)
        t1 = time.perf_counter_ns()
        spans = self._kernel_span[depth:]
        del self._kernel_span[depth:]
        k0, k1 = (spans[0][0], spans[-1][1]) if spans else (t1, t1)
        self.events.append((op.name, t0, t1, k0, k1))
        return result

    def wrap_kernel(self, fn):
        def timed(*args, **kwargs):
            t0 = time.perf_counter_ns()
            out = fn(*args, **kwargs)
            self._kernel_span.append((t0, time.perf_counter_ns()))
            return out
        return timed


class record_ops:
    """Context manager: while active, every op's host span and kernel span are recorded."""

    def __init__(self) -> None:
        self.rec = _Recorder()
        self._saved: list = []

    def __enter__(self) -> _Recorder:
        from ember.core.dispatch import register_dispatch_hook, registered_ops

        for op in registered_ops().values():
            for dev, fn in list(op.kernels.items()):
                self._saved.append((op, dev, fn))
                op.kernels[dev] = self.rec.wrap_kernel(fn)
        register_dispatch_hook(self.rec.hook)
        return self.rec

    def __exit__(self, *exc) -> None:
        from ember.core.dispatch import remove_dispatch_hook

        remove_dispatch_hook(self.rec.hook)
        for op, dev, fn in self._saved:
            op.kernels[dev] = fn


def _chrome_trace(events, t_origin: int) -> dict:
    out = []
    for name, h0, h1, k0, k1 in events:
        out.append({"name": name, "ph": "X", "pid": 0, "tid": 0, "ts": (h0 - t_origin) / 1e3,
                    "dur": max((h1 - h0) / 1e3, 0.001), "cat": "host"})
        if k1 > k0:
            out.append({"name": name, "ph": "X", "pid": 0, "tid": 1, "ts": (k0 - t_origin) / 1e3,
                        "dur": (k1 - k0) / 1e3, "cat": "kernel"})
    meta = [{"name": "thread_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "host: op issue"}},
            {"name": "thread_name", "ph": "M", "pid": 0, "tid": 1, "args": {"name": "device: kernels"}}]
    return {"traceEvents": meta + out, "displayTimeUnit": "ms"}


def _plot(events, t_origin: int, path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 2.6))
    top = [e for e in events]
    host = [((h0 - t_origin) / 1e6, (h1 - h0) / 1e6) for _, h0, h1, _, _ in top]
    kern = [((k0 - t_origin) / 1e6, (k1 - k0) / 1e6) for _, _, _, k0, k1 in top if k1 > k0]
    ax.broken_barh(host, (10, 8), facecolors="#5b8bd9")
    ax.broken_barh(kern, (0, 8), facecolors="#d9534f")
    ax.set_yticks([4, 14], ["kernels", "host issue"])
    ax.set_xlabel("ms since the first op")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run_trace(out_dir, steps: int = 3, size: str = "tiny", device: str = "cpu", model: str = "resnet50") -> list[str]:
    """Run `steps` ResNet training steps under the recorder; write trace JSON and a PNG timeline."""
    from ember.bench import frameworks
    from ember.bench.workloads import make_workload

    fw = frameworks.load("ember")
    w = make_workload(fw, model, size, device)
    w.step()  # warm-up: Numba compilation stays out of the figure
    with record_ops() as rec:
        for _ in range(steps):
            w.step()
        fw.synchronize(device)
    events = rec.events
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t_origin = min(e[1] for e in events)
    trace_path = out / "trace.json"
    trace_path.write_text(json.dumps(_chrome_trace(events, t_origin)))
    png = out / "trace.png"
    host = sum(h1 - h0 for _, h0, h1, _, _ in events) / 1e6
    kern = sum(k1 - k0 for _, _, _, k0, k1 in events) / 1e6
    _plot(events, t_origin, png, f"{steps} training steps of {model} ({size}, {device}): "
          f"{len(events)} ops, host {host:.0f} ms, kernels {kern:.0f} ms")
    return [str(trace_path), str(png)]
