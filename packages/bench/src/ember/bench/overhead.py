"""Per-op overhead: microseconds per small op, forward only and forward + backward."""

from __future__ import annotations

import numpy as np

from ember.bench import frameworks
from ember.bench.timing import per_call_us

__all__ = ["run_overhead", "OPS"]

OPS = {
    "add": lambda lib, a, b: a + b,
    "mul": lambda lib, a, b: a * b,
    "exp": lambda lib, a, b: lib.exp(a),
    "relu": lambda lib, a, b: lib.relu(a),
    "matmul": lambda lib, a, b: a @ b,
    "sum": lambda lib, a, b: a.sum(),
}
NUMPY = {
    "add": lambda a, b: a + b, "mul": lambda a, b: a * b, "exp": lambda a, b: np.exp(a),
    "relu": lambda a, b: np.maximum(a, 0), "matmul": lambda a, b: a @ b, "sum": lambda a, b: a.sum(),
}


def _fw_costs(fw, op, calls: int) -> dict:
    lib = fw.lib
    rng = np.random.default_rng(0)
    a = lib.from_numpy(rng.standard_normal((10, 10), dtype=np.float32))
    b = lib.from_numpy(rng.standard_normal((10, 10), dtype=np.float32))
    fwd = per_call_us(lambda: op(lib, a, b), calls)
    ag, bg = a.clone().requires_grad_(True), b.clone().requires_grad_(True)

    def fwd_bwd():
        op(lib, ag, bg).sum().backward()

    both = per_call_us(fwd_bwd, max(calls // 4, 50))
    return {"forward_us": fwd, "forward_backward_us": both}


def run_overhead(compare: bool = False, calls: int = 2000) -> dict:
    """{op: {"numpy": stat, "ember": {...}, "torch": {...}}} on 10×10 float32 tensors."""
    fws = [frameworks.load("ember")] + ([frameworks.load("torch")] if compare else [])
    rng = np.random.default_rng(0)
    a = rng.standard_normal((10, 10), dtype=np.float32)
    b = rng.standard_normal((10, 10), dtype=np.float32)
    out = {}
    for name, op in OPS.items():
        row = {"numpy_us": per_call_us(lambda f=NUMPY[name]: f(a, b), calls)}
        for fw in fws:
            row[fw.name] = _fw_costs(fw, op, calls)
        out[name] = row
    return out
