"""The profiler: op events nested under their callers and record_function ranges, PyTorch's
table and key averages, shapes and memory, schedules, kernel spans and Chrome traces."""

import json

import numpy as np
import pytest

import ember.autograd as ea
from ember.autograd.profiler import (
    ProfilerAction, ProfilerActivity, profile, record_function, schedule, tensorboard_trace_handler,
)


def _names(events):
    return [e.name for e in events]


def test_each_op_call_is_one_event_with_its_count():
    a, b = ea.ones(4, 4), ea.ones(4, 4)
    with profile() as prof:
        for _ in range(3):
            (a + b).relu()
    avg = {e.key: e for e in prof.key_averages()}
    assert avg["aten::add"].count == 3 and avg["aten::relu"].count == 3
    assert all(e.cpu_time_total >= e.self_cpu_time_total >= 0 for e in prof.events())


def test_nothing_is_recorded_outside_the_profile():
    with profile() as prof:
        ea.ones(2) * 2
    n = len(prof.events())
    ea.ones(2) * 3
    assert len(prof.events()) == n


def test_record_function_nests_ops_and_self_time_excludes_children():
    x = ea.ones(8, 8)
    with profile() as prof:
        with record_function("my_block"):
            y = x @ x
            y = y.exp()
    (block,) = [e for e in prof.events() if e.name == "my_block"]
    children = _names(block.cpu_children)
    assert "aten::exp" in children and any(n in children for n in ("aten::matmul", "aten::mm"))
    assert block.self_cpu_time_total == pytest.approx(
        block.cpu_time_total - sum(c.cpu_time_total for c in block.cpu_children))
    assert all(c.cpu_parent is block for c in block.cpu_children)
    for c in block.cpu_children:
        assert block.start_us <= c.start_us <= c.end_us <= block.end_us


def test_record_function_as_a_decorator_and_without_a_profiler():
    @record_function("decorated")
    def f(t):
        return t + 1

    assert f(ea.ones(1)).item() == 2.0  # no profiler: a plain call
    with profile() as prof:
        f(ea.ones(1))
    assert "decorated" in _names(prof.events())


def test_shapes_and_grouping_by_them():
    with profile(record_shapes=True) as prof:
        ea.ones(2, 3) + ea.ones(2, 3)
        ea.ones(5) + ea.ones(5)
    groups = [e for e in prof.key_averages(group_by_input_shape=True) if e.key == "aten::add"]
    assert sorted(str(g.input_shapes) for g in groups) == ["[[2, 3], [2, 3]]", "[[5], [5]]"]
    with profile() as no_shapes:
        ea.ones(1) + 1
    with pytest.raises(RuntimeError, match="record_shapes=True"):
        no_shapes.key_averages(group_by_input_shape=True)


def test_profile_memory_counts_the_bytes_results_allocate():
    x = ea.ones(100, dtype=ea.float32)
    with profile(profile_memory=True) as prof:
        x * 2.0
        x.view(10, 10)
    avg = {e.key: e for e in prof.key_averages()}
    assert avg["aten::mul"].cpu_memory_usage == 400
    view_key = next(k for k in avg if "view" in k)
    assert avg[view_key].cpu_memory_usage == 0


def test_table_is_sorted_and_has_pytorchs_columns():
    x = ea.ones(64, 64)
    with profile(profile_memory=True) as prof:
        for _ in range(2):
            (x @ x).sum()
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=5)
    lines = table.splitlines()
    header = lines[1]
    for col in ("Name", "Self CPU %", "Self CPU", "CPU total", "CPU time avg", "CPU Mem", "# of Calls"):
        assert col in header
    assert lines[-1].startswith("Self CPU time total:")
    rows = prof.key_averages()
    rows.sort(key=lambda e: e.self_cpu_time_total, reverse=True)
    assert lines[3].split()[0] == rows[0].key
    with pytest.raises(AttributeError, match="sort_by must be one of"):
        prof.key_averages().table(sort_by="nonsense")


def test_schedule_follows_pytorchs_cycle():
    s = schedule(skip_first=1, wait=1, warmup=1, active=2, repeat=1)
    got = [s(i) for i in range(7)]
    N, W, R, S = ProfilerAction.NONE, ProfilerAction.WARMUP, ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE
    assert got == [N, N, W, R, S, N, N]


def test_scheduled_profile_records_only_active_steps_and_hands_them_on():
    traces = []
    with profile(schedule=schedule(wait=1, warmup=1, active=2), on_trace_ready=lambda p: traces.append(
            sorted({len(e.input_shapes[0]) for e in p.events() if e.name == "aten::add"})),
            record_shapes=True) as prof:
        for step in range(8):
            ea.ones(*([1] * (step + 1))) + 1  # step k adds a tensor of rank k + 1
            prof.step()
    # cycles of 4 steps: ranks 3, 4 recorded in the first cycle, 7, 8 in the second
    assert traces == [[3, 4], [7, 8]]


