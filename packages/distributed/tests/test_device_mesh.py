"""DeviceMesh: PyTorch's errors before any process group, and a mesh in a group of one (2 and 4 ranks:
test_checkpoint_jobs.py)."""

import subprocess
import sys
from pathlib import Path

import pytest

from ember.distributed.device_mesh import DeviceMesh, _strides, init_device_mesh


def test_without_a_process_group_or_launcher_pytorchs_env_error(monkeypatch):
    monkeypatch.delenv("RANK", raising=False)
    for make in (lambda: init_device_mesh("cpu", (1,)), lambda: DeviceMesh("cpu", [0])):
        with pytest.raises(ValueError, match="^Error initializing torch.distributed using env:// rendezvous: "
                                             "environment variable RANK expected, but not set$"):
            make()


def test_mesh_dim_names_checked_as_pytorch():
    with pytest.raises(RuntimeError, match=r"^mesh_shape and mesh_dim_names should have same length! Found "
                                           r"len\(mesh_dim_names\): 2 and len\(mesh_shape\):1.$"):
        init_device_mesh("cpu", (1,), mesh_dim_names=("a", "b"))
    with pytest.raises(RuntimeError, match=r"^Each mesh_dim_name must be unique. Found repeated mesh_dim_name in "
                                           r"mesh_dim_names \('a', 'a'\)$"):
        init_device_mesh("cpu", (1, 1), mesh_dim_names=("a", "a"))


def test_strides_print_as_pytorchs_layout():
    assert _strides((2, 3)) == (3, 1) and _strides((1, 2)) == ((), 1) and _strides((2, 1)) == (1, ())
    assert repr(_strides((1,))) == "((),)"


def test_mesh_in_a_group_of_one():
    pytest.importorskip("mpi4py")
    job = Path(__file__).parent / "jobs" / "mesh_single.py"
    res = subprocess.run([sys.executable, str(job)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stdout
    assert res.stdout.count("OK ") == 12, res.stdout
