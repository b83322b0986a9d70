"""What a first call compiles on an empty Numba cache (every user's first run): counted per compiled function in a
fresh process, never timed."""

import json
import os
import subprocess
import sys

_RUN = """
import json, sys
from collections import Counter
from numba.core import event
import ember.core as E
seen = Counter()
class Seen(event.Listener):
    def on_start(self, ev):
        pass
    def on_end(self, ev):
        f = ev.data["dispatcher"].py_func
        seen[f.__module__ + "." + f.__qualname__] += 1
event.register("numba:compile", Seen())
exec(sys.argv[1])
print(json.dumps(seen))
"""


def compiled(tmp_path, code: str) -> dict[str, int]:
    """The Numba functions `code` compiles in a new process on an empty cache, and how many signatures each."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    res = subprocess.run([sys.executable, "-c", _RUN, code], env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(res.stdout.splitlines()[-1])


def test_randn_compiles_its_sampler_once_and_no_error_message_machinery(tmp_path):
    """float32 `normal_fill` with and without a tail block: the Box-Muller block is one function, compiled once, and
    nothing formats a shape-mismatch message (a slice assignment's, which cost 60% of the first `randn`)."""
    seen = compiled(tmp_path, "E.manual_seed(0); E.randn(3, 6); E.randn(64); E.randn(1000).normal_(2.0, 3.0)")
    ours = {k: v for k, v in seen.items() if k.startswith("ember.")}
    assert ours == {"ember.core._sampling_kernels.normal32": 1, "ember.core._sampling_kernels.block": 1}
    assert not [k for k in seen if "unicode" in k or "shape_context" in k]


def test_sort_topk_and_median_compile_each_routine_once_per_order(tmp_path):
    """NOTE [ No literal arguments ]: the introsort's and introselect's routines compile one signature for sort and
    topk (a runtime `desc`), plus one for median's literal `desc=False`; none per constant position."""
    seen = compiled(tmp_path, "x = E.randn(4, 40); x.sort(-1); x.argsort(-1); x.topk(3); x.topk(39); x.median(-1)")
    ours = {k.rsplit(".", 1)[1]: v for k, v in seen.items() if k.startswith("ember.core.ops._sort_kernels")}
    assert ours == {"sort_rows": 1, "topk_rows": 1, "median_rows": 1, "_introsort": 1, "_lg": 1, "_sort_heap": 1,
                    "_nth_element": 2, "_heap_select": 2, "_adjust_heap": 2, "_push_heap": 2,
                    "_partition_pivot": 2, "_move_median_to_first": 2}


def test_index_copy_compiles_no_error_message_machinery(tmp_path):
    """The scatter loop's whole-row copy (`index_copy_`) is a loop, not a slice assignment, whose shape-mismatch
    message Numba would compile (more than half of the first scatter's compile)."""
    seen = compiled(tmp_path, "x = E.zeros(4, 5); x.index_copy_(0, E.tensor([2, 0]), E.ones(2, 5)); "
                              "x.index_add_(0, E.tensor([1]), E.ones(1, 5))")
    assert "ember.core.ops._scatter_kernels.scatter" in seen
    assert not [k for k in seen if "unicode" in k or "shape_context" in k]


def test_adam_compiles_only_the_loop_it_runs(tmp_path):
    """Adam's common step, its general one (amsgrad) and a plan's reciprocal one are three kernels: a first step
    compiles the one it runs (one kernel with all three loops cost 1.1-1.8 s on a cold cache)."""
    code = ("import numpy as np; from ember.core.ops.optim_kernels import adam_update; "
            "a = lambda: np.ones(8, np.float32); "
            "adam_update(a(), a(), a(), a(), np.zeros(0, np.float32), 1, 1e-3, 0.9, 0.999, 1e-8, 0.0, False, False, "
            "False)")
    seen = compiled(tmp_path, code)
    assert {k.rsplit(".", 1)[1]: v for k, v in seen.items() if ".optim_kernels." in k} == {"adam_common": 1}
