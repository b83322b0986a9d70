"""ember-core's micro-benchmark: per-op overhead next to numpy, matmul/conv GFLOP/s, and each hot
training kernel against this machine's ceilings.

Run `python -m ember.core.bench_ops` (the `bench_core` nox session). The overhead rows use
10x10 float32 tensors, so they measure Python dispatch, not arithmetic (the paper's section 5.1:
"the per-op Python overhead is the cost to fight"). The kernel rows give each kernel's effective
GB/s (the bytes it must read and write, each operand once, over its time) or GFLOP/s, next to
numpy's copy bandwidth and sgemm rate measured in the same run, so the next person sees how far
each is from the limit. Times are medians over repeats.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

import ember.core as E

__all__ = ["median_seconds", "overhead_rows", "matmul_gflops", "conv_gflops", "ceilings", "kernel_rows", "main"]


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


def ceilings(repeat: int) -> tuple[float, float]:
    """(GB/s, GFLOP/s): numpy's copy of 64 MiB (read + write), and its 1024^3 float32 sgemm."""
    a = np.ones(1 << 24, dtype=np.float32)
    out = np.empty_like(a)
    t = median_seconds(lambda: np.copyto(out, a), repeat, 1)
    m = np.ones((1024, 1024), dtype=np.float32)
    tg = median_seconds(lambda: m @ m, repeat, 1)
    return 2 * a.nbytes / t / 1e9, 2.0 * 1024 ** 3 / tg / 1e9


