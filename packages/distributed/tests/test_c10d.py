"""The collectives on 2 and 4 (oversubscribed) ranks against numpy, and errors before initialization."""

import pytest

import ember.autograd as torch
import ember.distributed as dist


@pytest.mark.parametrize("nproc", [2, 4])
def test_every_collective_matches_numpy(run_job, nproc):
    res = run_job(nproc, "collectives.py")
    assert res.returncode == 0, res.stdout
    for r in range(nproc):
        assert f"rank {r} DONE" in res.stdout, res.stdout
    # one OK line per check on every rank (gather checks on its destination only)
    assert res.stdout.count(" OK ") == nproc * 21 + 1, res.stdout


def test_collective_before_init_raises():
    assert not dist.is_initialized()
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        dist.all_reduce(torch.ones(2))
    with pytest.raises(ValueError, match="init_process_group"):
        dist.get_rank()


def test_unknown_backend_raises_as_pytorch():
    with pytest.raises(AssertionError, match="^Unknown backend type foo$"):
        dist.init_process_group("foo")
    with pytest.raises(ValueError, match="^Invalid backend: 'bar'$"):
        dist.init_process_group("cpu:bar")
    assert not dist.is_initialized()


def test_backend_names_as_pytorch():
    assert dist.Backend("GLOO") == "gloo" and isinstance(dist.Backend.NCCL, str)
    assert dist.Backend.backend_list == ["undefined", "gloo", "nccl", "ucc", "mpi", "xccl"]
    with pytest.raises(ValueError, match="^Invalid backend: 'foo'$"):
        dist.Backend("foo")
    assert dist.is_gloo_available() == dist.is_mpi_available() == dist.is_backend_available("cpu:gloo")
    assert not dist.is_backend_available("foo")
    assert dist.get_node_local_rank(fallback_rank=3) == 3 or "LOCAL_RANK" in __import__("os").environ


@pytest.mark.parametrize("name", ["gloo", "GLOO", "cpu:gloo,cuda:nccl"])
def test_pytorch_backend_names_run_over_mpi(run_job, name):
    res = run_job(2, "backend_names.py", name)
    assert res.returncode == 0, res.stdout
    assert res.stdout.count(f"OK {name}") == 2, res.stdout


