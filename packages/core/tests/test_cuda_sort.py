"""sort/argsort/topk on both devices (a bitonic sort in shared memory on CUDA): CUDA must match
the CPU exactly, stable ties and NaN placement included. CUDA simulator."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.core.testing import assert_close, make_tensor

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")]

DEVICES = ["cpu", "cuda"]


def _on(t, device):
    return t.to(device) if isinstance(t, E.Tensor) and device != "cpu" else t


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_is_stable_with_nans(dim, descending, device):
    x = E.tensor([[3.0, 1.0, float("nan"), 1.0, 2.0], [0.0, float("nan"), 0.0, -1.0, 5.0],
                  [2.0, 2.0, 2.0, 2.0, 2.0]])
    want = E.sort(x, dim, descending)
    got = E.sort(_on(x, device), dim, descending)
    assert_close(got.values, _on(want.values, device), equal_nan=True)
    assert got.indices.tolist() == want.indices.tolist()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("largest", [True, False])
def test_topk_matches_cpu(largest, device):
    x = make_tensor(3, 7, dtype=E.int64, seed=1, noncontiguous=True)
    want = E.topk(x, 3, 1, largest)
    got = E.topk(_on(x, device), 3, 1, largest)
    assert got.values.tolist() == want.values.tolist() and got.indices.tolist() == want.indices.tolist()
    assert E.argsort(_on(x, device), 0).tolist() == E.argsort(x, 0).tolist()


@settings(max_examples=15, deadline=None)
@given(rows=st.integers(1, 3), n=st.integers(1, 9), seed=st.integers(0, 100))
def test_sort_of_random_rows_matches_numpy_stable_argsort(rows, n, seed):
    a = np.random.default_rng(seed).integers(0, 4, (rows, n)).astype(np.float32)
    got = E.from_numpy(a).cuda().sort(1)
    assert got.indices.tolist() == np.argsort(a, 1, kind="stable").tolist()


@pytest.mark.parametrize("descending", [False, True])
def test_rows_longer_than_shared_memory_sort_in_global_memory(descending):
    from ember.core.cuda.launch_sort import MAX_SORT

    a = np.random.default_rng(3).integers(0, 9, (2, MAX_SORT + 7)).astype(np.float32)
    a[1, 5] = np.nan
    x = E.from_numpy(a)
    # the bitonic network orders ties by index: the CPU's stable sort (its default sort and topk order ties as
    # PyTorch's CPU introsort / nth_element do)
    want, got = E.sort(x, dim=1, descending=descending, stable=True), E.sort(x.cuda(), 1, descending)
    assert got.indices.tolist() == want.indices.tolist()
    assert_close(got.values.cpu(), want.values, equal_nan=True)
    top = E.topk(x.cuda().t(), 5, 0)
    assert top.indices.tolist() == E.sort(x.t(), dim=0, descending=True, stable=True).indices[:5].tolist()
