"""DataLoader with worker processes: order, prefetch, seeding, sharding, and batches in shared memory."""

from __future__ import annotations

import gc
import os
import warnings

import numpy as np
import pytest

import ember.core as E
from ember.data import DataLoader

from ember.data.worker import dumps_batch
from loader_datasets import (
    InitProbe, Jittery, RandomDraws, Range, Rows, Squares, WorkerInfoProbe, large_collate, permuted_collate,
    record_init, scaled_collate, segments,
)

pytestmark = pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="counts segments in /dev/shm")


def labels(loader) -> list[list[int]]:
    return [y.tolist() for _, y in loader]


@pytest.fixture
def no_leaks():
    """Every test here must leave /dev/shm as it found it once its batches are gone."""
    before = segments()
    yield
    gc.collect()
    assert segments() == before


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_batches_arrive_in_sampler_order_with_values(method, no_leaks):
    loader = DataLoader(Jittery(24), batch_size=3, num_workers=2, multiprocessing_context=method)
    seen = []
    for x, y in loader:
        np.testing.assert_array_equal(x.numpy()[:, 1, 2], np.array(y.tolist(), np.float32) ** 2)
        seen.append(y.tolist())
    assert seen == [[i, i + 1, i + 2] for i in range(0, 24, 3)]


def test_out_of_order_delivery_when_not_in_order(no_leaks):
    got = labels(DataLoader(Jittery(24), batch_size=2, num_workers=3, in_order=False))
    assert sorted(got) == [[i, i + 1] for i in range(0, 24, 2)]


def test_batches_are_received_without_a_copy(no_leaks):
    it = iter(DataLoader(Squares(8), batch_size=4, num_workers=1))
    x, y = next(it)
    seg = x.untyped_storage()._shared
    assert x.is_shared() and seg.name.startswith(it._workers.prefix + "w0_")
    assert x.untyped_storage().data.base is seg.mmap  # the main process maps the worker's segment
    assert not y.is_shared()  # numbers collate into a small ordinary tensor, sent as bytes
    del x, y, seg, it


def test_segments_are_reused_across_batches(no_leaks):
    names, peak = set(), 0
    for x, _ in DataLoader(Squares(120), batch_size=2, num_workers=1):
        names.add(x.untyped_storage()._shared.name)
        peak = max(peak, len(segments()))
    assert len(names) <= 5  # prefetch 2 + batches alive here, not one per batch (60 batches)


def test_a_batch_still_alive_is_never_overwritten(no_leaks):
    kept = list(DataLoader(Squares(40), batch_size=4, num_workers=2))
    for x, y in kept:
        np.testing.assert_array_equal(x.numpy()[:, 0, 0], np.array(y.tolist(), np.float32) ** 2)
    assert len({x.untyped_storage()._shared.name for x, _ in kept}) == 10
    del kept


def test_a_numpy_view_keeps_its_segment_from_reuse(no_leaks):
    views = [x.numpy()[:, 0, 0] for x, _ in DataLoader(Squares(40), batch_size=4, num_workers=1)]
    np.testing.assert_array_equal(np.concatenate(views), np.arange(40, dtype=np.float32) ** 2)
    del views


def test_discarded_shared_collation_is_recycled(no_leaks):
    loader = DataLoader(Squares(80), batch_size=2, num_workers=1, collate_fn=scaled_collate)
    out = []
    for x, y in loader:
        assert not x.is_shared()
        out.append(float(x.numpy()[1, 0, 0]))
        assert len(segments()) <= 4
    assert out == [2.0 * (i + 1) ** 2 for i in range(0, 80, 2)]


def test_prefetch_keeps_factor_times_workers_batches_in_flight(no_leaks):
    it = iter(DataLoader(Squares(40), batch_size=1, num_workers=2, prefetch_factor=3))
    assert it._send_idx == 6
    next(it)
    assert it._send_idx == 7
    del it


def test_worker_info_in_workers(no_leaks):
    rows = [b for b in DataLoader(WorkerInfoProbe(), batch_size=None, num_workers=2,
                                  generator=E.Generator().manual_seed(5))]
    assert [r[0] for r in rows] == [0, 1, 0, 1]
    assert all(r[1] == 2 and r[3] == "WorkerInfoProbe" for r in rows)
    assert rows[1][2] == rows[0][2] + 1  # seed = base_seed + worker id


def test_worker_init_fn_runs_in_each_worker(no_leaks):
    assert list(DataLoader(InitProbe(), batch_size=None, num_workers=2, worker_init_fn=record_init)) == \
        ["init-0", "init-1", "init-0", "init-1"]


def draws(seed: int | None, num_workers: int = 2, method: str = "fork"):
    gen = E.Generator().manual_seed(seed) if seed is not None else None
    batches = list(DataLoader(RandomDraws(), batch_size=2, num_workers=num_workers, generator=gen,
                              multiprocessing_context=method))
    return [(b["worker"].tolist(), b["py"].tolist(), b["np"].tolist(), b["ember"].tolist()) for b in batches]


def test_worker_seeding_is_reproducible_and_differs_per_worker_and_epoch(no_leaks):
    a, b = draws(1), draws(1)
    assert a == b
    assert draws(2) != a
    w0, w1 = a[0], a[1]
    assert w0[0] == [0, 0] and w1[0] == [1, 1]
    for k in (1, 2, 3):  # Python's, numpy's and ember's generators all differ between workers
        assert w0[k] != w1[k]
    loader = DataLoader(RandomDraws(), batch_size=2, num_workers=2, generator=E.Generator().manual_seed(1))
    first, second = list(loader), list(loader)
    assert first[0]["py"].tolist() != second[0]["py"].tolist()


