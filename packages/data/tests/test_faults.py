"""DataLoader faults: worker exceptions, killed workers, timeouts, and clean shutdown with no leaks."""

from __future__ import annotations

import gc
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from ember.data import DataLoader

from loader_datasets import Failing, FailingTwoArgs, SelfKilling, Slow, Squares, failing_init, segments

pytestmark = pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="counts segments in /dev/shm")


@pytest.fixture
def no_leaks():
    before = segments()
    yield
    gc.collect()
    assert segments() == before


def gone(pids: list[int]) -> bool:
    """No process left, not even a zombie (a zombie still has a /proc entry)."""
    return not any(os.path.exists(f"/proc/{pid}") for pid in pids)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_worker_exception_reraises_with_worker_index_and_traceback(method, no_leaks):
    it = iter(DataLoader(Failing(bad=5), batch_size=2, num_workers=2, multiprocessing_context=method))
    assert next(it)[1].tolist() == [0, 1]
    assert next(it)[1].tolist() == [2, 3]
    with pytest.raises(ValueError) as info:
        next(it)
    msg = str(info.value)
    assert msg.startswith("Caught ValueError in DataLoader worker process 0.\nOriginal Traceback (most recent call "
                          "last):\n")
    assert "in __getitem__" in msg and "ValueError: bad sample 5" in msg and "index [4, 5]" in msg
    assert next(it)[1].tolist() == [6, 7]  # the loader goes on, as PyTorch's does
    del it


def test_key_error_keeps_its_type_and_readable_message(no_leaks):
    with pytest.raises(KeyError) as info:
        list(DataLoader(Failing(bad=0, exc_type=KeyError), batch_size=2, num_workers=1))
    assert "Caught KeyError in DataLoader worker process 0.\nOriginal Traceback" in repr(info.value)


def test_exception_that_cannot_be_rebuilt_becomes_runtime_error(no_leaks):
    with pytest.raises(RuntimeError, match="Caught NeedsTwoArgs in DataLoader worker process 0"):
        list(DataLoader(FailingTwoArgs(), batch_size=2, num_workers=1))


def test_worker_init_fn_failure_is_reported(no_leaks):
    with pytest.raises(ValueError, match="Caught ValueError in DataLoader worker process 0.(.|\n)*init failed in 0"):
        list(DataLoader(Squares(8), batch_size=1, num_workers=2, worker_init_fn=failing_init))


def test_killed_worker_raises_quickly_and_releases_everything(no_leaks):
    loader = DataLoader(SelfKilling(bad=9), batch_size=2, num_workers=2)
    it = iter(loader)
    pids = [p.pid for p in it._workers.processes]
    kept = next(it)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly") as info:
        for _ in it:
            pass
    assert time.monotonic() - start < 2.0
    assert "worker 0: killed by signal SIGKILL" in str(info.value)  # batch 4 (keys 8, 9) is worker 0's
    assert gone(pids)
    del kept, it


def test_timeout_raises(no_leaks):
    it = iter(DataLoader(Slow(1.0), batch_size=1, num_workers=1, timeout=0.3))
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.3 seconds"):
        next(it)
    assert time.monotonic() - start < 1.0
    del it


def first_batch_then_break(loader):
    for batch in loader:
        return batch


def test_break_then_drop_the_iterator_shuts_workers_down(no_leaks):
    loader = DataLoader(Slow(0.01, n=400), batch_size=2, num_workers=2)
    it = iter(loader)
    pids = [p.pid for p in it._workers.processes]
    x, _ = next(it)
    del it
    assert gone(pids)
    assert x.numpy()[1, 0, 0] == 1.0  # a batch kept past shutdown stays valid
    del x


def test_exception_in_the_training_loop_shuts_workers_down(no_leaks):
    loader = DataLoader(Squares(40), batch_size=2, num_workers=2)

    def train():
        for i, _ in enumerate(loader):
            if i == 2:
                raise ArithmeticError("diverged")

    with pytest.raises(ArithmeticError):
        train()
    assert not [p for p in _children() if p.is_alive()]


def _children():
    import multiprocessing as mp

    return mp.active_children()


def test_deleting_a_persistent_loader_shuts_workers_down(no_leaks):
    loader = DataLoader(Squares(40), batch_size=2, num_workers=2, persistent_workers=True)
    batch = first_batch_then_break(loader)
    pids = [p.pid for p in loader._iterator._workers.processes]
    del loader
    assert gone(pids)
    del batch