def kernel_rows(repeat: int) -> list[tuple[str, float, str]]:
    """(kernel, effective rate, "GB/s" | "GFLOP/s") of the training hot paths at ResNet-style sizes
    (batch 32, 64 channels, 32x32, float32)."""
    from ember.core.ops.activation import threshold_backward
    from ember.core.ops.conv import _unfold, conv2d_backward_input, conv2d_backward_weight, conv2d_op
    from ember.core.ops.normalization import batch_norm_backward, batch_norm_op
    from ember.core.ops.optim_kernels import sgd_step
    from ember.core.ops.pool import max_pool2d_backward, max_pool2d_with_indices

    rng = np.random.default_rng(0)
    n, c, hw = 32, 64, 32
    x = E.from_numpy(rng.standard_normal((n, c, hw, hw), dtype=np.float32))
    g = E.from_numpy(rng.standard_normal((n, c, hw, hw), dtype=np.float32))
    w = E.from_numpy(rng.standard_normal((c, c, 3, 3), dtype=np.float32))
    wd = E.from_numpy(rng.standard_normal((c, 1, 3, 3), dtype=np.float32))
    ones = E.from_numpy(np.ones(c, dtype=np.float32))
    zeros = E.from_numpy(np.zeros(c, dtype=np.float32))
    xa = x._np()
    nb = x.numel() * 4  # bytes of one activation
    conv_flops = 2.0 * n * c * hw * hw * c * 9
    _, mean, invstd = batch_norm_op(x, ones, zeros, None, None, True, 0.1, 1e-5)
    pooled, idx = max_pool2d_with_indices(x, (2, 2), (2, 2), (0, 0), (1, 1), False)
    p = E.from_numpy(rng.standard_normal(1 << 22, dtype=np.float32))
    pg = E.from_numpy(rng.standard_normal(1 << 22, dtype=np.float32))
    buf = E.from_numpy(np.zeros(1 << 22, dtype=np.float32))
    # a small-image, many-channel layer (ResNet's last stage) takes im2col + GEMM, not the direct kernels
    xs = E.from_numpy(rng.standard_normal((n, 2 * c, 8, 8), dtype=np.float32))
    ws = E.from_numpy(rng.standard_normal((2 * c, 2 * c, 3, 3), dtype=np.float32))
    w1 = E.from_numpy(rng.standard_normal((c, c, 1, 1), dtype=np.float32))
    cases = [
        ("conv2d 3x3 p1 forward (direct)", lambda: conv2d_op(x, w, None, (1, 1), (1, 1), (1, 1), 1), conv_flops,
         "GFLOP/s"),
        ("conv2d backward input (direct)", lambda: conv2d_backward_input(g, w, x.shape, (1, 1), (1, 1), (1, 1), 1),
         conv_flops, "GFLOP/s"),
        ("conv2d backward weight (direct)", lambda: conv2d_backward_weight(g, x, w.shape, (1, 1), (1, 1), (1, 1), 1),
         conv_flops, "GFLOP/s"),
        ("conv2d 3x3 128ch 8x8 (im2col+GEMM)", lambda: conv2d_op(xs, ws, None, (1, 1), (1, 1), (1, 1), 1),
         2.0 * n * (2 * c) ** 2 * 64 * 9, "GFLOP/s"),
        ("conv2d 1x1 (stacked matmul)", lambda: conv2d_op(x, w1, None, (1, 1), (0, 0), (1, 1), 1),
         2.0 * n * c * c * hw * hw, "GFLOP/s"),
        ("im2col 3x3 p1 (x read, 9x written)", lambda: _unfold(xa, 3, 3, (1, 1), (1, 1), (1, 1)), nb * 10, "GB/s"),
        ("im2col 3x3 p1, 128ch 8x8", lambda: _unfold(xs._np(), 3, 3, (1, 1), (1, 1), (1, 1)), nb // 2 * 10, "GB/s"),
        ("depthwise conv 3x3 p1", lambda: conv2d_op(x, wd, None, (1, 1), (1, 1), (1, 1), c), 2 * nb, "GB/s"),
        ("depthwise backward weight", lambda: conv2d_backward_weight(g, x, wd.shape, (1, 1), (1, 1), (1, 1), c),
         2 * nb, "GB/s"),
        ("threshold_backward (ReLU)", lambda: threshold_backward(g, x, 0.0), 3 * nb, "GB/s"),
        ("batch_norm forward (train)", lambda: batch_norm_op(x, ones, zeros, None, None, True, 0.1, 1e-5),
         2 * nb, "GB/s"),
        ("batch_norm backward", lambda: batch_norm_backward(g, x, ones, mean, invstd, True), 3 * nb, "GB/s"),
        ("max_pool2d 2x2 with indices", lambda: max_pool2d_with_indices(x, (2, 2), (2, 2), (0, 0), (1, 1), False),
         nb + 3 * nb // 4, "GB/s"),
        ("max_pool2d backward", lambda: max_pool2d_backward(pooled, idx, x.shape), nb + 3 * nb // 4, "GB/s"),
        ("sgd momentum step (4M)", lambda: sgd_step(p, pg, buf, 0.01, 0.9, 0.0, 0.0, False, False, False),
         5 * p.numel() * 4, "GB/s"),
    ]
    return [(name, work / median_seconds(fn, repeat, 1) / 1e9, unit) for name, fn, work, unit in cases]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=7, help="timed runs per measurement (the median is printed)")
    p.add_argument("--number", type=int, default=2000, help="calls per timed run of the overhead rows")
    p.add_argument("--threads", type=int, default=None,
                   help="intra-op threads (Numba and BLAS); on a shared machine 1 keeps the BLAS pool from spinning")
    args = p.parse_args(argv)
    if args.threads is not None:
        E.set_num_threads(args.threads)

    print("per-op overhead, 10x10 float32 (median µs per call)")
    print(f"  {'op':<22}{'ember':>10}{'numpy':>10}{'ratio':>8}")
    for name, te, tn in overhead_rows(args.repeat, args.number):
        print(f"  {name:<22}{te:>10.2f}{tn:>10.2f}{te / tn:>8.1f}")
    ge, gn = matmul_gflops(1024, args.repeat)
    print(f"matmul 1024x1024 float32: ember {ge:.1f} GFLOP/s, numpy {gn:.1f} GFLOP/s")
    gc = conv_gflops(max(3, args.repeat // 2))
    print("conv2d 3x3, N=32, 64->64, 32x32, padding 1: " + ("n/a" if gc is None else f"{gc:.1f} GFLOP/s"))
    bw, sgemm = ceilings(args.repeat)
    print(f"training kernels (N=32, C=64, 32x32 float32) against this machine's ceilings: numpy copy "
          f"{bw:.1f} GB/s, sgemm {sgemm:.1f} GFLOP/s")
    print(f"  {'kernel':<34}{'rate':>10}  {'unit':<8}{'of ceiling':>11}")
    for name, rate, unit in kernel_rows(max(3, args.repeat // 2)):
        print(f"  {name:<34}{rate:>10.1f}  {unit:<8}{rate / (bw if unit == 'GB/s' else sgemm):>10.0%}")


if __name__ == "__main__":
    main()
