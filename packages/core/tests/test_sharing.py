"""Shared-memory storage, pickling tensors as handles or bytes, and deep copies."""

from __future__ import annotations

import copy
import multiprocessing as mp
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.core import sharing
from ember.core.device import device
from ember.core.storage import Storage
from ember.core.tensor import Tensor

SHM_DIR = "/dev/shm"
linux_only = pytest.mark.skipif(not os.path.isdir(SHM_DIR), reason="counts segments in /dev/shm")


def _segments(pid: int | None = None) -> set[str]:
    """Segments created by this process (or by `pid`); other programs may share /dev/shm."""
    head = f"{sharing.SHM_PREFIX.lstrip('/')}{os.getpid() if pid is None else pid}_"
    return {f for f in os.listdir(SHM_DIR) if f.startswith(head)}


def _matrix() -> Tensor:
    return E.arange(12, dtype=E.float32).view(3, 4)


class Tagged(Tensor):
    """A subclass standing in for `Parameter`."""


# --- share_memory_ / is_shared ---------------------------------------------------------------
def test_new_tensor_is_not_shared():
    assert not _matrix().is_shared()


def test_share_memory_moves_storage_in_place_and_views_follow():
    t = _matrix()
    row = t[1]
    before = row.numpy()  # caches a numpy view of the old buffer
    assert before[0] == 4
    assert t.share_memory_() is t
    assert t.is_shared() and row.is_shared()
    row.numpy()[0] = 100.0
    np.testing.assert_array_equal(t.numpy()[1], [100, 5, 6, 7])
    np.testing.assert_array_equal(t.numpy()[2], [8, 9, 10, 11])
    assert t.untyped_storage()._shared.name.startswith(sharing.SHM_PREFIX)


def test_share_memory_twice_keeps_the_segment():
    t = _matrix().share_memory_()
    name = t._storage._shared.name
    t.share_memory_()
    assert t._storage._shared.name == name


def test_cuda_storage_counts_as_shared():
    t = Tensor._make(Storage(None, 8, device("cuda:0")), 0, (2,), (1,), E.float32)
    assert t.is_shared()


@linux_only
def test_creator_unlinks_segment_when_last_reference_dies():
    before = _segments()
    t = _matrix().share_memory_()
    kept = t.numpy()[0]  # a numpy view keeps the mapping, hence the segment, alive
    assert len(_segments() - before) == 1
    del t
    assert len(_segments() - before) == 1
    np.testing.assert_array_equal(kept, [0, 1, 2, 3])
    del kept
    assert _segments() == before


@linux_only
def test_empty_tensor_can_be_shared():
    before = _segments()
    t = E.zeros(0).share_memory_()
    assert t.is_shared() and t.shape == (0,)
    assert pickle.loads(pickle.dumps(t)).shape == (0,)
    del t
    assert _segments() == before


# --- pickling ----------------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.sampled_from(["float32", "int64", "uint8", "bool"]),
       st.booleans())
def test_pickle_round_trip_keeps_values_layout_and_dtype(shape, dtype_name, shared):
    dt = getattr(E, dtype_name)
    n = int(np.prod(shape))
    t = E.tensor(np.arange(n).reshape(shape) % 3 == 1 if dtype_name == "bool" else np.arange(n).reshape(shape),
                 dtype=dt)
    if len(shape) > 1:
        t = t.transpose(0, 1)
    if shared:
        t.share_memory_()
    r = pickle.loads(pickle.dumps(t))
    assert r.dtype is dt and r.shape == t.shape and r.stride() == t.stride()
    assert r.storage_offset() == t.storage_offset()
    np.testing.assert_array_equal(r.numpy(), t.numpy())
    assert r.is_shared() == shared


def test_unshared_pickle_is_a_compact_copy():
    t = E.zeros(10_000)
    payload = pickle.dumps(t)
    assert 40_000 <= len(payload) < 41_000  # the bytes once, not a nested list
    r = pickle.loads(payload)
    r.numpy()[0] = 1.0
    assert t.numpy()[0] == 0.0


def test_shared_pickle_is_a_handle_not_the_bytes():
    t = E.zeros(100_000).share_memory_()
    payload = pickle.dumps(t)
    assert len(payload) < 1_000
    r = pickle.loads(payload)
    r.numpy()[5] = 7.0
    assert t.numpy()[5] == 7.0


@pytest.mark.parametrize("shared", [False, True])
def test_views_pickled_together_arrive_over_one_storage(shared):
    t = _matrix()
    if shared:
        t.share_memory_()
    a, b = pickle.loads(pickle.dumps([t, t[2, 1:]]))
    assert a.untyped_storage() is b.untyped_storage()
    assert b.storage_offset() == 9
    a.numpy()[2, 1] = -1.0
    assert b.numpy()[0] == -1.0


