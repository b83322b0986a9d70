"""A replay reuses the memory the previous one freed (NOTE [ A replay's memory ] in ember.jit.memory)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import ember.autograd as ea
import ember.jit as jit
from ember.jit import memory

glibc = pytest.mark.skipif(not sys.platform.startswith("linux") or not memory.retain_freed_memory(),
                           reason="glibc's mallopt only")


@glibc
def test_replays_fault_in_no_fresh_pages():
    resource = pytest.importorskip("resource")

    def f(x):  # ten 4 MB results alive at once, all freed by the end of the call
        ys = [x * float(k) for k in range(1, 11)]
        return sum(y.sum() for y in ys)

    x = ea.tensor(np.random.default_rng(0).standard_normal(1 << 20).astype(np.float32))
    g = jit.compile(f)
    for _ in range(4):
        want = f(x)
        got = g(x)
    assert got.item() == want.item()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(5):
        g(x)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    assert faults < 500  # with glibc's defaults: about 5,000 a call (40 MB trimmed, then faulted in again)


def test_retaining_memory_is_idempotent():
    first = memory.retain_freed_memory()
    assert memory.retain_freed_memory() is first
