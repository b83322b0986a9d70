"""Per-op overhead on 10×10 float32 tensors: issue 11's per-op table, ember beside PyTorch.

Each row times, in microseconds per call: the forward op (`forward_us`), the same op on inputs
that require grad so the graph is recorded (`recorded_us`), and `op(a, b).sum().backward()`
(`forward_backward_us`); the `sum().backward()` row is the engine's fixed cost. Frameworks are
interleaved batch by batch in one process, so drift hits all of them alike and the ratios
(`ratio`, ember / PyTorch) are the measure. `clock="cpu"` times with the process's CPU time
instead of the wall clock: on a shared machine other jobs' load then stretches neither side
(at 10×10 neither framework runs work on other threads).
"""

from __future__ import annotations

from time import perf_counter, process_time

import numpy as np

from ember.bench import frameworks
from ember.bench.timing import stat_of

__all__ = ["run_overhead", "OPS", "MEASURES"]

OPS = {
    "add": lambda lib, a, b: a + b,
    "mul": lambda lib, a, b: a * b,
    "exp": lambda lib, a, b: lib.exp(a),
    "relu": lambda lib, a, b: a.relu(),
    "matmul": lambda lib, a, b: a @ b,
    "sum": lambda lib, a, b: a.sum(),
}
NUMPY = {
    "add": lambda a, b: a + b, "mul": lambda a, b: a * b, "exp": lambda a, b: np.exp(a),
    "relu": lambda a, b: np.maximum(a, 0), "matmul": lambda a, b: a @ b, "sum": lambda a, b: a.sum(),
}
MEASURES = ("forward_us", "recorded_us", "forward_backward_us")
ENGINE_ROW = "sum().backward()"


def _inputs(fw, an: np.ndarray, bn: np.ndarray) -> tuple:
    a, b = fw.lib.from_numpy(an.copy()), fw.lib.from_numpy(bn.copy())
    return a, b, a.clone().requires_grad_(True), b.clone().requires_grad_(True)


def _calls(op, lib, a, b, ag, bg) -> dict:
    def backward():
        op(lib, ag, bg).sum().backward()
    return {"forward_us": lambda: op(lib, a, b), "recorded_us": lambda: op(lib, ag, bg),
            "forward_backward_us": backward}


CLOCKS = {"wall": perf_counter, "cpu": process_time}


def _interleaved(fns: dict, calls: int, rounds: int, clock=perf_counter) -> dict:
    """Median µs per call of each fn, batches of `calls` calls alternating between the fns."""
    for fn in fns.values():
        for _ in range(max(calls // 10, 3)):
            fn()
    samples: dict = {k: [] for k in fns}
    for _ in range(rounds):
        for k, fn in fns.items():
            t0 = clock()
            for _ in range(calls):
                fn()
            samples[k].append((clock() - t0) / calls * 1e6)
    return {k: stat_of(v) for k, v in samples.items()}


def run_overhead(compare: bool = False, calls: int = 2000, rounds: int = 7, clock: str = "wall") -> dict:
    """{row: {"numpy_us": stat, "ember": {measure: stat}, "torch": {...}, "ratio": {measure: float}}}.

    Rows are the ops of `OPS` plus `ENGINE_ROW` (`a.sum().backward()`, backward measure only)."""
    tick = CLOCKS[clock]
    fws = [frameworks.load("ember")] + ([frameworks.load("torch")] if compare else [])
    rng = np.random.default_rng(0)
    an = rng.standard_normal((10, 10), dtype=np.float32)
    bn = rng.standard_normal((10, 10), dtype=np.float32)
    ins = {fw.name: _inputs(fw, an, bn) for fw in fws}
    out: dict = {}
    rows = [(name, op) for name, op in OPS.items()] + [(ENGINE_ROW, None)]
    for name, op in rows:
        row: dict = {}
        if op is not None:
            f = NUMPY[name]
            row["numpy_us"] = _interleaved({"numpy": lambda f=f: f(an, bn)}, calls, rounds, tick)["numpy"]
        for measure in MEASURES:
            if op is None and measure != "forward_backward_us":
                continue
            fns = {}
            for fw in fws:
                a, b, ag, bg = ins[fw.name]
                if op is None:
                    fns[fw.name] = lambda ag=ag: ag.sum().backward()
                else:
                    fns[fw.name] = _calls(op, fw.lib, a, b, ag, bg)[measure]
            n = calls if measure != "forward_backward_us" else max(calls // 8, 20)
            for fw_name, st in _interleaved(fns, n, rounds, tick).items():
                row.setdefault(fw_name, {})[measure] = st
        if "torch" in row:
            row["ratio"] = {m: row["ember"][m]["median"] / row["torch"][m]["median"] for m in row["ember"]}
        out[name] = row
    return out
