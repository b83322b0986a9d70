"""Eager against compiled, per call, for the workloads docs/compile.md reports.

`python -m ember.jit.bench` prints one row per workload: eager and compiled microseconds per call
(the best of `--repeat` timeit runs, measured in process CPU time) and their ratio. Each compiled
function's result is checked against eager's before it is timed. The MLP training step (it needs
ember.nn) is `packages/jit/benchmarks/mlp_step.py`, on the same `compare`.
"""

from __future__ import annotations

import argparse
import time
import timeit
from collections.abc import Callable

import numpy as np

import ember.autograd as ea
from ember.jit.compiler import compile as jit_compile

__all__ = ["compare", "chain", "chain_forward", "chain_backward", "main"]


def chain(x):
    """Ten elementwise ops (the issue's chain)."""
    y = x * 1.5
    y = y + 0.25
    y = y.sin()
    y = y * y
    y = y - 0.5
    y = y.exp()
    y = y.tanh()
    y = y / 3.0
    y = y.sigmoid()
    return y + x


def chain_forward(x):
    return chain(x)


def chain_backward(x):
    """The chain, summed, and its backward into `x.grad` (reset first, so each call is one step)."""
    x.grad = None
    chain(x).sum().backward()
    return x.grad


def _best(fn: Callable, args: tuple, number: int, repeat: int) -> float:
    t = timeit.Timer(lambda: fn(*args), timer=time.process_time)
    return min(t.repeat(repeat, number)) / number * 1e6


def compare(name: str, make_fn: Callable, make_args: Callable, number: int = 2000, repeat: int = 5,
            make_compiled: Callable | None = None) -> dict:
    """Time a function eager and compiled (per call, in µs). `make_fn()` makes a fresh function (a
    training step makes its own model and optimizer) and `make_args()` fresh arguments, one of each
    for eager and for compiled (`make_compiled()` where only a part is compiled; default
    `compile(make_fn())`); three calls of both must return equal tensors before timing."""
    fn, eager_args = make_fn(), make_args()
    compiled = make_compiled() if make_compiled is not None else jit_compile(make_fn())
    comp_args = make_args()
    for _ in range(3):
        r_e, r_c = fn(*eager_args), compiled(*comp_args)
        np.testing.assert_array_equal(r_e.detach().numpy(), r_c.detach().numpy())
    eager = _best(fn, eager_args, number, repeat)
    comp = _best(compiled, comp_args, number, repeat)
    return {"workload": name, "eager_us": eager, "compiled_us": comp, "speedup": eager / comp}


def _leaf(shape: tuple) -> tuple:
    return (ea.tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32), requires_grad=True),)


def _input(shape: tuple) -> tuple:
    return (ea.tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32)),)


def rows(number: int = 2000, repeat: int = 5) -> list[dict]:
    """The chain workloads: 10×10 and 64×1024, forward and forward+backward."""
    out = []
    for shape, n in (((10, 10), number), ((64, 1024), max(number // 20, 10))):
        label = "x".join(map(str, shape))
        out.append(compare(f"10-op chain {label}, forward", lambda: chain_forward, lambda s=shape: _input(s), n,
                           repeat))
        out.append(compare(f"10-op chain {label}, forward+backward", lambda: chain_backward,
                           lambda s=shape: _leaf(s), n, repeat))
    return out


def table(results: list[dict]) -> str:
    lines = ["| workload | eager µs/call | compiled µs/call | eager / compiled |", "|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['workload']} | {r['eager_us']:.1f} | {r['compiled_us']:.1f} | {r['speedup']:.2f}× |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m ember.jit.bench", description=__doc__.splitlines()[0])
    p.add_argument("--number", type=int, default=2000, help="calls per timing run (10×10 sizes)")
    p.add_argument("--repeat", type=int, default=5, help="timing runs; the best is reported")
    a = p.parse_args(argv)
    print(table(rows(a.number, a.repeat)))


if __name__ == "__main__":
    main()