def test_pickle_keeps_subclass_attributes_and_requires_grad_flag():
    t = _matrix()._as_subclass(Tagged)
    t.note = "w"
    t._requires_grad = True
    r = pickle.loads(pickle.dumps(t))
    assert type(r) is Tagged and r.note == "w" and r.requires_grad


def test_pickling_a_cuda_tensor_raises_a_clear_error():
    t = Tensor._make(Storage(None, 8, device("cuda:0")), 0, (2,), (1,), E.float32)
    with pytest.raises(RuntimeError, match=r"pickling Tensor\(shape=\(2,\), dtype=float32, device=cuda:0\) "
                                           r"is not supported .*\.cpu\(\)"):
        pickle.dumps(t)


def test_on_attach_hook_sees_received_segments_by_prefix():
    t = _matrix().share_memory_()
    name = t._storage._shared.name
    seen = []
    remove = sharing.on_attach(name, lambda n, m: seen.append((n, len(m))))
    try:
        sharing._attached.pop(name)  # as if in another process
        pickle.loads(pickle.dumps(t))
    finally:
        remove()
    assert seen == [(name, 48)]


# --- across processes --------------------------------------------------------------------------
def _child_writes(q_in, q_out):
    a, b = q_in.get()
    q_out.put((a.untyped_storage() is b.untyped_storage(), a.is_shared()))
    b.numpy()[:] = 42.0


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_child_process_writes_through_the_handle(method):
    ctx = mp.get_context(method)
    t = _matrix().share_memory_()
    q_in, q_out = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_child_writes, args=(q_in, q_out))
    p.start()
    q_in.put([t, t[1]])
    same, shared = q_out.get(timeout=60)
    p.join(60)
    assert p.exitcode == 0 and same and shared
    np.testing.assert_array_equal(t.numpy()[1], [42.0] * 4)
    np.testing.assert_array_equal(t.numpy()[0], [0, 1, 2, 3])


@linux_only
def test_receivers_neither_unlink_nor_leak_nor_warn(tmp_path):
    """A whole program: the parent shares, a spawned child maps and exits; the parent still reads
    the segment, and at exit nothing is left in /dev/shm and the resource tracker says nothing."""
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent("""
        import multiprocessing as mp, os
        import ember.core as E

        def child(q):
            t = q.get()
            t.numpy()[0] = 5.0

        if __name__ == "__main__":
            ctx = mp.get_context("spawn")
            t = E.zeros(1000).share_memory_()
            q = ctx.Queue()
            p = ctx.Process(target=child, args=(q,))
            p.start(); q.put(t); p.join()
            name = t.untyped_storage()._shared.name.lstrip("/")
            assert os.path.exists("/dev/shm/" + name)
            print("value", t.numpy()[0], os.getpid())
    """))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 0, res.stderr
    _, value, pid = res.stdout.split()
    assert value == "5.0"
    assert "leaked" not in res.stderr and "Warning" not in res.stderr, res.stderr
    assert not _segments(int(pid))


# --- deepcopy ----------------------------------------------------------------------------------
def test_deepcopy_copies_memory_and_keeps_views_together():
    t = _matrix().share_memory_()
    a, b = copy.deepcopy([t, t[1]])
    assert a.untyped_storage() is b.untyped_storage()
    assert not a.is_shared()
    a.numpy()[1, 0] = -3.0
    assert b.numpy()[0] == -3.0 and t.numpy()[1, 0] == 4.0
    np.testing.assert_array_equal(a.numpy(), t.numpy() * (t.numpy() != 4.0) - 3.0 * (t.numpy() == 4.0))


def test_deepcopy_keeps_class_attributes_grad_and_requires_grad():
    t = _matrix()._as_subclass(Tagged)
    t.meta = {"k": [1]}
    t._requires_grad = True
    t._grad = E.ones(3, 4)
    c = copy.deepcopy(t)
    assert type(c) is Tagged and c.requires_grad and c.meta == {"k": [1]} and c.meta is not t.meta
    assert c.grad is not t.grad
    np.testing.assert_array_equal(c.grad.numpy(), np.ones((3, 4)))
    assert copy.deepcopy([t, t])[1] is not t


@linux_only
def test_only_the_creating_process_unlinks():
    """A forked child inherits the creator's finalizer; running it there must not unlink."""
    t = _matrix().share_memory_()
    name = t._storage._shared.name
    sharing._unlink_owned(name, os.getpid() + 1)
    assert name.lstrip("/") in _segments()


@linux_only
def test_full_shared_memory_is_a_clear_error_and_leaves_nothing(monkeypatch):
    def full(fd, offset, size):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "posix_fallocate", full)
    before = _segments()
    with pytest.raises(RuntimeError, match=r"shared memory is full: cannot allocate 4000 bytes .*--shm-size"):
        E.zeros(1000).share_memory_()
    assert _segments() == before