def test_kernel_spans_lie_inside_their_ops_and_chrome_trace(tmp_path):
    x = ea.ones(32, 32)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        x.exp()
    (exp,) = [e for e in prof.events() if e.name == "aten::exp"]
    (kernel,) = exp.kernels
    assert exp.start_us <= kernel.start_us <= kernel.end_us <= exp.end_us
    assert kernel.device_type == "cpu" and exp.device_time_total > 0
    path = prof.export_chrome_trace(str(tmp_path / "trace.json"))
    trace = json.loads(open(path).read())["traceEvents"]
    ops = [t for t in trace if t.get("cat") == "cpu_op" and t["name"] == "aten::exp"]
    kernels = [t for t in trace if t.get("cat") == "kernel"]
    assert len(ops) == 1 and len(kernels) == 1 and ops[0]["ph"] == "X"
    assert kernels[0]["args"]["External id"] == ops[0]["args"]["External id"]


def test_backward_ops_are_recorded():
    w = ea.ones(3, requires_grad=True)
    with profile() as prof:
        (w * w).sum().backward()
    assert _names(prof.events()).count("aten::mul") >= 2  # the forward product and its derivative
    np.testing.assert_allclose(w.grad.numpy(), [2.0, 2.0, 2.0])


def test_tensorboard_trace_handler_writes_a_trace_per_cycle(tmp_path):
    with profile(schedule=schedule(wait=0, warmup=0, active=1),
                 on_trace_ready=tensorboard_trace_handler(str(tmp_path), worker_name="w")) as prof:
        for _ in range(2):
            ea.ones(2) + 1
            prof.step()
    files = sorted(p.name for p in tmp_path.iterdir())
    assert len(files) >= 2 and all(f.startswith("w.") and f.endswith(".pt.trace.json") for f in files)
    for f in files:
        assert "aten::add" in (tmp_path / f).read_text()


@pytest.mark.torch
def test_same_api_as_pytorchs_profiler():
    torch = pytest.importorskip("torch")
    for lib, prof_mod in ((torch, torch.profiler), (ea, __import__("ember.autograd.profiler", fromlist=["x"]))):
        x = lib.ones(16, 16)
        with prof_mod.profile(activities=[prof_mod.ProfilerActivity.CPU], record_shapes=True) as prof:
            with prof_mod.record_function("block"):
                (x + x).relu()
        keys = {e.key for e in prof.key_averages()}
        assert {"block", "aten::add", "aten::relu"} <= keys
        assert "Self CPU time total" in prof.key_averages().table(sort_by="cpu_time_total", row_limit=3)


def test_composite_functions_are_one_event_over_their_ops_and_autocast_still_applies():
    from ember.core import dispatch

    x, w = ea.ones(4, 3), ea.ones(2, 3)
    with profile() as prof:
        y = ea.matmul(x, w.t())
        z = x @ w.t()
    names = [e.name for e in prof.events()]
    assert "aten::matmul" in names and "aten::mm" in names and names.count("aten::matmul") == 2
    mm = next(e for e in prof.events() if e.name == "aten::mm")
    assert mm.cpu_parent is not None and mm.cpu_parent.name == "aten::matmul"
    assert dispatch._composite_hook is None and y.tolist() == z.tolist()
    with ea.autocast("cpu", dtype=ea.bfloat16):
        with profile() as prof:
            out = x @ w.t()
    assert out.dtype == ea.bfloat16 and "aten::matmul" in [e.name for e in prof.events()]


def test_the_legacy_autograd_profiler_interface():
    x = ea.ones(4, 4)
    with profile(enabled=False) as off:
        (x * 2).sum()
    assert not hasattr(off, "function_events")
    with pytest.raises(RuntimeError, match="^Profiler didn't finish running$"):
        off.table()
    with profile(record_shapes=True) as prof:
        (x * 2).sum()
    assert _names(prof.function_events) == ["aten::mul", "aten::sum"]
    total = prof.total_average()
    assert total.count == 2 and prof.self_cpu_time_total == pytest.approx(total.self_cpu_time_total)
    assert "aten::mul" in prof.table(sort_by="self_cpu_time_total", row_limit=3)
    with pytest.raises(TypeError, match="takes from 1 to 2 positional arguments but 3 were given"):
        profile(True, False)


def test_profiler_util_and_variable_paths():
    import importlib

    from ember.autograd import profiler, profiler_util

    variable = importlib.import_module("ember.autograd.variable")
    assert profiler_util.EventList is profiler.EventList and profiler_util.FunctionEvent is profiler.FunctionEvent
    v = variable.Variable(ea.ones(2), requires_grad=True)
    assert type(v) is ea.Tensor and v.requires_grad
    with pytest.raises(RuntimeError, match="deprecated, use torch.tensor"):  # the package's name is the function
        ea.variable(1.0)
