"""Samplers' exact outputs, reproducibility and argument errors."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.data import (
    BatchSampler, DistributedSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
    WeightedRandomSampler,
)


def gen(seed: int):
    return E.Generator().manual_seed(seed)


def test_samplers_are_generic_in_what_they_yield():
    class Chunks(Sampler[list[int]]):
        def __iter__(self):
            return iter([[0, 1], [2]])

    assert list(Chunks()) == [[0, 1], [2]]
    assert Sampler[int].__origin__ is Sampler
    assert RandomSampler.__orig_bases__[0].__args__ == (int,)
    assert BatchSampler.__orig_bases__[0].__args__ == (list[int],)


def test_sampler_has_no_init_taking_a_data_source():
    class Legacy(Sampler):
        def __init__(self, data_source):
            super().__init__(data_source)

    with pytest.raises(TypeError, match="takes exactly one argument"):
        Legacy(range(3))


def test_sequential_sampler():
    assert list(SequentialSampler(range(5))) == [0, 1, 2, 3, 4]
    assert len(SequentialSampler(range(5))) == 5


def test_random_sampler_is_the_generators_permutation():
    s = RandomSampler(range(10), generator=gen(4))
    assert list(s) == E.randperm(10, generator=gen(4)).tolist()
    assert sorted(s) == list(range(10)) and len(s) == 10


def test_random_sampler_num_samples_beyond_length_repeats_permutations():
    out = list(RandomSampler(range(4), num_samples=10, generator=gen(1)))
    assert len(out) == 10
    assert sorted(out[:4]) == sorted(out[4:8]) == [0, 1, 2, 3]
    assert len(set(out[8:])) == 2


def test_random_sampler_with_replacement_stays_in_range():
    out = list(RandomSampler(range(3), replacement=True, num_samples=100, generator=gen(2)))
    assert len(out) == 100 and set(out) == {0, 1, 2}


def test_random_sampler_without_generator_follows_manual_seed():
    E.manual_seed(123)
    a = list(RandomSampler(range(20)))
    b = list(RandomSampler(range(20)))
    E.manual_seed(123)
    assert list(RandomSampler(range(20))) == a
    assert list(RandomSampler(range(20))) == b
    assert a != b


def test_random_sampler_argument_errors():
    with pytest.raises(TypeError, match="replacement should be a boolean value, but got replacement=1"):
        RandomSampler(range(3), replacement=1)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=0"):
        RandomSampler(range(3), num_samples=0)
    with pytest.raises(ValueError, match="num_samples=0"):
        RandomSampler([])


def test_subset_random_sampler_permutes_the_given_indices():
    idx = [10, 20, 30, 40]
    out = list(SubsetRandomSampler(idx, generator=gen(5)))
    perm = E.randperm(4, generator=gen(5)).tolist()
    assert out == [idx[i] for i in perm]


def test_weighted_sampler_never_draws_zero_weight_and_is_reproducible():
    w = [0.0, 1.0, 3.0, 0.0]
    a = list(WeightedRandomSampler(w, 4000, generator=gen(0)))
    assert a == list(WeightedRandomSampler(w, 4000, generator=gen(0)))
    counts = Counter(a)
    assert set(counts) == {1, 2}
    assert abs(counts[2] / 4000 - 0.75) < 0.04  # 0.75 +- ~6 standard deviations


def test_weighted_sampler_without_replacement_draws_distinct_keys():
    out = list(WeightedRandomSampler([1, 2, 3, 4, 5], 5, replacement=False, generator=gen(1)))
    assert sorted(out) == [0, 1, 2, 3, 4]


def test_weighted_sampler_argument_errors():
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=0"):
        WeightedRandomSampler([1.0], 0)
    with pytest.raises(ValueError, match="replacement should be a boolean value, but got replacement=0"):
        WeightedRandomSampler([1.0], 1, replacement=0)
    with pytest.raises(ValueError, match=r"weights should be a 1d sequence but given weights have shape \(1, 2\)"):
        WeightedRandomSampler([[1.0, 2.0]], 1)
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size"):
        list(WeightedRandomSampler([1.0, 2.0], 3, replacement=False))


def test_batch_sampler_exact_batches():
    assert list(BatchSampler(range(7), 3, False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(BatchSampler(range(7), 3, True)) == [[0, 1, 2], [3, 4, 5]]
    assert len(BatchSampler(range(7), 3, False)) == 3 and len(BatchSampler(range(7), 3, True)) == 2


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 50), st.integers(1, 9), st.booleans())
def test_batch_sampler_length_matches_iteration(n, bs, drop_last):
    batches = list(BatchSampler(range(n), bs, drop_last))
    assert len(batches) == len(BatchSampler(range(n), bs, drop_last))
    assert [i for b in batches for i in b] == list(range(len(batches) * bs if drop_last else n))


def test_batch_sampler_argument_errors():
    with pytest.raises(ValueError, match="batch_size should be a positive integer value, but got batch_size=0"):
        BatchSampler(range(3), 0, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value, but got drop_last=None"):
        BatchSampler(range(3), 1, None)


# --- DistributedSampler against PyTorch's documented algorithm --------------------------------
def reference_distributed(n, replicas, rank, shuffle, seed, epoch, drop_last):
    """torch.utils.data.DistributedSampler.__iter__, restated."""
    indices = E.randperm(n, generator=gen(seed + epoch)).tolist() if shuffle else list(range(n))
    num_samples = math.ceil((n - replicas) / replicas) if drop_last and n % replicas else math.ceil(n / replicas)
    total = num_samples * replicas
    if drop_last:
        indices = indices[:total]
    else:
        pad = total - len(indices)
        indices += (indices * math.ceil(pad / len(indices)))[:pad] if pad > len(indices) else indices[:pad]
    return indices[rank:total:replicas]


def test_distributed_sampler_exact_lists_without_shuffle():
    shards = [list(DistributedSampler(range(10), 3, r, shuffle=False)) for r in range(3)]
    assert shards == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]
    shards = [list(DistributedSampler(range(10), 3, r, shuffle=False, drop_last=True)) for r in range(3)]
    assert shards == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]
    assert list(DistributedSampler(range(2), 5, 4, shuffle=False)) == [0]


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 30), st.integers(1, 6), st.booleans(), st.booleans(), st.integers(0, 3))
def test_distributed_sampler_matches_reference(n, replicas, shuffle, drop_last, epoch):
    samplers = [DistributedSampler(range(n), replicas, r, shuffle=shuffle, seed=7, drop_last=drop_last)
                for r in range(replicas)]
    for r, s in enumerate(samplers):
        s.set_epoch(epoch)
        out = list(s)
        assert out == reference_distributed(n, replicas, r, shuffle, 7, epoch, drop_last)
        assert len(out) == len(s)


def test_distributed_sampler_set_epoch_reshuffles():
    s = DistributedSampler(range(50), 2, 0, seed=1)
    first = list(s)
    s.set_epoch(1)
    assert list(s) != first and len(list(s)) == 25


def test_distributed_sampler_argument_errors(monkeypatch):
    import ember.data.distributed as dd

    monkeypatch.setattr(dd, "_group_query", None)
    with pytest.raises(RuntimeError, match="Requires distributed package to be available"):
        DistributedSampler(range(4))
    with pytest.raises(ValueError, match=r"Invalid rank 3, rank should be in the interval \[0, 2\]"):
        DistributedSampler(range(4), num_replicas=3, rank=3)


def test_distributed_sampler_defaults_to_the_default_process_group(monkeypatch):
    import ember.data.distributed as dd

    group = [None]
    monkeypatch.setattr(dd, "_group_query", None)
    dd.register_group_query(lambda: group[0])
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedSampler(range(10))
    group[0] = (4, 1)  # world size 4, this process rank 1
    s = DistributedSampler(range(10), shuffle=False)
    assert (s.num_replicas, s.rank, list(s)) == (4, 1, [1, 5, 9])
    assert DistributedSampler(range(10), rank=3, shuffle=False).indices_for_epoch() == [3, 7, 1]
