"""The 'PyTorch Benchmark' recipe (torch.utils.benchmark): batched dot products two ways checked equal, timeit
versus benchmark.Timer with globals, label/sub_label/description/num_threads, timeit and blocked_autorange
Measurements, Compare over sizes and thread counts (only the table's layout is printed from real timings), and a
Compare of recorded measurements printed whole, trimmed and merged."""

import itertools

import numpy as np
import torch
import torch.utils.benchmark as benchmark
from torch.utils.benchmark import Measurement, TaskSpec


def batched_dot_mul_sum(a, b):
    """Computes batched dot by multiplying and summing"""
    return a.mul(b).sum(-1)


def batched_dot_bmm(a, b):
    """Computes batched dot by reducing to bmm"""
    a = a.reshape(-1, 1, a.shape[-1])
    b = b.reshape(-1, b.shape[-1], 1)
    return torch.bmm(a, b).flatten(-3)


rng = np.random.default_rng(0)
x = torch.from_numpy(rng.standard_normal((100, 64)).astype(np.float32))
assert batched_dot_mul_sum(x, x).allclose(batched_dot_bmm(x, x))
print("same result", tuple(batched_dot_bmm(x, x).shape))

t0 = benchmark.Timer(stmt="batched_dot_mul_sum(x, x)", setup="from __main__ import batched_dot_mul_sum",
                     globals={"x": x})
t1 = benchmark.Timer(stmt="batched_dot_bmm(x, x)", globals={"x": x, "batched_dot_bmm": batched_dot_bmm})
m0 = t0.timeit(20)
m1 = t1.blocked_autorange(min_run_time=0.02)
print(type(m0).__name__, m0.number_per_run, len(m0.times), m0.title, m0.num_threads)
print(m1.number_per_run >= 1, len(m1.times) >= 1, m1.median > 0, m1.mean > 0, m1.iqr >= 0)
print(repr(m0).splitlines()[1])

results = []
sizes = [1, 16]
for b, n in itertools.product(sizes, sizes):
    label = "Batched dot"
    sub_label = f"[{b}, {n}]"
    xs = torch.ones((b, n))
    for num_threads in [1, 2]:
        results.append(benchmark.Timer(stmt="batched_dot_mul_sum(x, x)",
                                       setup="from __main__ import batched_dot_mul_sum", globals={"x": xs},
                                       num_threads=num_threads, label=label, sub_label=sub_label,
                                       description="mul/sum").timeit(5))
        results.append(benchmark.Timer(stmt="batched_dot_bmm(x, x)", setup="from __main__ import batched_dot_bmm",
                                       globals={"x": xs}, num_threads=num_threads, label=label, sub_label=sub_label,
                                       description="bmm").timeit(5))
compare = benchmark.Compare(results)
lines = str(compare).splitlines()
print(len(results), len(lines), lines[0].strip("[]-").strip(), [c.strip() for c in lines[1].split("|")[1:]],
      lines[2].split(":")[0])
print([ln.split("|")[0].strip() for ln in lines[3:7]], lines[7].split(":")[0], lines[-1].startswith("Times are in"))


def recorded(times, sub, desc, threads=1, label="Batched dot", n=100):
    spec = TaskSpec("batched_dot(x, x)", "pass", label=label, sub_label=sub, description=desc,
                    num_threads=threads)
    return Measurement(n, [t * n for t in times], spec)


table = [recorded([7.1e-6, 7.3e-6, 7.2e-6], "[1, 1]", "mul/sum"), recorded([1.9e-5, 2.0e-5], "[1, 1]", "bmm"),
         recorded([9.8e-6, 1.01e-5], "[10000, 64]", "mul/sum"), recorded([1.52e-4, 1.50e-4], "[10000, 64]", "bmm"),
         recorded([6.4e-6, 6.5e-6], "[1, 1]", "mul/sum", threads=4), recorded([1.7e-5], "[1, 1]", "bmm", threads=4),
         recorded([7.0e-6, 7.2e-6], "[1, 1]", "mul/sum")]
compare = benchmark.Compare(table)
compare.print()
compare.trim_significant_figures()
compare.print()
print([m.significant_figures for m in table], table[0].as_row_name)
merged = Measurement.merge(table)
print(len(merged), merged[0].number_per_run, len(merged[0].times))
compare.colorize()
print(repr(str(compare).splitlines()[3]))
try:
    benchmark.Compare([table[0], 3.5])
except ValueError as e:
    print("ValueError", e)
