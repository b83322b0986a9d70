"""The same calls in ember.data and torch.utils.data give the same results and the same errors."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest

import ember.core as E
import ember.data as ed

torch = pytest.importorskip("torch")
tud = pytest.importorskip("torch.utils.data")

pytestmark = pytest.mark.torch

Pair = namedtuple("Pair", ["a", "b"])


def as_plain(x):
    """A batch from either library as nested Python/numpy values, with dtype names, for comparison."""
    if isinstance(x, E.Tensor | torch.Tensor):
        return ("tensor", str(x.dtype).split(".")[-1], np.asarray(x.tolist()).tolist())
    if isinstance(x, dict):
        return {k: as_plain(v) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (type(x).__name__, *[as_plain(v) for v in x])
    if isinstance(x, list | tuple):
        return (type(x).__name__, [as_plain(v) for v in x])
    return x


SAMPLES = [
    [1, 2, 3],
    [0.5, 1.5],
    [True, False],
    ["a", "b"],
    [np.arange(3, dtype=np.float32), np.ones(3, np.float32)],
    [np.int32(4), np.int32(5)],
    [{"x": 1, "y": (2.0, "s")}, {"x": 3, "y": (4.0, "t")}],
    [Pair(1, [2, 3]), Pair(4, [5, 6])],
    [(np.zeros((2, 2)), 7), (np.ones((2, 2)), 8)],
]


@pytest.mark.parametrize("batch", SAMPLES, ids=range(len(SAMPLES)))
def test_default_collate_matches_torch(batch):
    assert as_plain(ed.default_collate(batch)) == as_plain(tud.default_collate(batch))


@pytest.mark.parametrize("data", [np.arange(3), {"k": (np.float32(1.0), "s")}, [np.zeros(2), 3], Pair(np.ones(1), 2)],
                         ids=range(4))
def test_default_convert_matches_torch(data):
    assert as_plain(ed.default_convert(data)) == as_plain(tud.default_convert(data))


@pytest.mark.parametrize("n, replicas, drop_last", [(10, 3, False), (10, 3, True), (2, 5, False), (12, 4, True)])
def test_distributed_sampler_without_shuffle_matches_torch(n, replicas, drop_last):
    for rank in range(replicas):
        ours = ed.DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        theirs = tud.DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)


@pytest.mark.parametrize("n, fracs", [(10, [0.33, 0.33, 0.34]), (7, [0.5, 0.5]), (5, [0.1, 0.9]), (3, [1.0])])
def test_random_split_fraction_lengths_match_torch(n, fracs):
    ours = [len(s) for s in ed.random_split(range(n), fracs, generator=E.Generator().manual_seed(0))]
    theirs = [len(s) for s in tud.random_split(range(n), fracs, generator=torch.Generator().manual_seed(0))]
    assert ours == theirs


@pytest.mark.parametrize("n, bs, drop_last", [(7, 3, False), (7, 3, True), (6, 3, False), (1, 4, False)])
def test_batching_and_lengths_match_torch(n, bs, drop_last):
    ours = ed.DataLoader(list(range(n)), batch_size=bs, drop_last=drop_last)
    theirs = tud.DataLoader(list(range(n)), batch_size=bs, drop_last=drop_last)
    assert [b.tolist() for b in ours] == [b.tolist() for b in theirs] and len(ours) == len(theirs)


BAD_ARGS = [
    {"batch_size": 0},
    {"sampler": [0, 1], "shuffle": True},
    {"num_workers": -1},
    {"prefetch_factor": 2},
    {"timeout": -1},
    {"persistent_workers": True},
    {"batch_sampler": [[0]], "batch_size": 2},
    {"batch_size": None, "drop_last": True},
    {"multiprocessing_context": "spawn"},
]


@pytest.mark.parametrize("kwargs", BAD_ARGS, ids=[",".join(k) for k in BAD_ARGS])
def test_argument_errors_match_torch(kwargs):
    with pytest.raises(Exception) as theirs:
        tud.DataLoader(list(range(4)), **kwargs)
    with pytest.raises(type(theirs.value)) as ours:
        ed.DataLoader(list(range(4)), **kwargs)
    assert str(ours.value) == str(theirs.value)


def test_sampler_argument_errors_match_torch():
    for make in (lambda m: m.RandomSampler(range(3), replacement=1), lambda m: m.RandomSampler(range(3), num_samples=0),
                 lambda m: m.BatchSampler(range(3), 0, False), lambda m: m.BatchSampler(range(3), 1, None),
                 lambda m: m.WeightedRandomSampler([[1.0, 2.0]], 1),
                 lambda m: m.DistributedSampler(range(4), num_replicas=3, rank=3)):
        with pytest.raises(Exception) as theirs:
            make(tud)
        with pytest.raises(type(theirs.value)) as ours:
            make(ed)
        assert str(ours.value) == str(theirs.value)
