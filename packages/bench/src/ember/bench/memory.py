"""Figure 2: memory and time per training iteration with the caching allocator (CUDA).

The first iteration makes real device allocations; later ones are served from the cache. Runs on
a GPU, or in Numba's CUDA simulator (`NUMBA_ENABLE_CUDASIM=1`) at a tiny size.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

__all__ = ["run_memory"]


def _mlp(nn, size: str):
    width = {"tiny": 8, "small": 64, "paper": 1024}[size]
    return nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, 4)), width


def run_memory(out_dir, iterations: int = 4, size: str = "tiny") -> list[str]:
    """Train a small MLP on CUDA; per iteration record time, allocated/reserved bytes, real
    allocations and cache hits; write memory.json and memory.png."""
    import ember.autograd as ea
    import ember.nn as nn
    import ember.nn.functional as F
    import ember.optim as optim
    from ember.core import cuda

    if not cuda.is_available():
        raise SystemExit("ember-bench memory needs CUDA: run it on a GPU, or in Numba's simulator with "
                         "NUMBA_ENABLE_CUDASIM=1")
    ea.manual_seed(0)
    cuda.reset_peak_memory_stats()
    # iteration 0 includes moving the model and the batch to the device: the real allocations that a
    # tiny model's first step needs fit in the segments those already reserved
    before = cuda.memory_stats()
    t0 = time.perf_counter()
    model, width = _mlp(nn, size)
    model = model.to("cuda")
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = ea.randn(4, width).to("cuda")
    y = ea.randint(0, 4, (4,)).to("cuda")
    rows = []
    for it in range(iterations):
        if it:
            before = cuda.memory_stats()
            t0 = time.perf_counter()
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        cuda.synchronize()
        seconds = time.perf_counter() - t0
        after = cuda.memory_stats()
        rows.append({
            "iteration": it, "seconds": seconds,
            "allocated_bytes": cuda.memory_allocated(), "reserved_bytes": cuda.memory_reserved(),
            "peak_allocated_bytes": cuda.max_memory_allocated(),
            "device_allocs": after.get("num_device_alloc", 0) - before.get("num_device_alloc", 0),
            "cache_hits": after.get("num_cache_hits", 0) - before.get("num_cache_hits", 0),
        })
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    jpath = out / "memory.json"
    jpath.write_text(json.dumps({"size": size, "note": "iteration 0 includes moving the model and batch to the device",
                                 "iterations": rows}, indent=2))
    ppath = out / "memory.png"
    _plot(rows, ppath)
    return [str(jpath), str(ppath)]


def _plot(rows, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    its = [r["iteration"] for r in rows]
    fig, axes = plt.subplots(1, 3, figsize=(11, 3))
    axes[0].bar(its, [r["seconds"] * 1e3 for r in rows], color="#5b8bd9")
    axes[0].set_title("time per iteration (ms)")
    axes[1].plot(its, [r["allocated_bytes"] / 1024 for r in rows], "o-", label="allocated")
    axes[1].plot(its, [r["reserved_bytes"] / 1024 for r in rows], "s--", label="reserved")
    axes[1].set_title("memory (KiB)")
    axes[1].legend(fontsize=7)
    axes[2].bar([i - 0.2 for i in its], [r["device_allocs"] for r in rows], 0.4, label="device allocations")
    axes[2].bar([i + 0.2 for i in its], [r["cache_hits"] for r in rows], 0.4, label="cache hits")
    axes[2].set_title("allocator")
    axes[2].legend(fontsize=7)
    for ax in axes:
        ax.set_xlabel("iteration")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
