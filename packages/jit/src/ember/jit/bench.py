"""Eager against compiled, per call, for the workloads docs/compile.md reports.

`python -m ember.jit.bench` prints one row per workload: eager and compiled microseconds per call
(the best of `--repeat` rounds, measured in process CPU time; within a round each function runs its
calls in turn, so the machine's load falls on all of them alike) and their ratio. Compiled runs with
`config.fuse` (the default; `--no-fuse`: every op its own kernel; `--compare-fuse`: both, side by side).
Each compiled function's result is checked against eager's before it is timed. The MLP training step
(it needs ember.nn) is `packages/jit/benchmarks/mlp_step.py`, on the same `compare`.
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


def _interleaved(fns: dict[str, tuple[Callable, tuple]], number: int, repeat: int) -> dict[str, float]:
    """Best µs per call of each (fn, args): `repeat` rounds, each running every fn's `number` calls in turn."""
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeat):
        for key, (fn, args) in fns.items():
            t = timeit.Timer(lambda fn=fn, args=args: fn(*args), timer=time.process_time).timeit(number)
            best[key] = min(best[key], t / number * 1e6)
    return best


def _checked(fn: Callable, eager_args: tuple, compiled: Callable, comp_args: tuple) -> None:
    """Three calls of both (the second captures, the third replays) return equal tensors: bitwise without
    fusion, within 1e-5 relative with it (a fused exp or sin is an ulp or two from numpy's)."""
    for _ in range(3):
        r_e, r_c = fn(*eager_args), compiled(*comp_args)
        if config.fuse:
            np.testing.assert_allclose(r_c.detach().numpy(), r_e.detach().numpy(), rtol=1e-5, atol=1e-6)
        else:
            np.testing.assert_array_equal(r_e.detach().numpy(), r_c.detach().numpy())


def compare(name: str, make_fn: Callable, make_args: Callable, number: int = 2000, repeat: int = 5,
            make_compiled: Callable | None = None) -> dict:
    """Time a function eager and compiled (per call, in µs). `make_fn()` makes a fresh function (a
    training step makes its own model and optimizer) and `make_args()` fresh arguments, one of each
    for eager and for compiled (`make_compiled()` where only a part is compiled; default
    `compile(make_fn())`); three calls of both must return equal tensors before timing."""
    fn, eager_args = make_fn(), make_args()
    compiled = make_compiled() if make_compiled is not None else jit_compile(make_fn())
    comp_args = make_args()
    _checked(fn, eager_args, compiled, comp_args)
    us = _interleaved({"eager": (fn, eager_args), "compiled": (compiled, comp_args)}, number, repeat)
    return {"workload": name, "eager_us": us["eager"], "compiled_us": us["compiled"],
            "speedup": us["eager"] / us["compiled"]}


def _leaf(shape: tuple) -> tuple:
    return (ea.tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32), requires_grad=True),)


def _input(shape: tuple) -> tuple:
    return (ea.tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32)),)


def _torch_args(shape: tuple, grad: bool) -> tuple | None:
    """The same input as a PyTorch tensor (PyTorch set to 1 thread), or None where torch is not installed."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    return (torch.tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32), requires_grad=grad),)


def rows(number: int = 2000, repeat: int = 5, torch: bool = False, fuse: tuple[bool, ...] = (True,)) -> list[dict]:
    """The chain workloads: 10×10 and 64×1024, forward and forward+backward, eager and compiled (once per
    `config.fuse` value in `fuse`, each captured under it), with PyTorch eager if `torch`, timed interleaved."""
    out = []
    saved = config.fuse
    try:
        for shape, n in (((10, 10), number), ((64, 1024), max(number // 20, 10))):
            label = "x".join(map(str, shape))
            for what, fn, make_args, grad in (("forward", chain_forward, _input, False),
                                              ("forward+backward", chain_backward, _leaf, True)):
                fns = {"eager": (fn, make_args(shape))}
                for f in fuse:
                    config.fuse = f
                    compiled, args = jit_compile(fn), make_args(shape)
                    _checked(fn, make_args(shape), compiled, args)
                    fns["fused" if f else "unfused"] = (compiled, args)
                t_args = _torch_args(shape, grad) if torch else None
                if t_args is not None:
                    fns["torch"] = (fn, t_args)
                us = _interleaved(fns, n, repeat)
                out.append({"workload": f"10-op chain {label}, {what}", **{f"{k}_us": v for k, v in us.items()}})
    finally:
        config.fuse = saved
    return out


def table(results: list[dict]) -> str:
    """A markdown table of `compare`'s or `rows`'s results (columns for what they measured)."""
    cols = [c for c in ("unfused", "fused") if any(f"{c}_us" in r for r in results)]
    if any("compiled_us" in r for r in results):
        cols = ["compiled"]
    torch = any("torch_us" in r for r in results)
    head = ["workload", "eager µs/call"] + [f"{c} µs/call" for c in cols] + [f"eager / {c}" for c in cols]
    if torch:
        head += ["torch eager µs/call"] + [f"{c} vs torch eager" for c in cols]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        cells = [r["workload"], f"{r['eager_us']:.1f}"] + [f"{r[c + '_us']:.1f}" for c in cols]
        cells += [f"{r['eager_us'] / r[c + '_us']:.2f}×" for c in cols]
        if torch:
            t = r.get("torch_us")
            cells += ["" if t is None else f"{t:.1f}"] + ["" if t is None else f"{t / r[c + '_us']:.2f}×" for c in cols]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m ember.jit.bench", description=__doc__.splitlines()[0])
    p.add_argument("--number", type=int, default=2000, help="calls per timing run (10×10 sizes)")
    p.add_argument("--repeat", type=int, default=5, help="timing runs; the best is reported")
    p.add_argument("--fuse", action=argparse.BooleanOptionalAction, default=True,
                   help="compile with ember.jit.config.fuse (fused elementwise kernels; the default)")
    p.add_argument("--compare-fuse", action="store_true", help="compiled both unfused and fused, interleaved")
    p.add_argument("--torch", action="store_true", help="time PyTorch eager (1 thread) on the same chains")
    a = p.parse_args(argv)
    print(table(rows(a.number, a.repeat, a.torch, (False, True) if a.compare_fuse else (a.fuse,))))


if __name__ == "__main__":
    main()
