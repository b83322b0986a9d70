"""`ember-bench trace` writes a Chrome trace of host op issue and kernel spans, and a timeline PNG."""

import json

from ember.bench.cli import main


def test_trace_tiny(tmp_path):
    assert main(["trace", "--size", "tiny", "--steps", "1", "--results", str(tmp_path)]) == 0
    trace = json.loads((tmp_path / "trace.json").read_text())
    events = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    host = [e for e in events if e["tid"] == 0]
    kernels = [e for e in events if e["tid"] == 1]
    assert "conv2d" in {e["name"] for e in host}
    assert 0 < len(kernels) <= len(host)
    # every kernel span lies inside the host span of an op of the same name
    spans = {}
    for e in host:
        spans.setdefault(e["name"], []).append((e["ts"], e["ts"] + e["dur"]))
    for k in kernels:
        assert any(a - 1e-3 <= k["ts"] and k["ts"] + k["dur"] <= b + 1e-3 for a, b in spans[k["name"]])
    assert (tmp_path / "trace.png").read_bytes()[:4] == b"\x89PNG"
