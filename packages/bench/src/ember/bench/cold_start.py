"""Cold start per kernel: what Numba compiles during the digits CNN's first training steps.

`python -m ember.bench.cold_start` runs the main job's model (ember.bench.digits, Adam, batch 32)
for 36 steps in a child process whose `NUMBA_CACHE_DIR` is a new temporary folder (an empty cache:
a fresh install), then once more on the same folder (warm), and prints each compiled kernel with
the thread CPU time its compile took. On a shared machine that figure moves far less than wall
or process time, which also count the neighbours and the steps themselves (docs/benchmarks.md).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["compile_events", "digits_steps", "run_cold_start"]


@contextmanager
def compile_events() -> Iterator[list[tuple[str, str, int, float]]]:
    """Record Numba's compiles meanwhile: (qualified name, module, nesting depth, thread CPU seconds),
    in the order they end. Depth 0 is a kernel; deeper ones are what it compiled with it (a numpy
    overload used inside it), already included in its time."""
    from numba.core import event

    events: list[tuple[str, str, int, float]] = []
    stack: list[tuple[str, str, float]] = []

    class _Listener(event.Listener):
        def on_start(self, ev) -> None:
            fn = getattr(ev.data.get("dispatcher"), "py_func", None)
            stack.append((getattr(fn, "__qualname__", "?"), getattr(fn, "__module__", "?"), time.thread_time()))

        def on_end(self, ev) -> None:
            name, module, t0 = stack.pop()
            events.append((name, module, len(stack), time.thread_time() - t0))

    listener = _Listener()
    event.register("numba:compile", listener)
    try:
        yield events
    finally:
        event.unregister("numba:compile", listener)


def digits_steps(steps: int = 36, batch_size: int = 32, seed: int = 0) -> dict:
    """Run the digits CNN's first `steps` training steps here; the compiles and the times they took."""
    import numpy as np

    import ember.autograd as ea
    import ember.nn as nn
    import ember.nn.functional as F
    import ember.optim as optim
    from ember.bench.digits import _digits_split, make_cnn

    ea.manual_seed(seed)
    xtr, ytr, _, _ = _digits_split(seed)
    model = make_cnn(nn)
    opt = optim.Adam(model.parameters(), lr=2e-3)
    rng = np.random.default_rng(seed)
    c0, w0 = time.process_time(), time.perf_counter()
    with compile_events() as events:
        for _ in range(steps):
            idx = rng.integers(0, len(ytr), batch_size)
            loss = F.cross_entropy(model(ea.from_numpy(xtr[idx])), ea.from_numpy(ytr[idx]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            loss.item()
    kernels = [(name, module, seconds) for name, module, depth, seconds in events if depth == 0]
    return {"compile_s": sum(k[2] for k in kernels), "cpu_s": time.process_time() - c0,
            "wall_s": time.perf_counter() - w0, "kernels": kernels}


def run_cold_start(steps: int = 36) -> tuple[dict, dict]:
    """(cold, warm): the digits steps in a child on an empty Numba cache, then in another on the same one."""
    folder = tempfile.mkdtemp(prefix="ember-cold-start-")
    try:
        env = {**os.environ, "NUMBA_CACHE_DIR": folder}
        runs = []
        for _ in range(2):
            out = subprocess.run([sys.executable, "-m", "ember.bench.cold_start", "--child", str(steps)], env=env,
                                 check=True, capture_output=True, text=True).stdout
            runs.append(json.loads(out.strip().splitlines()[-1]))
        return runs[0], runs[1]
    finally:
        shutil.rmtree(folder, ignore_errors=True)  # the temporary folder made above, nothing else


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        print(json.dumps(digits_steps(int(argv[1]))))
        return
    cold, warm = run_cold_start(int(argv[0]) if argv else 36)
    print(f"compile (thread CPU): {cold['compile_s']:.3f} s cold, {warm['compile_s']:.3f} s warm; process CPU "
          f"{cold['cpu_s']:.2f} s cold, {warm['cpu_s']:.2f} s warm")
    for name, module, seconds in sorted(cold["kernels"], key=lambda k: -k[2]):
        print(f"  {seconds:6.3f} s  {module}.{name}")


if __name__ == "__main__":
    main()
