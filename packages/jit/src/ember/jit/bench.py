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
from ember.jit import config
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
        if config.fuse:  # fused transcendental functions may differ from numpy's by an ulp
            np.testing.assert_allclose(r_e.detach().numpy(), r_c.detach().numpy(), rtol=1e-5, atol=1e-6)
        else:
            np.testing.assert_array_equal(r_e.detach().numpy(), r_c.detach().numpy())
    eager = _best(fn, eager_args, number, repeat)
    comp = _best(compiled, comp_args, number, repeat)
    return {"workload": name, "eager_us": eager, "compiled_us": comp, "speedup": eager / comp}


def _leaf(shape: tuple) -> tuple:
    return (ea.tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32), requires_grad=True),)


def _input(shape: tuple) -> tuple:
    return (ea.tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32)),)


def _torch_us(fn: Callable, shape: tuple, grad: bool, number: int, repeat: int) -> float | None:
    """PyTorch eager (1 thread) on the same function, or None where torch is not installed."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    x = torch.tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32), requires_grad=grad)
    return _best(fn, (x,), number, repeat)


def rows(number: int = 2000, repeat: int = 5, torch: bool = False) -> list[dict]:
    """The chain workloads: 10×10 and 64×1024, forward and forward+backward (with PyTorch eager if `torch`)."""
    out = []
    for shape, n in (((10, 10), number), ((64, 1024), max(number // 20, 10))):
        label = "x".join(map(str, shape))
        for what, fn, args, grad in (("forward", chain_forward, _input, False),
                                     ("forward+backward", chain_backward, _leaf, True)):
            r = compare(f"10-op chain {label}, {what}", lambda f=fn: f, lambda s=shape, a=args: a(s), n, repeat)
            if torch:
                r["torch_us"] = _torch_us(fn, shape, grad, n, repeat)
            out.append(r)
    return out


def table(results: list[dict]) -> str:
    lines = ["| workload | eager µs/call | compiled µs/call | eager / compiled | torch eager µs/call |",
             "|---|---|---|---|---|"]
    for r in results:
        t = r.get("torch_us")
        lines.append(f"| {r['workload']} | {r['eager_us']:.1f} | {r['compiled_us']:.1f} | {r['speedup']:.2f}× | "
                     f"{'' if t is None else f'{t:.1f}'} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m ember.jit.bench", description=__doc__.splitlines()[0])
    p.add_argument("--number", type=int, default=2000, help="calls per timing run (10×10 sizes)")
    p.add_argument("--repeat", type=int, default=5, help="timing runs; the best is reported")
    p.add_argument("--fuse", action="store_true", help="set ember.jit.config.fuse (fused elementwise kernels)")
    p.add_argument("--torch", action="store_true", help="time PyTorch eager (1 thread) on the same chains")
    a = p.parse_args(argv)
    config.fuse = a.fuse
    print(table(rows(a.number, a.repeat, a.torch)))


if __name__ == "__main__":
    main()
