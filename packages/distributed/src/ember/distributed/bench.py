"""`python -m ember.distributed.bench`: all_reduce time against message size next to raw mpi4py, and
DDP training throughput of a small MLP and a small ResNet at 1 and 2 ranks (one thread per rank), next to PyTorch's DDP
over gloo at 2 ranks when PyTorch is installed.

Run without arguments, it starts its own jobs through `ember-run`; `--worker` is the part each
rank runs. Figures are medians over repetitions; on a loaded machine they move from run to run.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np

__all__ = ["main"]

_SIZES = [4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20]


def _allreduce_worker(reps: int) -> None:
    from mpi4py import MPI

    import ember.distributed as dist
    from ember.core.tensor import Tensor

    dist.init_process_group("mpi")
    comm = MPI.COMM_WORLD
    rank = dist.get_rank()
    if rank == 0:
        print(f"all_reduce (SUM, float32) on {dist.get_world_size()} ranks, median and best of {reps} (the best: "
              "the cost when no other process took the core)")
        print(f"{'bytes':>10} {'ember ms':>10} {'mpi4py ms':>10} {'ratio':>7} {'best ms':>9} {'best ms':>9} "
              f"{'ratio':>7}")
    for nbytes in _SIZES:
        arr = np.ones(nbytes // 4, np.float32)
        t = Tensor._wrap(np.ones(nbytes // 4, np.float32))
        ours, raw = [], []
        for _ in range(reps):  # interleaved, so load on the machine hits both alike
            comm.Barrier()
            t0 = time.perf_counter()
            dist.all_reduce(t)
            ours.append(time.perf_counter() - t0)
            comm.Barrier()
            t0 = time.perf_counter()
            comm.Allreduce(MPI.IN_PLACE, arr, MPI.SUM)
            raw.append(time.perf_counter() - t0)
        o, r = np.median(ours) * 1e3, np.median(raw) * 1e3
        bo, br = min(ours) * 1e3, min(raw) * 1e3
        if rank == 0:
            print(f"{nbytes:>10} {o:>10.3f} {r:>10.3f} {o / r:>7.2f} {bo:>9.3f} {br:>9.3f} {bo / br:>7.2f}", flush=True)
    dist.destroy_process_group()


def _small_resnet(nn):
    """A small ResNet: a 3x3 stem, two residual blocks of 16 channels with BatchNorm, a linear head."""

    class Block(nn.Module):
        def __init__(self, c: int) -> None:
            super().__init__()
            self.c1, self.b1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
            self.c2, self.b2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)

        def forward(self, x):
            return (x + self.b2(self.c2(self.b1(self.c1(x)).relu()))).relu()

    return nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(), Block(16),
                         Block(16), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))


def _ddp_worker(steps: int, batch: int, model_name: str = "mlp", plain: bool = False) -> None:
    """DDP training steps; `plain`: the same steps on every rank without DDP (no communication), the
    ceiling that the machine's cores and memory set on scaling."""
    import ember.autograd as torch
    import ember.distributed as dist
    import ember.nn as nn
    import ember.nn.functional as F
    import ember.optim as optim

    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    if model_name == "resnet":
        model, x = _small_resnet(nn), torch.randn(batch, 3, 32, 32)
        what = "DDP small ResNet (2 blocks, 16 ch, 32x32)"
    else:
        model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 10))
        x, what = torch.randn(batch, 784), "DDP MLP 784-512-256-10"
    ddp = model if plain else dist.DistributedDataParallel(model)
    if plain:
        what = what.replace("DDP", "no DDP (each rank alone)")
    opt = optim.SGD(ddp.parameters(), lr=0.01)
    y = torch.randint(0, 10, (batch,))

    def step() -> None:
        opt.zero_grad()
        F.cross_entropy(ddp(x), y).backward()
        opt.step()

    dt = _timed_steps(step, dist.barrier, steps)
    if rank == 0:
        print(f"{what}, batch {batch}/rank, {world} rank(s): {steps * batch * world / dt:,.0f} "
              f"samples/s ({1e3 * dt / steps:.1f} ms/step)", flush=True)
    dist.destroy_process_group()


