"""The bounds-checked CI runs (`nox -s boundscheck`, `nox -s cudasim`) really catch a kernel that indexes
outside its arrays: Numba's NUMBA_BOUNDSCHECK for the CPU kernels, the simulator (with
`ember.core.cuda.sim_bounds`) for the CUDA ones."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

import ember.core as E


def test_bounds_checked_build_turns_a_read_past_the_input_into_index_error(tmp_path):
    # the scatter kernel handed fewer values than offsets: what the scatter family did before its meta step
    code = textwrap.dedent("""
        import numpy as np
        from ember.core.ops.scatter_cpu import scatter_kernel
        flat = np.zeros(8)
        try:
            scatter_kernel()(flat, np.arange(8, dtype=np.int64), np.ones(1), 1)
        except IndexError as e:
            print("IndexError", e)
        else:
            print("read past the end unnoticed")
    """)
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "IndexError index is out of bounds"


@pytest.mark.cuda
@pytest.mark.skipif(os.environ.get("NUMBA_ENABLE_CUDASIM") != "1" or not E.cuda.is_available(),
                    reason="checks the CUDA simulator")
@pytest.mark.parametrize("k", [4, -1])
def test_simulator_rejects_an_index_outside_the_array(k):
    import numpy as np
    from numba import cuda

    from ember.core.cuda import sim_bounds

    sim_bounds.install()

    @cuda.jit
    def read(src, dst, k):
        dst[0] = src[k]

    with pytest.raises(IndexError):
        read[1, 1](np.arange(4.0), np.zeros(1), k)
