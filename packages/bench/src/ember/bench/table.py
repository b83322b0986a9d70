"""Table 1: training throughput per model, ember next to PyTorch in the same run."""

from __future__ import annotations

from ember.bench import frameworks
from ember.bench.models import MODELS
from ember.bench.overhead import CLOCKS
from ember.bench.progress import Progress
from ember.bench.timing import stat_of, time_calls
from ember.bench.workloads import make_workload

__all__ = ["run_table"]


def run_table(models: list[str], size: str = "small", compare: bool = False, device: str = "cpu",
              repeats: int = 5, warmup: int = 1, clock: str = "wall") -> list[dict]:
    """Median ± spread of items/s for each model; with `compare`, PyTorch's too and the ratio.
    `clock="cpu"` times the process's CPU time (on the CPU with one thread: steadier when the
    machine is shared)."""
    fws = [frameworks.load("ember")]
    if compare:
        fws.append(frameworks.load("torch"))
        fws[1].lib.set_num_threads(fws[1].lib.get_num_threads())
    rows = []
    with Progress(len(models) * repeats, "Table 1") as bar:
        for key in models:
            spec = MODELS[key]
            loads = {fw.name: make_workload(fw, key, size, device) for fw in fws}
            syncs = {fw.name: (lambda fw=fw: fw.synchronize(device)) for fw in fws}
            secs = time_calls({n: w.step for n, w in loads.items()}, repeats, warmup, syncs,
                              tick=lambda spec=spec: bar.update(1, model=spec.name), clock=CLOCKS[clock])
            row = {"key": key, "model": spec.name, "unit": spec.unit, "size": size,
                   "parameters": loads["ember"].num_parameters}
            for name, samples in secs.items():
                items = loads[name].items_per_step
                row[name] = stat_of([items / s for s in samples])
            if "torch" in row:
                row["ratio"] = row["ember"]["median"] / row["torch"]["median"]
                row["torch_parameters"] = loads["torch"].num_parameters
            rows.append(row)
    return rows
