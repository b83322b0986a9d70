"""Run a job of tests/jobs under `ember-run` (mpirun) in a subprocess, with a timeout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

JOBS = Path(__file__).parent / "jobs"


def _mpirun_or_skip() -> None:
    pytest.importorskip("mpi4py")
    from ember.distributed.run import find_mpirun

    try:
        find_mpirun()
    except FileNotFoundError as e:
        pytest.skip(str(e))


@pytest.fixture
def run_job():
    """`run_job(nproc, "job.py", *args, timeout=..., env={...})`: the finished job (stdout and stderr merged);
    `env` adds to this process's environment, which every rank inherits."""
    _mpirun_or_skip()

    def run(nproc: int, job: str, *args: str, timeout: float = 240,
            env: dict | None = None) -> subprocess.CompletedProcess:
        cmd = [sys.executable, "-m", "ember.distributed.run", "--nproc-per-node", str(nproc), str(JOBS / job), *args]
        full = {**os.environ, **env} if env else None
        try:
            return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout,
                                  env=full)
        except subprocess.TimeoutExpired as e:
            pytest.fail(f"{job} on {nproc} ranks hung for more than {timeout}s:\n{e.stdout}")

    return run
