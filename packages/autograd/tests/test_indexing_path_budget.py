"""A regression guard for the indexing ops' per-call cost that cannot flake: it counts work, not time.

Each row runs an indexing call once under `sys.setprofile` on 10x10 float32 (as test_op_path_budget's
rows) and counts Python function calls and C-function calls against a budget about 15% above today's;
the allocation test checks that gather and scatter no longer build an int64 storage offset per element
(NOTE [ Indexing through (outer, dim, inner) views ]). Lower a budget when the path gets cheaper; raise one
only with a reason in the commit message.
"""

import gc
import tracemalloc

import numpy as np
import pytest

import ember.autograd as E
from call_budget import count_calls as _count, cpu_only_process  # noqa: F401 - the fixture

pytestmark = pytest.mark.usefixtures("cpu_only_process")


def _inputs():
    rng = np.random.default_rng(0)
    a = E.from_numpy(rng.standard_normal((10, 10), dtype=np.float32))
    return (a, a.clone(), E.tensor([1, 3, 5, 7, 9]), E.from_numpy(rng.integers(0, 10, (10, 10))), a > 0,
            E.from_numpy(rng.standard_normal((5, 10), dtype=np.float32)), a.clone().requires_grad_(True))


# name: (call, (Python calls, C calls) allowed); measured when set / before the fast paths (fast-index):
CALLS = {
    "gather(a, 1, g)": (lambda a, b, i, g, m, v, ag: E.gather(a, 1, g), (42, 44)),  # 36/38, 50/48
    "take_along_dim(a, g, 1)": (lambda a, b, i, g, m, v, ag: E.take_along_dim(a, g, 1), (47, 50)),  # 41/43, 75/90
    "a[i]": (lambda a, b, i, g, m, v, ag: a[i], (39, 32)),  # 34/27, 67/51
    "a[:, i]": (lambda a, b, i, g, m, v, ag: a[:, i], (48, 43)),  # 42/37, 81/74
    "b[i] = v": (lambda a, b, i, g, m, v, ag: b.__setitem__(i, v), (59, 55)),  # 51/48, 88/80
    "b[m] = 0.5": (lambda a, b, i, g, m, v, ag: b.__setitem__(m, 0.5), (44, 59)),  # 38/51, 66/80
    "index_put_((i,), v, accumulate=True)": (
        lambda a, b, i, g, m, v, ag: b.index_put_((i,), v, accumulate=True), (53, 52)),  # 46/45, 72/58
    "index_add_(0, i, v)": (lambda a, b, i, g, m, v, ag: b.index_add_(0, i, v), (62, 64)),  # 54/56, 90/81
    "index_copy_(0, i, v)": (lambda a, b, i, g, m, v, ag: b.index_copy_(0, i, v), (67, 71)),  # 58/62, 84/79
    "scatter_(1, g, a)": (lambda a, b, i, g, m, v, ag: b.scatter_(1, g, a), (51, 62)),  # 44/54, 96/86
    "scatter_add_(1, g, a)": (lambda a, b, i, g, m, v, ag: b.scatter_add_(1, g, a), (48, 52)),  # 42/45, 96/81
    "gather(ag, 1, g).sum().backward()": (
        lambda a, b, i, g, m, v, ag: E.gather(ag, 1, g).sum().backward(), (136, 232)),  # 118/202, 186/250
    "ag[i].sum().backward()": (lambda a, b, i, g, m, v, ag: ag[i].sum().backward(), (137, 230)),  # 119/200, 178/237
}


@pytest.mark.parametrize("name", list(CALLS))
def test_indexing_call_stays_within_its_call_budget(name):
    fn, budget = CALLS[name]
    args = _inputs()
    got = _count(lambda: fn(*args))
    assert got[0] <= budget[0] and got[1] <= budget[1], (
        f"{name}: {got[0]} Python calls and {got[1]} C calls; the budget is {budget[0]} and {budget[1]}")


def _peak_bytes(fn) -> int:
    """The peak of memory traced (numpy's buffers included) during one `fn()`, after a warm-up call."""
    fn()
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("op", ["gather", "scatter_add_", "index_add_"])
def test_dim_indexing_builds_no_offset_per_element(op):
    """A 300x300 float32 gather, scatter or index_add allocates its result (0.36 MB) and little else: the
    offset path's int64 grid alone was 0.72 MB (gather peaked at 2.2 MB)."""
    rng = np.random.default_rng(0)
    x = E.from_numpy(rng.standard_normal((300, 300), dtype=np.float32))
    g = E.from_numpy(rng.integers(0, 300, (300, 300)))
    rows = E.from_numpy(rng.integers(0, 300, 300))
    calls = {"gather": lambda: E.gather(x, 1, g), "scatter_add_": lambda: x.scatter_add_(1, g, x.clone()),
             "index_add_": lambda: x.index_add_(0, rows, x.clone())}
    assert _peak_bytes(calls[op]) < 300 * 300 * 4 * 1.5
