"""`python -m ember.jit.bench`: its rows check compiled against eager, fused and not, and its table has a column
for each (no timing is asserted)."""

from __future__ import annotations

import ember.jit as jit
from ember.jit import bench


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def test_compare_fuse_times_both_and_restores_the_config(capsys):
    before = jit.config.fuse
    bench.main(["--compare-fuse", "--number", "20", "--repeat", "1"])
    assert jit.config.fuse is before
    lines = capsys.readouterr().out.splitlines()
    assert _cells(lines[0]) == ["workload", "eager µs/call", "unfused µs/call", "fused µs/call", "eager / unfused",
                                "eager / fused"]
    rows = [_cells(ln) for ln in lines[2:]]
    assert [r[0] for r in rows] == ["10-op chain 10x10, forward", "10-op chain 10x10, forward+backward",
                                    "10-op chain 64x1024, forward", "10-op chain 64x1024, forward+backward"]
    assert all(float(c) > 0 for r in rows for c in r[1:4])


def test_no_fuse_gives_one_compiled_column(capsys):
    bench.main(["--no-fuse", "--number", "20", "--repeat", "1"])
    head = _cells(capsys.readouterr().out.splitlines()[0])
    assert head == ["workload", "eager µs/call", "unfused µs/call", "eager / unfused"]