def test_a_world_size_mpi_did_not_start_names_the_launcher():
    import os
    import subprocess
    import sys
    from pathlib import Path

    pytest.importorskip("mpi4py")
    env = dict(os.environ, WORLD_SIZE="2", RANK="0")  # as torchrun sets for each process it starts alone
    job = Path(__file__).parent / "jobs" / "backend_names.py"
    res = subprocess.run([sys.executable, str(job), "gloo"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, timeout=120, env=env)
    assert res.returncode != 0
    assert "init_process_group: world_size=2 but MPI started 1 processes; ember's process groups run over MPI: " \
           "start the processes with `ember-run --nproc-per-node N script.py`" in res.stdout, res.stdout


def test_reduce_op_names():
    assert [op.name for op in dist.ReduceOp] == ["SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]
    assert str(dist.ReduceOp.AVG) == "RedOpType.AVG" and repr(dist.ReduceOp.MAX) == "<RedOpType.MAX: 4>"


def test_without_a_launcher_a_group_of_one_and_a_wait_past_the_deadline_raises():
    import subprocess
    import sys
    from pathlib import Path

    pytest.importorskip("mpi4py")
    job = Path(__file__).parent / "jobs" / "single.py"
    res = subprocess.run([sys.executable, str(job)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         timeout=120)
    assert res.returncode == 0 and "OK timeout" in res.stdout and "OK twice" in res.stdout, res.stdout


def test_a_gloo_group_reduces_bitwise_and_words_its_errors_as_pytorchs_gloo():
    import subprocess
    import sys
    from pathlib import Path

    pytest.importorskip("mpi4py")
    job = Path(__file__).parent / "jobs" / "gloo_words.py"
    res = subprocess.run([sys.executable, str(job)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         timeout=120)
    assert res.returncode == 0 and "OK gloo words" in res.stdout, res.stdout


def test_contiguous_cpu_tensors_reach_mpi_without_a_copy():
    import numpy as np

    from ember.distributed.c10d import _Buf

    t = torch.arange(12.0).view(3, 4)
    b = _Buf(t, write=True)
    assert not b.staged and np.shares_memory(b.arr, t.numpy())
    nc = _Buf(t.t(), write=True)  # a transposed view: staged in a contiguous copy, written back on completion
    assert nc.staged and not np.shares_memory(nc.arr, t.numpy()) and nc.arr.flags.c_contiguous
    nc.arr[...] = -nc.arr
    v = t._version
    nc.done()
    np.testing.assert_array_equal(t.numpy(), -np.arange(12.0).reshape(3, 4))
    assert t._version > v


@pytest.mark.parametrize("nproc", [2, 4])
def test_all_to_all_objects_p2p_batches_and_comm_hooks_match_numpy(run_job, nproc):
    res = run_job(nproc, "exchange.py")
    assert res.returncode == 0, res.stdout
    for r in range(nproc):
        assert f"rank {r} DONE" in res.stdout, res.stdout
    # 14 checks on every rank, plus gather_object and recv_object_list on the last rank
    assert res.stdout.count(" OK ") == nproc * 14 + 2, res.stdout


def test_all_to_all_single_rejects_splits_that_do_not_add_up():
    from ember.distributed.exchange import _splits

    assert _splits(None, 6, 3, "all_to_all_single", "input") == [2, 2, 2]
    with pytest.raises(ValueError, match=r"dim 0 of the input \(5\) must be divisible by the world size \(2\)"):
        _splits(None, 5, 2, "all_to_all_single", "input")
    with pytest.raises(ValueError, match="output_split_sizes sum to 4 but dim 0 of the output has 5 rows"):
        _splits([1, 3], 5, 2, "all_to_all_single", "output")
    with pytest.raises(ValueError, match=r"must have world_size \(2\) non-negative entries"):
        _splits([5, 1, -1], 5, 2, "all_to_all_single", "input")


def test_p2p_op_takes_only_isend_or_irecv():
    with pytest.raises(ValueError, match="Invalid ``op``"):
        dist.P2POp(dist.all_reduce, torch.zeros(1), 0)
    with pytest.raises(ValueError, match="Invalid ``p2p_op_list``"):
        dist.batch_isend_irecv([])


@pytest.mark.parametrize("old, new", [("all_gather_into_tensor", "all_gather_single"),
                                      ("reduce_scatter_tensor", "reduce_scatter_single")])
def test_tensor_collectives_old_names_warn_as_pytorch(old, new):
    """PyTorch 2.13 renames them `*_single` and deprecates the old names with a FutureWarning."""
    assert new in dist.__all__ and old in dist.__all__
    with pytest.warns(FutureWarning, match=f"^`torch.distributed.{old}` is deprecated. Please use "
                                           f"`torch.distributed.{new}` instead.$"):
        with pytest.raises(ValueError, match="Default process group has not been initialized"):
            getattr(dist, old)(torch.zeros(2), torch.zeros(2))


@pytest.mark.parametrize("tick, yields, sleeps", [(0.0, 136, 0), (1e-4, 20, 116)])
def test_a_wait_yields_the_core_for_2ms_then_sleeps_between_polls(monkeypatch, tick, yields, sleeps):
    # 200 polls: 64 tight ones, then sched_yield (0.5 µs) while the wait is under 2 ms old and a
    # sleep(0) (50-70 µs of timer slack) after; a clock that advances 0.1 ms per reading crosses 2 ms
    import datetime
    import types

    from ember.distributed import c10d

    polls = [0]

    def testall(reqs, statuses=None):
        polls[0] += 1
        return polls[0] > 200

    now = [100.0]

    def monotonic():
        now[0] += tick
        return now[0]

    seen = {"yield": 0, "sleep": 0}
    monkeypatch.setattr(c10d, "_mpi", lambda: types.SimpleNamespace(Request=types.SimpleNamespace(Testall=testall)))
    monkeypatch.setattr(c10d.time, "monotonic", monotonic)
    monkeypatch.setattr(c10d.os, "sched_yield", lambda: seen.__setitem__("yield", seen["yield"] + 1))
    monkeypatch.setattr(c10d.time, "sleep", lambda s: seen.__setitem__("sleep", seen["sleep"] + 1))
    pg = types.SimpleNamespace(timeout=datetime.timedelta(seconds=60))
    assert c10d.Work([object()], None, pg, "all_reduce").wait() and polls[0] == 201
    assert (seen["yield"], seen["sleep"]) == (yields, sleeps)


@pytest.mark.parametrize("nproc", [2, 3])
def test_differentiable_collectives_match_their_adjoints(run_job, nproc):
    res = run_job(nproc, "nn_functional.py")
    assert res.returncode == 0, res.stdout
    assert res.stdout.count(" OK ") == nproc * 20, res.stdout
    assert all(f"rank {r} DONE" in res.stdout for r in range(nproc)), res.stdout


@pytest.mark.parametrize("nproc", [2, 3])
def test_zero_redundancy_optimizer_trains_as_one_process_and_consolidates_its_state(run_job, nproc):
    res = run_job(nproc, "zero.py")
    assert res.returncode == 0, res.stdout
    assert all(f"rank {r} DONE" in res.stdout for r in range(nproc)), res.stdout
    assert res.stdout.count(" OK ") == nproc * 17 + 3, res.stdout


def test_process_group_repr_is_pytorchs():
    import datetime

    from ember.distributed.c10d import ProcessGroup

    pg = ProcessGroup(None, [0], datetime.timedelta(seconds=1))
    assert repr(pg) == f"<torch.distributed.distributed_c10d.ProcessGroup object at {id(pg):#x}>"
