"""ember's worker threads (ops/workers.py): results in order, the caller running what no worker started, errors
raised after the started calls finish, and the caller's context (numpy's error state) in every call."""

import contextlib
import threading
import time

import numpy as np
import pytest

from ember.core.ops import workers


@contextlib.contextmanager
def _every_worker_busy():
    """Every thread of the pool blocked until the block ends."""
    release = threading.Event()
    pool = workers._executor(1)
    busy = [pool.submit(release.wait, 60) for _ in range(workers._POOL[1])]
    try:
        yield
    finally:
        release.set()
        for f in busy:
            f.result(timeout=60)


def test_results_come_in_call_order_with_the_first_on_the_caller():
    names = []

    def call(i):
        def run():
            names.append((i, threading.current_thread().name, workers.in_worker()))
            time.sleep(0.01 * (3 - i))  # the later calls finish first
            return i * i
        return run

    assert workers.run_all([call(i) for i in range(3)]) == [0, 1, 4]
    first = next(n for n in names if n[0] == 0)
    assert first[1] == threading.current_thread().name and first[2] is False
    assert not workers.in_worker()


def test_a_call_no_worker_has_started_runs_on_the_caller():
    """Every worker busy (here: blocked until the caller is done): the caller takes the piece back, no wait."""
    with _every_worker_busy():
        names = []
        got = workers.run_all([lambda: 1, lambda: names.append(threading.current_thread().name) or 2])
        assert got == [1, 2] and names == [threading.current_thread().name]


def test_the_first_error_is_raised_after_the_started_calls_finish():
    started, finished = threading.Event(), []

    def slow():
        started.set()
        time.sleep(0.2)
        finished.append("slow")

    def fail():
        assert started.wait(60)
        raise ValueError("block 0 failed")

    with pytest.raises(ValueError, match="block 0 failed"):
        workers.run_all([fail, slow])
    assert finished == ["slow"]  # nothing still writes when the caller sees the error


def test_a_workers_error_reaches_the_caller():
    def fail():
        raise KeyError("in a worker")

    with pytest.raises(KeyError, match="in a worker"):
        workers.run_all([lambda: time.sleep(0.05), fail])


def test_calls_run_in_the_callers_numpy_error_state():
    def state():
        return np.geterr()["over"]

    with np.errstate(over="raise"):
        assert workers.run_all([state, state, state]) == ["raise"] * 3
    assert workers.run_all([state, state]) == [np.geterr()["over"]] * 2


def test_a_worker_splitting_again_runs_its_piece_whole():
    """Nested use cannot deadlock: inside a worker `in_worker()` holds, and run_all from there still returns."""
    def nested():
        return workers.in_worker(), workers.run_all([lambda: 1, lambda: 2])

    got = workers.run_all([lambda: None, nested])
    assert got[1][1] == [1, 2]


@pytest.mark.parametrize("sizes", [[10, 70, 3, 0, 17], [100], [1, 1, 1, 1, 97]])
def test_spread_cuts_the_elements_into_one_range_a_thread_and_covers_each_once(monkeypatch, sizes):
    from ember.core import parallel

    monkeypatch.setattr(parallel, "get_num_threads", lambda: 2)
    rng = np.random.default_rng(0)
    calls = [(rng.standard_normal(n), np.ones(n), np.empty(0), 0.5) for n in sizes]
    want = [c[0] + 0.5 for c in calls]
    seen = []

    def kernel(a, b, empty, scale):
        seen.append((a.shape[0], empty.shape[0], threading.current_thread().name))
        a += scale * b

    workers.spread(kernel, calls, 3, min_size=8)
    assert all(np.array_equal(c[0], w) for c, w in zip(calls, want))  # every element updated exactly once
    assert sum(n for n, _, _ in seen) == sum(sizes) and all(e == 0 for _, e, _ in seen)
    assert len({name for _, _, name in seen}) in (1, 2)


def test_spread_below_its_minimum_calls_in_order_on_the_caller(monkeypatch):
    from ember.core import parallel

    monkeypatch.setattr(parallel, "get_num_threads", lambda: 2)
    order = []
    calls = [(np.zeros(n), n) for n in (3, 5, 2)]
    workers.spread(lambda a, n: order.append((n, a.shape[0], threading.current_thread().name)), calls, 1, min_size=11)
    assert order == [(n, n, threading.current_thread().name) for n in (3, 5, 2)]


def test_spread_splits_one_large_call_in_two_halves(monkeypatch):
    from ember.core import parallel

    monkeypatch.setattr(parallel, "get_num_threads", lambda: 2)
    got = []
    workers.spread(lambda a: got.append((a[0], a.shape[0])), [(np.arange(101.0),)], 1, min_size=4)
    assert sorted(got) == [(0.0, 51), (51.0, 50)]


def test_run_queue_gives_results_in_item_order_with_one_scratch_buffer_a_thread():
    buffers = set()

    def fn(item, buf):
        buffers.add(id(buf))
        time.sleep(0.001 * (item % 3))
        return item * 10

    assert workers.run_queue(fn, list(range(12)), 2, scratch=lambda: object()) == [i * 10 for i in range(12)]
    assert len(buffers) in (1, 2)


def test_run_queue_leaves_a_busy_workers_share_to_the_caller():
    with _every_worker_busy():
        names = []
        got = workers.run_queue(lambda i, _: names.append(threading.current_thread().name) or i, range(6), 2)
        assert got == list(range(6)) and set(names) == {threading.current_thread().name}
