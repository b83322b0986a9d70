"""glibc's heap thresholds (NOTE [ Host buffers and glibc's heap ] in ember/core/host_heap.py): a step's buffers,
freed and allocated again, come back from the heap without page faults, unless EMBER_MALLOC_TUNING=0."""

import os
import subprocess
import sys

import pytest

from ember.core import host_heap

# the buffers of an nn.LSTM(64, 128) layer's step over 20 time steps of batch 32 (float32): input projection and
# workspace, states, cell states; allocated, touched and freed together five times
_PROBE = """
import resource
import numpy as np
import ember.core
sizes = [1310720, 1638400, 344064, 327680]
faults = []
for _ in range(5):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    bufs = [np.empty(n, np.uint8) for n in sizes]
    for b in bufs:
        b[::4096] = 1
    del bufs, b
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
print(ember.core.host_heap.TUNED, sum(faults[1:]))
"""


def _probe(tuning: str) -> tuple[str, int]:
    env = dict(os.environ, EMBER_MALLOC_TUNING=tuning)
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=True)
    tuned, faults = out.stdout.split()
    return tuned, int(faults)


needs_glibc = pytest.mark.skipif(not host_heap._glibc() or not sys.platform.startswith("linux"),
                                 reason="the thresholds are glibc's")


@needs_glibc
def test_buffers_freed_and_allocated_again_fault_no_pages():
    tuned, faults = _probe("1")
    assert tuned == "True"
    assert faults < 40, f"{faults} page faults in four rounds of 3.6 MB of buffers allocated again"


@needs_glibc
def test_glibc_defaults_are_kept_when_the_environment_says_so():
    tuned, faults = _probe("0")
    assert tuned == "False"
    assert faults > 400  # glibc's own rule trims the freed buffers and faults them in again


def test_thresholds_follow_glibcs_dynamic_rule_at_its_limit():
    assert host_heap.MMAP_THRESHOLD == 32 * 2 ** 20 and host_heap.TRIM_THRESHOLD == 2 * host_heap.MMAP_THRESHOLD