def test_worker_seeding_without_generator_follows_manual_seed(no_leaks):
    E.manual_seed(3)
    a = draws(None)
    E.manual_seed(3)
    assert draws(None) == a


def test_iterable_dataset_sharded_across_workers(no_leaks):
    got = [b.tolist() for b in DataLoader(Range(0, 10), batch_size=2, num_workers=2)]
    assert sorted(i for b in got for i in b) == list(range(10))
    assert got[0] == [0, 2] and got[1] == [1, 3]  # worker 0 has the evens, worker 1 the odds


def test_iterable_dataset_unsharded_gives_each_worker_a_copy(no_leaks):
    got = [b.tolist() for b in DataLoader(Range(0, 5, shard=False), batch_size=2, num_workers=2)]
    assert sorted(i for b in got for i in b) == sorted(list(range(5)) * 2)


def test_iterable_dataset_drop_last_per_worker(no_leaks):
    got = [b.tolist() for b in DataLoader(Range(0, 10), batch_size=2, num_workers=2, drop_last=True)]
    assert got == [[0, 2], [1, 3], [4, 6], [5, 7]]


def test_persistent_workers_keep_processes_and_pools_across_epochs(no_leaks):
    loader = DataLoader(Squares(12), batch_size=3, num_workers=2, persistent_workers=True)
    it = iter(loader)
    pids = [p.pid for p in it._workers.processes]
    first = [y.tolist() for _, y in it]
    again = iter(loader)
    assert again is it and [p.pid for p in it._workers.processes] == pids
    assert [y.tolist() for _, y in again] == first
    for x, _ in loader:  # an epoch broken off early, then a full one
        break
    del x
    assert labels(loader) == first
    procs = it._workers.processes
    del loader, it, again
    gc.collect()
    assert all(p.exitcode is not None for p in procs)


def test_persistent_iterable_workers_restart_their_streams(no_leaks):
    loader = DataLoader(Range(0, 6), batch_size=3, num_workers=2, persistent_workers=True)
    assert [b.tolist() for b in loader] == [[0, 2, 4], [1, 3, 5]]
    assert [b.tolist() for b in loader] == [[0, 2, 4], [1, 3, 5]]
    del loader


def test_no_warnings_in_a_clean_run(no_leaks):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(labels(DataLoader(Squares(8), batch_size=4, num_workers=2))) == 2


def test_pin_memory_thread_pins_batches_in_order(monkeypatch, no_leaks):
    monkeypatch.setattr("ember.data.dataloader.cuda_available", lambda: True)
    monkeypatch.setattr(E.Tensor, "pin_memory", lambda self: E.tensor(self.numpy() + 1000), raising=False)
    loader = DataLoader(Jittery(12), batch_size=3, num_workers=2, pin_memory=True)
    assert labels(loader) == [[1000 + i, 1001 + i, 1002 + i] for i in range(0, 12, 3)]


def test_pin_memory_failure_is_reraised_not_hung(monkeypatch, no_leaks):
    def broken_pin(self):
        raise MemoryError("cannot pin")

    monkeypatch.setattr("ember.data.dataloader.cuda_available", lambda: True)
    monkeypatch.setattr(E.Tensor, "pin_memory", broken_pin, raising=False)
    with pytest.raises(MemoryError, match="Caught MemoryError in pin memory thread"):
        list(DataLoader(Squares(4), batch_size=2, num_workers=1, pin_memory=True))


def test_iterable_dataset_without_batching(no_leaks):
    assert list(DataLoader(Range(0, 5), batch_size=None, num_workers=2)) == [0, 1, 2, 3, 4]


def test_large_tensors_from_a_custom_collate_cross_in_shared_memory(no_leaks):
    it = iter(DataLoader(Squares(8), batch_size=2, num_workers=1, collate_fn=large_collate))
    batches = list(it)
    assert all(b.is_shared() and b.untyped_storage()._shared.name.startswith(it._workers.prefix) for b in batches)
    assert [float(b.numpy()[1, -1]) for b in batches] == [0.0, 2.0, 4.0, 6.0]
    del batches, it


def test_a_permuted_batch_keeps_its_strides_across_processes(no_leaks):
    """As PyTorch, which shares the storage: a channels_last batch stays channels_last."""
    got = next(iter(DataLoader(Squares(2), batch_size=2, num_workers=1, collate_fn=permuted_collate)))
    want = permuted_collate([None, None])
    assert got.is_shared() and got.stride() == want.stride() == (49152, 1, 768, 12)
    assert np.array_equal(got.numpy(), want.numpy())
    del got


def test_a_small_view_of_a_large_storage_sends_only_its_elements(no_leaks):
    rows = list(DataLoader(Rows(), batch_size=None, num_workers=1))
    assert [r.tolist() for r in rows] == [[0, 1, 2, 3], [1000, 1001, 1002, 1003], [2000, 2001, 2002, 2003]]
    assert all(not r.is_shared() and r.untyped_storage().nbytes == 16 for r in rows)
    assert len(dumps_batch(Rows()[1], set())) < 1000
