"""`ember-bench memory` in the CUDA simulator: the first iteration allocates, later ones hit the cache."""

import json

import pytest

pytestmark = pytest.mark.cuda


def test_memory_figure_second_iteration_all_hits(tmp_path):
    from ember.core import cuda

    if not cuda.is_available():
        pytest.skip("needs CUDA or NUMBA_ENABLE_CUDASIM=1")
    from ember.bench.memory import run_memory

    run_memory(tmp_path, iterations=3, size="tiny")
    rows = json.loads((tmp_path / "memory.json").read_text())["iterations"]
    assert rows[0]["device_allocs"] > 0
    assert all(r["device_allocs"] == 0 for r in rows[1:])
    assert all(r["cache_hits"] > 0 for r in rows[1:])
    assert (tmp_path / "memory.png").read_bytes()[:4] == b"\x89PNG"