def _timed_steps(step: Callable[[], None], barrier: Callable[[], None], steps: int) -> float:
    """Seconds for `steps` training steps after three warm-up ones, every rank starting and ending
    together (the same measure for ember's DDP and PyTorch's)."""
    for _ in range(3):
        step()
    barrier()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    barrier()
    return time.perf_counter() - t0


def _torch_ddp_worker(steps: int, batch: int) -> None:
    """The same DDP step in PyTorch with its gloo backend (ranks from the launcher's RANK/WORLD_SIZE)."""
    import torch
    import torch.distributed as tdist
    import torch.nn.functional as F

    torch.set_num_threads(1)
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    tdist.init_process_group("gloo")
    rank, world = tdist.get_rank(), tdist.get_world_size()
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256),
                              torch.nn.ReLU(), torch.nn.Linear(256, 10))
    ddp = torch.nn.parallel.DistributedDataParallel(net)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    x, y = torch.randn(batch, 784), torch.randint(0, 10, (batch,))

    def step() -> None:
        opt.zero_grad()
        F.cross_entropy(ddp(x), y).backward()
        opt.step()

    dt = _timed_steps(step, tdist.barrier, steps)
    if rank == 0:
        print(f"PyTorch DDP (gloo), same MLP and batch, {world} rank(s): {steps * batch * world / dt:,.0f} "
              f"samples/s ({1e3 * dt / steps:.1f} ms/step)", flush=True)
    tdist.destroy_process_group()


def _launch(nproc: int, *args: str) -> float | None:
    """Run a worker job on `nproc` ranks, echoing its output; the samples/s it reports, if any."""
    env = {**os.environ, "NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "ember.distributed.run", "--nproc-per-node", str(nproc), "-m",
           "ember.distributed.bench", "--worker", *args]
    out = subprocess.run(cmd, check=True, env=env, stdout=subprocess.PIPE, text=True).stdout
    print(out, end="", flush=True)
    rate = re.search(r": ([0-9,]+) samples/s", out)
    return float(rate.group(1).replace(",", "")) if rate else None


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m ember.distributed.bench", description=__doc__.splitlines()[0])
    ap.add_argument("--worker", choices=["allreduce", "ddp", "torch-ddp"], help=argparse.SUPPRESS)
    ap.add_argument("--reps", type=int, default=10, help="repetitions per message size")
    ap.add_argument("--steps", type=int, default=200, help="timed DDP steps")
    ap.add_argument("--batch", type=int, default=64, help="DDP batch per rank (the ResNet gets a quarter)")
    ap.add_argument("--model", choices=["mlp", "resnet"], default="mlp", help=argparse.SUPPRESS)
    ap.add_argument("--plain", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker == "allreduce":
        _allreduce_worker(a.reps)
    elif a.worker == "ddp":
        _ddp_worker(a.steps, a.batch, a.model, a.plain)
    elif a.worker == "torch-ddp":
        _torch_ddp_worker(a.steps, a.batch)
    else:
        _launch(2, "allreduce", "--reps", str(a.reps))
        rates = {}
        for model in ("mlp", "resnet"):
            batch = str(a.batch if model == "mlp" else a.batch // 4)
            for n in (1, 2):
                rates[model, n] = _launch(n, "ddp", "--model", model, "--steps", str(a.steps), "--batch", batch)
            rates[model, "plain"] = _launch(2, "ddp", "--plain", "--model", model, "--steps", str(a.steps),
                                            "--batch", batch)
        if importlib.util.find_spec("torch") is not None:
            rates["torch"] = _launch(2, "torch-ddp", "--steps", str(a.steps), "--batch", str(a.batch))
        else:
            print("PyTorch is not installed: no gloo DDP comparison (pip install torch==2.13.0)")
        for model in ("mlp", "resnet"):
            one, two, plain = rates[model, 1], rates[model, 2], rates[model, "plain"]
            if one and two and plain:
                print(f"{model}: 2 ranks {two / one:.2f}x one rank's throughput (the issue's target: 1.7x; "
                      f"2 ranks without communication: {plain / one:.2f}x)")
        if rates.get("torch") and rates.get(("mlp", 2)):
            print(f"mlp: ember's 2-rank DDP step takes {rates['torch'] / rates['mlp', 2]:.2f}x the time of "
                  "PyTorch's (gloo)")


if __name__ == "__main__":
    main()
