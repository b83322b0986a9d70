"""Per-op cost of autograd on small tensors: `python -m ember.autograd.bench`.

For each op on 10x10 float32 tensors it prints, in µs per call (the best of many short runs,
which filters out other processes' interference): the
forward alone (no_grad, i.e. ember-core plus the hook's fast path), the forward while recording
the graph, and forward plus backward; then the recording overhead as a ratio (the aim: <= 2).
"""

from __future__ import annotations

import timeit

import ember.autograd as E

__all__ = ["run", "main"]


def _cases(x, y, g, s):
    return {
        "add": (lambda: x + y, g),
        "mul": (lambda: x * y, g),
        "exp": (lambda: x.exp(), g),
        "matmul": (lambda: x @ y, g),
        "sum": (lambda: x.sum(), s),
        "relu": (lambda: x.relu(), g),
    }


def _best(fn, number: int, repeat: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def run(n: int = 10, number: int = 100, repeat: int = 60) -> list[tuple[str, float, float, float]]:
    """(op, forward µs, forward-recording µs, forward+backward µs) for each op."""
    E.manual_seed(0)
    x = E.randn(n, n, requires_grad=True)
    y = E.randn(n, n)
    g, s = E.ones(n, n), E.ones(())
    rows = []
    for name, (fwd, grad) in _cases(x, y, g, s).items():
        def step(fwd=fwd, grad=grad):
            fwd().backward(grad)
        for f in (fwd, step):  # warm up (Numba compilation, caches)
            f()
        with E.no_grad():
            plain = _best(fwd, number, repeat)
        rec = _best(fwd, number, repeat)
        both = _best(step, number // 2, repeat)
        rows.append((name, plain, rec, both))
    return rows


def main() -> None:
    print(f"{'op (10x10)':<12}{'forward':>10}{'recording':>12}{'fwd+bwd':>10}{'rec/fwd':>9}")
    for name, plain, rec, both in run():
        print(f"{name:<12}{plain:>10.1f}{rec:>12.1f}{both:>10.1f}{rec / plain:>9.2f}")


if __name__ == "__main__":
    main()
