"""torch.multiprocessing: tensors cross queues and pipes through shared memory (the receiver writes the
sender's buffer), parameters keep their class, sharing strategies, `spawn`'s error reporting, Hogwild
updates of one shared model, and no segment left behind."""

import gc
import multiprocessing
import os

import numpy as np
import pytest

import ember.autograd as ea
import ember.nn as enn
import ember.torch.multiprocessing as tmp


def _add_one_and_reply(q, r, done):
    t = q.get()
    with ea.no_grad():
        t.add_(1)
    reply = ea.ones(3) * 7
    r.put((reply, type(t).__name__, t.is_shared()))
    done.wait()  # the sender and (for "file_system") `reply` stay alive until the parent has received it


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_queue_moves_tensors_into_shared_memory(method):
    ctx = tmp.get_context(method)
    q, r, done = ctx.Queue(), ctx.Queue(), ctx.Event()
    x = enn.Parameter(ea.zeros(4))
    p = ctx.Process(target=_add_one_and_reply, args=(q, r, done))
    p.start()
    q.put(x)
    y, cls, shared_there = r.get(timeout=60)
    done.set()
    p.join(timeout=60)
    assert p.exitcode == 0
    assert x.is_shared() and y.is_shared() and shared_there and cls == "Parameter"
    np.testing.assert_array_equal(x.detach().numpy(), np.ones(4))  # the child wrote our memory
    np.testing.assert_array_equal(y.numpy(), np.full(3, 7.0))


def _echo(conn):
    t = conn.recv()
    t.mul_(2)
    conn.send("done")


def test_pipe_shares_the_tensor_with_the_receiver():
    a, b = tmp.Pipe()
    x = ea.arange(4.0)
    p = tmp.get_context("fork").Process(target=_echo, args=(b,))
    p.start()
    a.send(x[1:])  # a view: the whole storage is shared, the view's geometry kept
    assert a.recv() == "done"
    p.join()
    np.testing.assert_array_equal(x.numpy(), [0.0, 2.0, 4.0, 6.0])


def test_sharing_strategies():
    assert tmp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    assert tmp.get_sharing_strategy() == "file_descriptor"
    with pytest.raises(AssertionError, match="invalid sharing strategy 'cuda_ipc'"):
        tmp.set_sharing_strategy("cuda_ipc")
    with pytest.raises(ValueError):
        tmp.set_sharing_strategy("nope")
    tmp.set_sharing_strategy("file_system")
    try:
        ctx = tmp.get_context("fork")
        q, r, done = ctx.Queue(), ctx.Queue(), ctx.Event()
        x = ea.zeros(2)
        p = ctx.Process(target=_add_one_and_reply, args=(q, r, done))
        p.start()
        q.put(x)
        y, _, _ = r.get(timeout=60)
        done.set()
        p.join()
        np.testing.assert_array_equal(x.numpy(), [1.0, 1.0])
        np.testing.assert_array_equal(y.numpy(), [7.0, 7.0, 7.0])
    finally:
        tmp.set_sharing_strategy("file_descriptor")


def test_module_share_memory_shares_every_parameter_and_buffer():
    m = enn.Sequential(enn.Linear(3, 4), enn.BatchNorm1d(4))
    assert not any(p.is_shared() for p in m.parameters())
    assert m.share_memory() is m
    assert all(t.is_shared() for t in [*m.parameters(), *m.buffers()])


def _hogwild_worker(rank, w, steps):
    # plain SGD on f(w) = |w - 1|^2 / 2, writing the shared tensor without locks
    for _ in range(steps):
        w.sub_(0.05 * (w - 1.0))


def test_hogwild_processes_update_one_shared_tensor():
    w = ea.zeros(8).share_memory_()
    ctx = tmp.get_context("fork")
    procs = [ctx.Process(target=_hogwild_worker, args=(i, w, 50)) for i in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    assert all(p.exitcode == 0 for p in procs)
    # 100 contraction steps in all (interleaved arbitrarily): far closer to 1 than one process's 50 alone
    assert np.all(np.abs(w.numpy() - 1.0) < 0.95 ** 60)


def _fail(i, msg):
    if i == 1:
        raise ValueError(msg)


def _ok(i, path):
    with open(f"{path}.{i}", "w") as f:
        f.write(str(i))


def test_spawn_runs_each_rank_and_reports_a_childs_exception(tmp_path):
    base = str(tmp_path / "rank")
    assert tmp.spawn(_ok, args=(base,), nprocs=2, start_method="fork") is None
    assert sorted(open(f"{base}.{i}").read() for i in range(2)) == ["0", "1"]
    with pytest.raises(tmp.ProcessRaisedException, match=r"(?s)Process 1 terminated.*ValueError: bad rank"):
        tmp.spawn(_fail, args=("bad rank",), nprocs=2, start_method="fork")
    ctx = tmp.spawn(_ok, args=(base,), nprocs=1, join=False, start_method="fork")
    while not ctx.join():
        pass
    assert len(ctx.pids()) == 1


def _exit_badly(i):
    os._exit(3)


def test_spawn_reports_an_exit_code():
    with pytest.raises(tmp.ProcessExitedException, match="process 0 terminated with exit code 3") as info:
        tmp.spawn(_exit_badly, nprocs=1, start_method="fork")
    assert info.value.exit_code == 3


def _segments() -> set[str]:
    return {n for n in os.listdir("/dev/shm") if n.startswith(f"ember_{os.getpid()}_")}


def test_no_segment_outlives_the_tensors_sent():
    before = _segments()
    ctx = tmp.get_context("fork")
    q, r, done = ctx.Queue(), ctx.Queue(), ctx.Event()
    p = ctx.Process(target=_add_one_and_reply, args=(q, r, done))
    p.start()
    q.put(ea.zeros(16))  # dropped by us right away: the descriptor keeps it alive for the child
    y, _, _ = r.get(timeout=60)
    done.set()
    p.join()
    del y
    gc.collect()
    assert _segments() <= before


def test_reexports_the_multiprocessing_api():
    for name in ("Process", "Queue", "SimpleQueue", "Pipe", "get_context", "set_start_method", "Event", "Lock",
                 "cpu_count", "current_process"):
        assert getattr(tmp, name) is getattr(multiprocessing, name)


def test_dataloader_workers_keep_their_protocol_with_the_reducer_registered():
    from ember.torch.utils.data import DataLoader, TensorDataset

    ds = TensorDataset(ea.arange(64.0).reshape(32, 2), ea.arange(32))
    batches = list(DataLoader(ds, batch_size=4, num_workers=2))
    assert [float(x.sum()) for x, _ in batches] == [float(ea.arange(64.0)[8 * i:8 * i + 8].sum()) for i in range(8)]
    assert all(y.tolist() == list(range(4 * i, 4 * i + 4)) for i, (_, y) in enumerate(batches))
