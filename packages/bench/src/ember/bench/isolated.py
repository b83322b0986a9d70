"""Each framework's steps timed in a child process of its own, interleaved block by block.

In one process, PyTorch's OpenMP pool and ember's thread pools (Numba's, OpenBLAS's) wait for work side by side:
at two threads on a two-core machine they take the cores from each other (a GPT step 1.06 s instead of 38 ms),
so a multi-thread ratio measured in one process is not a measurement. Here one child per framework builds the row's
step from the same seed and warms it; the parent then asks the children in turn for one timed block each, round
by round, so drift on a shared machine hits every framework alike, and only one child runs at a time. A short
pause before each block lets the previous child's pool threads go idle (OpenBLAS's spin for up to ~0.1 s).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable

__all__ = ["FRAMEWORKS", "time_isolated"]

#: what a child can time: ember eager, `ember.jit.compile`, torch eager, `torch.compile`
FRAMEWORKS = ("ember", "ember.jit", "torch", "torch.compile")
_REPLY = "ember-bench-reply "  # the prefix of a child's replies on its stdout, which the step may print on too


class _Child:
    """One framework's child: started, warmed, then one block per `block()` call."""

    def __init__(self, key: str, small: bool, name: str, calls: int, threads: int | None, clock: str) -> None:
        argv = [sys.executable, "-m", "ember.bench.isolated", key, "small" if small else "paper", name, str(calls),
                str(threads or 0), clock]
        self.name = name
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.info = self._reply()  # the first step(s): built, compiled and warmed before any block is timed

    def _reply(self) -> dict:
        """The child's next reply: a line of JSON (anything else the step printed is passed on to stderr)."""
        while True:
            line = self.proc.stdout.readline()
            if not line:
                code = self.proc.wait()
                raise RuntimeError(f"ember-bench: the {self.name} child exited with status {code} before replying")
            if line.startswith(_REPLY):
                return json.loads(line[len(_REPLY):])
            sys.stderr.write(line)

    def block(self) -> float:
        self.proc.stdin.write("run\n")
        return self._reply()["s"]

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait()


def time_isolated(key: str, small: bool, names: list[str], calls: int, repeats: int, threads: int | None,
                  clock: str = "wall", settle_s: float = 0.15,
                  tick: Callable[[], None] | None = None) -> tuple[dict[str, list[float]], dict[str, dict]]:
    """Seconds per block of `calls` steps of row `key` for each framework in `names`, each in its own process
    (`threads` intra-op threads; the children start one after another, so none warms up beside another's
    timing), and what each child reported at its start: `first_s` (its first call, a compile's included), its
    `pid` and its `threads`."""
    children: list[_Child] = []
    try:
        for name in names:
            children.append(_Child(key, small, name, calls, threads, clock))
        out: dict[str, list[float]] = {c.name: [] for c in children}
        for _ in range(repeats):
            for c in children:
                time.sleep(settle_s)
                out[c.name].append(c.block())
            if tick is not None:
                tick()
        return out, {c.name: c.info for c in children}
    finally:
        for c in children:
            c.close()


def _serve(key: str, size: str, name: str, calls: int, threads: int, clock: str) -> None:
    """The child: build `name`'s step for row `key`, report its first call, then time one block per line read."""
    from ember.bench import frameworks
    from ember.bench.compiled import make_step

    fw = frameworks.load("torch" if name.startswith("torch") else "ember")
    if threads:
        fw.lib.set_num_threads(threads)
    fn, args = make_step(fw, key, size == "small")
    warm = 1
    if name == "ember.jit":
        import ember.jit as jit

        fn, warm = jit.compile(fn), jit.config.capture_call + 1  # the eager calls, the capture, the first replay
    elif name == "torch.compile":
        fn = fw.lib.compile(fn)
    t0 = time.perf_counter()
    for _ in range(warm):
        fn(*args)
    first = time.perf_counter() - t0
    if name == "ember.jit":
        jit.wait_for_compiles()  # the steady state: fused kernels compiled in the background are in place
    for _ in range(calls):  # one untimed block, as the in-process timing's warm-up
        fn(*args)
    tick = time.process_time if clock == "cpu" else time.perf_counter
    print(_REPLY + json.dumps({"first_s": first, "pid": os.getpid(), "threads": fw.lib.get_num_threads()}),
          flush=True)
    for _ in sys.stdin:
        fn(*args)  # untimed: the caches and branch predictors the pause and the other children cooled
        t0 = tick()
        for _ in range(calls):
            fn(*args)
        print(_REPLY + json.dumps({"s": tick() - t0}), flush=True)


if __name__ == "__main__":  # a child of `time_isolated`
    _serve(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
