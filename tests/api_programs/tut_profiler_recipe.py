"""The profiler recipe and 'Profiling your PyTorch Module', keeping only what does not depend on timings: which
events were recorded (record_function labels, aten ops), their counts and input shapes, nested labels, the
schedule's actions step by step, on_trace_ready calls with prof.step(), the Chrome trace's structure, and the
legacy torch.autograd.profiler API."""

# ruff: noqa: UP008  (the tutorial's own idioms, kept as written)

import json
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
from torch.profiler import ProfilerAction, ProfilerActivity, profile, record_function, schedule

rng = np.random.default_rng(1)


class MyModule(nn.Module):
    def __init__(self, in_features: int, out_features: int, bias: bool = True):
        super(MyModule, self).__init__()
        self.linear = nn.Linear(in_features, out_features, bias)

    def forward(self, input, mask):
        with record_function("LINEAR PASS"):
            out = self.linear(input)
        with record_function("MASK INDICES"):
            threshold = out.sum(axis=1).mean().item()
            hi_idx = np.argwhere(mask.cpu().numpy() > threshold)
            hi_idx = torch.from_numpy(hi_idx)
        return out, hi_idx


model = MyModule(8, 4)
with torch.no_grad():
    model.linear.weight.copy_(torch.from_numpy(rng.standard_normal((4, 8)).astype(np.float32)))
    model.linear.bias.zero_()
input = torch.from_numpy(rng.random((5, 8)).astype(np.float32))
mask = torch.from_numpy(rng.random((5, 4)).astype(np.float32))

model(input, mask)  # warm-up
with profile(activities=[ProfilerActivity.CPU], record_shapes=True, with_stack=False) as prof:
    out, idx = model(input, mask)
print("result", tuple(out.shape), idx.shape[1], idx.dtype)
averages = prof.key_averages()
names = {e.key for e in averages}
print("labels", sorted(n for n in names if n.isupper()))
print("aten", "aten::linear" in names, "aten::sum" in names, "aten::mean" in names, "aten::relu" in names)
counts = {e.key: e.count for e in averages}
print("counts", counts["LINEAR PASS"], counts["MASK INDICES"], counts["aten::mean"], counts["aten::linear"])
print(type(averages).__name__, type(averages[0]).__name__, type(prof.events()[0]).__name__)
by_shape = prof.key_averages(group_by_input_shape=True)
lin = [e for e in prof.events() if e.name == "aten::linear"][0]
print("linear", lin.cpu_parent.name, [e.input_shapes for e in by_shape if e.key == "aten::linear"])
print("grouped", sorted(e.input_shapes for e in by_shape if e.key in ("LINEAR PASS", "MASK INDICES")))
ev = [e for e in prof.events() if e.name == "MASK INDICES"][0]
children = {c.name for c in ev.cpu_children}
print("children of MASK INDICES", "aten::sum" in children, "aten::mean" in children, ev.cpu_parent)
mean_ev = [e for e in prof.events() if e.name == "aten::mean"][0]
print("parent of mean", mean_ev.cpu_parent.name if mean_ev.cpu_parent is not None else None)
table = averages.table(sort_by="cpu_time_total", row_limit=5)
print("table", "Name" in table.splitlines()[1], "Self CPU" in table, "LINEAR PASS" in prof.key_averages().table())
print(ProfilerActivity.CPU, ProfilerAction.RECORD)

# schedules
my_schedule = schedule(skip_first=1, wait=1, warmup=1, active=2, repeat=2)
print([my_schedule(i).name for i in range(10)])
print([schedule(wait=0, warmup=0, active=1)(i).name for i in range(3)])

traces = []


def trace_handler(p):
    traces.append((p.step_num, sorted({e.key for e in p.key_averages() if e.key.isupper() or "_" in e.key[:5]})))


with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=2, repeat=1),
             on_trace_ready=trace_handler) as p:
    for step in range(6):
        with record_function(f"step_{step}"):
            model(input, mask)
        p.step()
print("traces", traces)

# exporting a Chrome trace
with profile(activities=[ProfilerActivity.CPU]) as prof:
    with record_function("outer"):
        with record_function("inner"):
            (input @ input.T).relu()
path = os.path.join(tempfile.mkdtemp(), "trace.json")
prof.export_chrome_trace(path)
with open(path) as f:
    trace = json.load(f)
names = [e.get("name") for e in trace["traceEvents"]]
print("chrome", isinstance(trace["traceEvents"], list), "outer" in names, "inner" in names, "aten::relu" in names)
outer = [e for e in trace["traceEvents"] if e.get("name") == "outer"][0]
inner = [e for e in trace["traceEvents"] if e.get("name") == "inner"][0]
print("nesting", outer["ph"], outer["ts"] <= inner["ts"], inner["ts"] + inner["dur"] <= outer["ts"] + outer["dur"] + 1)

# the legacy API
with torch.autograd.profiler.profile(record_shapes=True) as legacy:
    with torch.autograd.profiler.record_function("legacy_block"):
        torch.mm(input, input.T)
keys = {e.key for e in legacy.key_averages()}
print("legacy", "legacy_block" in keys, "aten::mm" in keys, type(legacy).__module__.split(".")[-1])
mm = [e for e in legacy.key_averages(group_by_input_shape=True) if e.key == "aten::mm"]
print("mm shapes", mm[0].input_shapes, mm[0].count)
print("total", legacy.key_averages().total_average().key)
