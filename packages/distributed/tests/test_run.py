"""The launcher's command line, and a rank that dies, raises or stalls ends the job with an error naming it."""

import time

import pytest

from ember.distributed.run import main, mpirun_command


def test_mpirun_command_oversubscribes_past_the_cores(monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    two = mpirun_command(2, ["train.py", "--lr", "0.1"], mpirun="/x/mpirun")
    four = mpirun_command(4, ["train.py"], mpirun="/x/mpirun")
    assert two[:3] == ["/x/mpirun", "-n", "2"] and "--oversubscribe" not in two
    assert "--oversubscribe" in four
    assert two[-4:] == ["--rank-entry", "train.py", "--lr", "0.1"]


def test_nproc_must_be_positive():
    with pytest.raises(SystemExit):
        main(["--nproc-per-node", "0", "train.py"])


@pytest.mark.parametrize("mode, says", [
    ("kill", "rank 1"),                                   # mpirun: "process rank 1 ... exited on signal 9"
    ("raise", "rank 1 raised ValueError: bad batch on purpose"),
    ("stall", "rank 0: DDP all_reduce of gradient bucket 0 in shared memory timed out after 3.0s"),
])
def test_a_failing_rank_ends_the_job_with_an_error(run_job, mode, says):
    t0 = time.monotonic()
    res = run_job(2, "fault.py", mode, "3", timeout=180)
    assert res.returncode != 0, res.stdout
    assert says in res.stdout, res.stdout
    assert "finished without noticing" not in res.stdout
    assert time.monotonic() - t0 < 150