def test_keyboard_interrupt_shuts_workers_down(no_leaks):
    # Python's own SIGINT handler, even where this process inherited SIGINT ignored (a job that a non-interactive
    # shell put in the background), where `next` would finish normally
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        it = iter(DataLoader(Slow(1.0), batch_size=1, num_workers=2))
        pids = [p.pid for p in it._workers.processes]
        timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            next(it)
        timer.join()
        assert gone(pids)
        del it
    finally:
        signal.signal(signal.SIGINT, previous)


class Unpicklable(Squares):
    def __init__(self):
        super().__init__(8)
        self.transform = lambda x: x


def test_a_dataset_spawn_cannot_pickle_fails_cleanly(no_leaks):
    before = {p.pid for p in _children()}
    with pytest.raises((AttributeError, TypeError, pickle.PicklingError)):
        iter(DataLoader(Unpicklable(), batch_size=2, num_workers=2, multiprocessing_context="spawn"))
    assert {p.pid for p in _children()} == before


def test_after_a_worker_died_the_iterator_ends_and_a_persistent_loader_restarts(no_leaks):
    loader = DataLoader(SelfKilling(bad=3, n=8), batch_size=2, num_workers=2, persistent_workers=True)
    it = iter(loader)
    with pytest.raises(RuntimeError, match="exited unexpectedly"):
        list(it)
    with pytest.raises(StopIteration):
        next(it)
    loader.dataset.bad = -1  # a copy in fresh workers: nothing kills them now
    assert [y.tolist() for _, y in loader] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    del loader, it


def test_workers_clean_up_when_the_main_process_is_killed(tmp_path):
    script = tmp_path / "killed.py"
    script.write_text(textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        from loader_datasets import Squares
        from ember.data import DataLoader

        if __name__ == "__main__":
            it = iter(DataLoader(Squares(400), batch_size=2, num_workers=2))
            batch = next(it)
            print(it._workers.prefix, *(p.pid for p in it._workers.processes), flush=True)
            os.kill(os.getpid(), 9)
    """))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == -9, res.stderr
    prefix, *pids = res.stdout.split()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not gone([int(p) for p in pids]):
        time.sleep(0.1)
    assert gone([int(p) for p in pids])
    assert not [s for s in os.listdir("/dev/shm") if s.startswith(prefix.lstrip("/"))]


@pytest.mark.parametrize(("method", "dataset"), [("fork", "HangsAfter"), ("spawn", "HangsAfter"),
                                                 ("fork", "HoldsTheGIL"), ("spawn", "HoldsTheGIL")])
def test_hung_workers_unlink_their_segments_when_the_main_process_is_killed(tmp_path, method, dataset):
    """SIGKILL gives the main process no chance to clean up, and its workers hang in __getitem__,
    in Python (their watchdogs act) or in native code holding the GIL (the reaper acts): every
    segment of the loader must still be unlinked and the workers ended."""
    script = tmp_path / "killed_while_hung.py"
    script.write_text(textwrap.dedent(f"""
        import os, sys, time
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        from loader_datasets import {dataset}
        from ember.data import DataLoader

        if __name__ == "__main__":
            loader = DataLoader({dataset}(4), batch_size=2, num_workers=2, multiprocessing_context={method!r})
            it = iter(loader)
            batches = [next(it), next(it)]  # held: the main process maps their segments
            time.sleep(1.0)  # both workers are now inside a hung __getitem__
            print(it._workers.prefix, *(p.pid for p in it._workers.processes), flush=True)
            os.kill(os.getpid(), 9)
    """))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = tmp_path / "out.txt"
    with open(out, "w") as f:  # not a pipe: hung workers would hold it open and run() would wait for them
        res = subprocess.run([sys.executable, str(script)], stdout=f, stderr=subprocess.STDOUT, env=env, timeout=120)
    assert res.returncode == -9, out.read_text()
    prefix, *pids = out.read_text().splitlines()[0].split()  # later lines: the resource tracker's warnings
    pids = [int(p) for p in pids]
    assert len(pids) == 2
    try:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not gone(pids):
            time.sleep(0.1)
        assert gone(pids)
        assert not [s for s in os.listdir("/dev/shm") if s.startswith(prefix.lstrip("/"))]
    finally:  # on failure, leave no hung worker and no segment behind
        for pid in pids:
            if os.path.exists(f"/proc/{pid}"):
                os.kill(pid, signal.SIGKILL)
        for s in os.listdir("/dev/shm"):
            if s.startswith(prefix.lstrip("/")):
                os.unlink(f"/dev/shm/{s}")
