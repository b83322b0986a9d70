"""Figure 1: how far the host runs ahead of the device during training steps.

The steps run under `ember.autograd.profiler.profile` with kernel spans on: every op call is an
event with its whole host-side span (Python, autograd recording, dispatch) and, inside it, the
span of its device kernel. On the CPU the kernel runs in the calling thread, so the trace shows
dispatch overhead against kernel time; on a GPU the kernel is only queued.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["run_trace"]


def _spans(prof) -> list[tuple[str, float, float, float, float]]:
    """(name, host start, host end, kernel start, kernel end) per op, in µs since the profile began."""
    out = []
    for e in prof.events():
        if e.is_user_annotation:
            continue
        k0, k1 = (e.kernels[0].start_us, e.kernels[-1].end_us) if e.kernels else (e.end_us, e.end_us)
        out.append((e.name, e.start_us, e.end_us, k0, k1))
    return out


def _plot(events, t_origin: float, path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 2.6))
    top = [e for e in events]
    host = [((h0 - t_origin) / 1e3, (h1 - h0) / 1e3) for _, h0, h1, _, _ in top]
    kern = [((k0 - t_origin) / 1e3, (k1 - k0) / 1e3) for _, _, _, k0, k1 in top if k1 > k0]
    ax.broken_barh(host, (10, 8), facecolors="#5b8bd9")
    ax.broken_barh(kern, (0, 8), facecolors="#d9534f")
    ax.set_yticks([4, 14], ["kernels", "host issue"])
    ax.set_xlabel("ms since the first op")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run_trace(out_dir, steps: int = 3, size: str = "tiny", device: str = "cpu", model: str = "resnet50") -> list[str]:
    """Run `steps` ResNet training steps under the profiler; write its Chrome trace and a PNG timeline."""
    from ember.autograd.profiler import ProfilerActivity, profile
    from ember.bench import frameworks
    from ember.bench.workloads import make_workload

    fw = frameworks.load("ember")
    w = make_workload(fw, model, size, device)
    w.step()  # warm-up: Numba compilation stays out of the figure
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            w.step()
        fw.synchronize(device)
    events = _spans(prof)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    trace_path = out / "trace.json"
    prof.export_chrome_trace(str(trace_path))
    png = out / "trace.png"
    t_origin = min(e[1] for e in events)
    top = [e for e in prof.events() if e.cpu_parent is None and not e.is_user_annotation]
    host = sum(e.cpu_time_total for e in top) / 1e3
    kern = sum(e.device_time_total for e in prof.events()) / 1e3
    _plot(events, t_origin, png, f"{steps} training steps of {model} ({size}, {device}): "
          f"{len(events)} ops, host {host:.0f} ms, kernels {kern:.0f} ms")
    return [str(trace_path), str(png)]
