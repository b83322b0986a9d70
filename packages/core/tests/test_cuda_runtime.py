"""ember.core.cuda's runtime: devices, streams and events, the synchronization count (a training
step performs none), allocator-backed storage freed by refcount, transfers and pinned memory,
and the array protocols. Run in Numba's CUDA simulator."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import ember.core as E
from ember.core.cuda import streams
from ember.core.testing import assert_close

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")]

SRC = os.path.join(os.path.dirname(__file__), os.pardir, "src")


def test_importing_ember_core_cuda_does_not_import_numba_cuda():
    code = "import sys, ember.core, ember.core.cuda; print('numba.cuda' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": SRC}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "False"


def test_devices():
    assert E.cuda.device_count() >= 1
    assert E.cuda.current_device() == 0
    x = E.zeros(2, device="cuda")
    assert x.device == E.device("cuda:0") and x.is_cuda and not x.is_cpu
    E.cuda.set_device(0)
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        E.cuda.set_device(99)


def test_device_queries_and_the_device_context():
    E.cuda.init()
    assert E.cuda.is_initialized()
    props = E.cuda.get_device_properties(0)
    assert props.total_memory > 0 and props.multi_processor_count >= 1
    assert E.cuda.get_device_name() == props.name
    assert E.cuda.get_device_capability() == (props.major, props.minor)
    free, total = E.cuda.mem_get_info()
    assert 0 <= free <= total
    with E.cuda.device(0):
        assert E.cuda.current_device() == 0
    with E.cuda.device(None):
        assert E.cuda.current_device() == 0


def test_training_step_performs_no_synchronization():
    x = E.tensor(np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32), device="cuda")
    w = E.tensor(np.random.default_rng(1).standard_normal((3, 2)).astype(np.float32), device="cuda")
    b = E.zeros(2, device="cuda")
    w0 = w.cpu()
    before = E.cuda.sync_count()
    for _ in range(2):
        h = (x.mm(w) + b).relu()
        loss = (h * h).sum()
        g = x.t().mm(h) * 0.1
        w.sub_(g)
        b.add_(h.mean(0), alpha=-0.1)
    assert E.cuda.sync_count() == before
    assert loss.item() >= 0 and E.cuda.sync_count() == before + 1
    assert not np.allclose(w.cpu().numpy(), w0.numpy())


def test_values_asked_for_are_the_only_synchronizations():
    x = E.ones(3, device="cuda")
    n = E.cuda.sync_count()
    x.tolist()
    x.cpu()
    repr(x)
    float(x.sum())
    assert E.cuda.sync_count() == n + 4


def test_streams_and_events():
    s = E.cuda.Stream()
    assert E.cuda.current_stream() == E.cuda.default_stream()
    with E.cuda.stream(s):
        assert E.cuda.current_stream() == s
        y = E.ones(4, device="cuda") * 2
    assert E.cuda.current_stream() == E.cuda.default_stream()
    start, end = E.cuda.Event(enable_timing=True), E.cuda.Event(enable_timing=True)
    start.record()
    E.cuda.current_stream().wait_stream(s)
    end.record()
    n = E.cuda.sync_count()
    end.synchronize()
    s.synchronize()
    E.cuda.synchronize()
    assert E.cuda.sync_count() == n + 3
    assert end.query() and s.query()
    assert start.elapsed_time(end) >= 0
    assert y.tolist() == [2.0] * 4
    with pytest.raises(RuntimeError, match="enable_timing"):
        E.cuda.Event().elapsed_time(E.cuda.Event())


def test_storage_returns_to_the_allocator_when_the_last_reference_dies():
    base = E.cuda.memory_allocated()
    x = E.empty(1000, device="cuda")
    assert E.cuda.memory_allocated() == base + 4096
    v = x[10:20]
    del x
    assert E.cuda.memory_allocated() == base + 4096
    del v
    assert E.cuda.memory_allocated() == base
    stats = E.cuda.memory_stats()
    assert stats["allocated_bytes.all.current"] == base
    assert E.cuda.max_memory_allocated() >= base + 4096
    assert E.cuda.memory_reserved() >= E.cuda.memory_allocated()
    assert "Allocated memory" in E.cuda.memory_summary() or "allocated" in E.cuda.memory_summary().lower()


def test_second_training_iteration_allocates_no_new_segments():
    x = E.ones(8, 8, device="cuda")
    w = E.ones(8, 8, device="cuda")

    def step():
        (x.mm(w).relu() + 1).sum()

    step()
    before = E.cuda.memory_stats()["num_device_alloc"]
    step()
    assert E.cuda.memory_stats()["num_device_alloc"] == before


def test_memory_snapshot_traces_allocations():
    E.cuda.record_memory_history(True)
    x = E.empty(10, device="cuda")
    del x
    trace = E.cuda.memory_snapshot()["trace"]
    E.cuda.record_memory_history(False)
    assert [e["action"] for e in trace][-2:] == ["alloc", "free"]


def test_record_stream_keeps_the_block_until_the_stream_is_done():
    s = E.cuda.Stream()
    x = E.empty(100, device="cuda")
    x.record_stream(s)
    del x  # the simulator's events complete at once, so the block returns on the next malloc
    E.empty(1, device="cuda")


def test_transfers_round_trip_every_dtype():
    for dt in (E.float32, E.float64, E.float16, E.int64, E.int32, E.int8, E.uint8, E.bool):
        a = (np.arange(12) % 5).reshape(3, 4).astype(dt.np)
        x = E.from_numpy(a).to("cuda")
        assert x.dtype is dt and x.device.type == "cuda"
        assert np.array_equal(x.cpu().numpy(), a)
        assert np.array_equal(x.t().cpu().numpy(), a.T)
        assert np.array_equal(x.t().numpy(force=True), a.T)
    with pytest.raises(TypeError, match="can't convert cuda"):
        E.ones(2, device="cuda").numpy()


def test_to_and_cuda_and_dtype_change():
    x = E.tensor([1.5, 2.5])
    y = x.cuda()
    assert y.to("cuda") is y and y.cuda() is y
    z = y.to("cpu", E.int64)
    assert z.device.type == "cpu" and z.tolist() == [1, 2]
    assert E.tensor([1, 2], device="cuda").tolist() == [1, 2]
    assert E.arange(3, device="cuda").tolist() == [0, 1, 2]


def test_pinned_memory_and_non_blocking_copies():
    x = E.arange(6.0).view(2, 3)
    assert not x.is_pinned()
    p = x.pin_memory()
    assert p.is_pinned() and p.tolist() == x.tolist() and p.pin_memory() is p
    assert E.empty(3, pin_memory=True).is_pinned()
    n = E.cuda.sync_count()
    d = p.to("cuda", non_blocking=True)
    back = E.empty(2, 3).pin_memory()
    back.copy_(d * 2, non_blocking=True)
    h = d.to("cpu", non_blocking=True)
    assert E.cuda.sync_count() == n
    assert h.is_pinned()
    E.cuda.synchronize()
    assert back.tolist() == (x * 2).tolist() and h.tolist() == x.tolist()
    with pytest.raises(RuntimeError, match="pinned"):
        d.pin_memory()


def test_resize_grows_device_storage_keeping_its_contents():
    x = E.tensor([1.0, 2.0], device="cuda")
    x.resize_(4)
    assert x.shape == (4,) and x.tolist()[:2] == [1.0, 2.0]


def test_dlpack_round_trip_on_the_cpu_shares_memory():
    x = E.arange(6.0).view(2, 3)
    assert x.__dlpack_device__() == (1, 0)
    y = E.from_dlpack(x)
    y[0, 0] = 7.0
    assert x[0, 0].item() == 7.0
    a = np.from_dlpack(x)
    assert np.shares_memory(a, x.numpy())
    assert E.zeros(1, device="cuda").__dlpack_device__() == (2, 0)
    with pytest.raises(BufferError):
        E.zeros(1, device="cuda").__dlpack__()


def test_cuda_array_interface_is_absent_on_cpu_tensors():
    assert not hasattr(E.zeros(2), "__cuda_array_interface__")


@pytest.mark.skipif(streams.SIMULATOR, reason="the simulator has no __cuda_array_interface__/as_cuda_array")
def test_cuda_array_interface_round_trip_with_numba():
    from numba import cuda

    x = E.arange(12.0, device="cuda").view(3, 4).t()
    arr = cuda.as_cuda_array(x)
    assert np.array_equal(arr.copy_to_host(), x.cpu().numpy())
    y = E.from_dlpack(arr)
    assert_close(y.cpu(), x.cpu())
    y[0, 0] = 100.0
    assert x[0, 0].item() == 100.0


def test_manual_seed_delegates_to_core_random():
    E.cuda.manual_seed(3)
    a = E.rand(3)
    E.cuda.manual_seed_all(3)
    b = E.rand(3)
    assert a.tolist() == b.tolist()
