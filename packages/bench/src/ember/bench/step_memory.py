"""Peak memory of one training step on the CPU: how far the resident set grows above where it
stood before the step, once the step has run before (kernels compiled, optimizer state made).

Each framework is measured in a fresh interpreter of its own (`python -m ember.bench.step_memory
FRAMEWORK ROW`), so one's caches and arenas do not count against the other. Linux only: the peak
is the kernel's VmHWM, reset before the step by writing 5 to /proc/self/clear_refs. Both children
run with glibc's mmap threshold fixed at 64 KiB (and ember.core's heap tuning off): by default glibc
raises it after large frees and keeps later buffers in its heap, so a warm process shows almost no
growth whatever it allocates.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

__all__ = ["step_peak_bytes", "run_step_memory", "supported", "markdown"]

_STATUS = Path("/proc/self/status")
_CLEAR = Path("/proc/self/clear_refs")


def supported() -> bool:
    """Whether this system reports and resets the peak resident set (Linux's /proc)."""
    return _STATUS.exists() and _CLEAR.exists()


def _status_kib(field: str) -> int:
    for line in _STATUS.read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field}")


def step_peak_bytes(framework: str, row: str, warmup: int = 2) -> int:
    """In this process: the resident-set growth (bytes) of one call of training row `row`'s step
    (`TrainRow.steps` steps; the peak of one, as each step frees what the one before made)."""
    from ember.bench import frameworks
    from ember.bench.training import make_train_step

    fw = frameworks.load(framework)
    fw.lib.set_num_threads(1)
    step = make_train_step(fw, row)
    for _ in range(warmup):
        step()
    before = _status_kib("VmRSS")
    _CLEAR.write_text("5")  # VmHWM := VmRSS
    step()
    return (_status_kib("VmHWM") - before) * 1024


def run_step_memory(rows: list[str], frameworks_: list[str]) -> list[dict]:
    """Per row, each framework's peak growth in MiB (measured in child processes) and ember/PyTorch."""
    out = []
    # ember.core's own heap setting (`host_heap`) off, or it would replace these thresholds at import
    env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": "65536", "MALLOC_TRIM_THRESHOLD_": "0", "EMBER_MALLOC_TUNING": "0"}
    for row in rows:
        rec: dict = {"row": row}
        for name in frameworks_:
            done = subprocess.run([sys.executable, "-m", "ember.bench.step_memory", name, row],
                                  capture_output=True, text=True, timeout=600, env=env)
            if done.returncode != 0:
                raise RuntimeError(f"step memory of {name}/{row} failed:\n{done.stderr[-2000:]}")
            rec[name] = json.loads(done.stdout.strip().splitlines()[-1])["bytes"] / 2**20
        if "torch" in rec and rec["torch"] > 0:
            rec["ratio"] = rec["ember"] / rec["torch"]
        out.append(rec)
    return out


def markdown(recs: list[dict]) -> str:
    """The rows as a Markdown table (MiB of resident-set growth per step; target ≤ 1.2× PyTorch's)."""
    lines = ["| peak memory of one step (resident-set growth) | PyTorch | ember | ember/PyTorch | target |",
             "|---|---|---|---|---|"]
    for r in recs:
        t = f"{r['torch']:.1f} MiB" if "torch" in r else "—"
        ratio = f"{r['ratio']:.2f}" if "ratio" in r else "—"
        lines.append(f"| {r['row']} | {t} | {r['ember']:.1f} MiB | {ratio} | ≤ 1.20 |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(json.dumps({"bytes": step_peak_bytes(sys.argv[1], sys.argv[2])}))
