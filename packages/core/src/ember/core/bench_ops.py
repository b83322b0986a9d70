"""ember-core's micro-benchmark: per-op overhead next to numpy, and matmul/conv GFLOP/s.

Run `python -m ember.core.bench_ops` (the `bench_core` nox session). The overhead rows use
10x10 float32 tensors, so they measure Python dispatch, not arithmetic (the paper's section 5.1:
"the per-op Python overhead is the cost to fight"). Times are medians over repeats.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

import ember.core as E


def median_seconds(fn: Callable[[], object], repeat: int, number: int) -> float:
    """The median over `repeat` runs of the time of one call, each run averaging `number` calls."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)


def overhead_rows(repeat: int, number: int) -> list[tuple[str, float, float]]:
    """(op, ember µs, numpy µs) for small-tensor ops, where dispatch cost dominates."""
    rng = np.random.default_rng(0)
    an = rng.standard_normal((10, 10)).astype(np.float32)
    bn = rng.standard_normal((10, 10)).astype(np.float32)
    a, b = E.from_numpy(an.copy()), E.from_numpy(bn.copy())
    cases = [
        ("add", lambda: a + b, lambda: an + bn),
        ("mul", lambda: a * b, lambda: an * bn),
        ("exp", lambda: E.exp(a), lambda: np.exp(an)),
        ("sum", lambda: a.sum(), lambda: an.sum()),
        ("sum(dim=1)", lambda: a.sum(1), lambda: an.sum(1)),
        ("matmul", lambda: a @ b, lambda: an @ bn),
        ("view", lambda: a.view(100), lambda: an.reshape(100)),
        ("indexing a[2:8, ::2]", lambda: a[2:8, ::2], lambda: an[2:8, ::2]),
    ]
    return [(name, median_seconds(fe, repeat, number) * 1e6, median_seconds(fn, repeat, number) * 1e6)
            for name, fe, fn in cases]


def matmul_gflops(n: int, repeat: int) -> tuple[float, float]:
    """(ember, numpy) GFLOP/s of an n x n float32 matmul."""
    rng = np.random.default_rng(0)
    an = rng.standard_normal((n, n)).astype(np.float32)
    bn = rng.standard_normal((n, n)).astype(np.float32)
    a, b = E.from_numpy(an), E.from_numpy(bn)
    flops = 2.0 * n ** 3
    te = median_seconds(lambda: a @ b, repeat, 1)
    tn = median_seconds(lambda: an @ bn, repeat, 1)
    return flops / te / 1e9, flops / tn / 1e9


def conv_gflops(repeat: int) -> float | None:
    """GFLOP/s of a ResNet-style 3x3 convolution (N=32, 64->64 channels, 32x32, padding 1), or
    None when ember-core has no `conv2d` yet."""
    if not hasattr(E, "conv2d"):
        return None
    rng = np.random.default_rng(0)
    x = E.from_numpy(rng.standard_normal((32, 64, 32, 32)).astype(np.float32))
    w = E.from_numpy(rng.standard_normal((64, 64, 3, 3)).astype(np.float32))
    flops = 2.0 * 32 * 64 * 32 * 32 * 64 * 9
    t = median_seconds(lambda: E.conv2d(x, w, padding=1), repeat, 1)
    return flops / t / 1e9


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=7, help="timed runs per measurement (the median is printed)")
    p.add_argument("--number", type=int, default=2000, help="calls per timed run of the overhead rows")
    args = p.parse_args(argv)

    print("per-op overhead, 10x10 float32 (median µs per call)")
    print(f"  {'op':<22}{'ember':>10}{'numpy':>10}{'ratio':>8}")
    for name, te, tn in overhead_rows(args.repeat, args.number):
        print(f"  {name:<22}{te:>10.2f}{tn:>10.2f}{te / tn:>8.1f}")
    ge, gn = matmul_gflops(1024, args.repeat)
    print(f"matmul 1024x1024 float32: ember {ge:.1f} GFLOP/s, numpy {gn:.1f} GFLOP/s")
    gc = conv_gflops(max(3, args.repeat // 2))
    print("conv2d 3x3, N=32, 64->64, 32x32, padding 1: " + ("n/a" if gc is None else f"{gc:.1f} GFLOP/s"))


if __name__ == "__main__":
    main()
