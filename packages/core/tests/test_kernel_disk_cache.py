"""Kernels compiled in one process load from Numba's disk cache in the next: a second process compiles none.

A kernel that is a closure over another compiled function misses the cache in every new process (Numba keys a
closure on its cells, and a compiled function pickles with a per-process id): these check the row passes
of softmax, the eager transcendental loops and the dim-wise scatter loops, which were such closures or close to
them.
"""

import os
import subprocess
import sys

_RUN = """
import numpy as np
from ember.core.ops import scatter_cpu, softmax_rows, unary_kernels
x = np.random.default_rng(0).standard_normal((256, 128)).astype(np.float32)
assert softmax_rows.softmax_rows(x) is not None
assert unary_kernels.unary("exp", x) is not None
idx = np.array([[0, 2], [1, 1]], np.int64)
for mode in (scatter_cpu.ADD, scatter_cpu.MAX):
    assert scatter_cpu.scatter_dim(np.zeros((2, 3), np.float32), 1, idx, np.ones((2, 2), np.float32), mode)
assert scatter_cpu.scatter_dim(np.zeros((2, 3)), 1, idx, np.ones((2, 2)), scatter_cpu.ADD, False, True)
"""


def _saved(env) -> list[str]:
    """The cache files one process wrote."""
    res = subprocess.run([sys.executable, "-c", _RUN], env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    return [line for line in (res.stdout + res.stderr).splitlines() if "data saved" in line]


def test_a_second_process_loads_every_kernel_from_the_disk_cache(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), NUMBA_DEBUG_CACHE="1")
    assert _saved(env), "the first process compiled and saved nothing: the check would be empty"
    assert _saved(env) == []
