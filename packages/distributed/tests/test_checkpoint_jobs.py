"""DCP and DeviceMesh on 2 and 4 (oversubscribed) ranks."""

import pytest


@pytest.mark.parametrize("nproc", [2, 4])
def test_checkpoint_and_device_mesh_across_ranks(run_job, tmp_path, nproc):
    res = run_job(nproc, "checkpoint.py", str(tmp_path))
    assert res.returncode == 0, res.stdout
    for r in range(nproc):
        assert f"rank {r} DONE" in res.stdout, res.stdout
    assert res.stdout.count(" OK ") == nproc * 13, res.stdout
