"""`ember-bench trace` writes the profiler's Chrome trace of host op spans and kernel spans, and a
timeline PNG."""

import json

from ember.bench.cli import main


def test_trace_tiny(tmp_path):
    assert main(["trace", "--size", "tiny", "--steps", "1", "--results", str(tmp_path)]) == 0
    trace = json.loads((tmp_path / "trace.json").read_text())
    events = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    host = {e["args"]["External id"]: e for e in events if e["cat"] == "cpu_op"}
    kernels = [e for e in events if e["cat"] == "kernel"]
    assert "aten::conv2d" in {e["name"] for e in host.values()}
    assert 0 < len(kernels)
    # every kernel span lies inside the host span of the op that ran it
    for k in kernels:
        op = host[k["args"]["External id"]]
        assert op["name"] == k["name"]
        assert op["ts"] - 1e-3 <= k["ts"] and k["ts"] + k["dur"] <= op["ts"] + op["dur"] + 1e-3
    assert (tmp_path / "trace.png").read_bytes()[:4] == b"\x89PNG"
