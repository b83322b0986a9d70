"""CPU random draws, ember against PyTorch in one process: blocks of calls taking turns, process CPU time, the
best of 5 blocks, one thread (docs/benchmarks.md, "The engine in compiled code"). Needs PyTorch installed.
Arguments: substrings of the rows to run (`python scripts/bench_sampling.py "10, 10" "(3)"`); none runs all."""

import sys
import time

import torch as T

import ember.torch as E


def _cases(t) -> dict:
    x, small = t.ones(1000, 1000), t.ones(10, 10)
    return {
        "rand(1000, 1000)": lambda: t.rand(1000, 1000),
        "randn(1000, 1000)": lambda: t.randn(1000, 1000),
        "rand(1000, 1000, dtype=float64)": lambda: t.rand(1000, 1000, dtype=t.float64),
        "randn(1000, 1000, dtype=float64)": lambda: t.randn(1000, 1000, dtype=t.float64),
        "randint(0, 1000, (1000, 1000))": lambda: t.randint(0, 1000, (1000, 1000)),
        "empty(1000, 1000).bernoulli_(0.5)": lambda: t.empty(1000, 1000).bernoulli_(0.5),
        "F.dropout(x, 0.5), x 1000×1000": lambda: t.nn.functional.dropout(x, 0.5),
        "randperm(1_000_000)": lambda: t.randperm(1000000),
        "rand(1000)": lambda: t.rand(1000),
        "randn(1000)": lambda: t.randn(1000),
        "randn(10, 10)": lambda: t.randn(10, 10),
        "rand(10, 10)": lambda: t.rand(10, 10),
        "randn(3)": lambda: t.randn(3),
        "randint(0, 10, (10, 10))": lambda: t.randint(0, 10, (10, 10)),
        "F.dropout(x, 0.5), x 10×10": lambda: t.nn.functional.dropout(small, 0.5),
    }


def _block(f, calls: int) -> float:
    start = time.process_time()
    for _ in range(calls):
        f()
    return (time.process_time() - start) / calls


def main(rows: list[str]) -> None:
    T.set_num_threads(1)
    E.set_num_threads(1)
    theirs, ours = _cases(T), _cases(E)
    print("| call | ember µs | PyTorch µs | ember vs PyTorch |\n|---|---|---|---|")
    for name in theirs:
        if rows and not any(r in name for r in rows):
            continue
        calls = 3 if "1000, 1000" in name or "1_000_000" in name or "1000×1000" in name else 2000
        theirs[name](), ours[name]()
        t, e = [], []
        for _ in range(5):
            t.append(_block(theirs[name], calls))
            e.append(_block(ours[name], calls))
        print(f"| `{name}` | {min(e) * 1e6:,.1f} | {min(t) * 1e6:,.1f} | {min(t) / min(e):.2f}× |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
