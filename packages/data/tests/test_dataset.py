"""Datasets and random_split."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.data import (
    ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset, random_split,
)

from loader_datasets import Range


class Listed(Dataset):
    def __init__(self, items):
        self.items = list(items)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def test_dataset_base_class_requires_getitem():
    with pytest.raises(NotImplementedError, match="Subclasses of Dataset should implement __getitem__."):
        Dataset()[0]


def test_tensor_dataset_rows():
    x = E.arange(12).view(4, 3)
    y = E.tensor([5, 6, 7, 8])
    ds = TensorDataset(x, y)
    assert len(ds) == 4
    row, label = ds[2]
    assert row.tolist() == [6, 7, 8] and int(label) == 7


def test_tensor_dataset_size_mismatch():
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(E.zeros(3), E.zeros(4))


def test_concat_dataset_indexing_and_sizes():
    ds = Listed("abc") + Listed("de") + Listed("f")
    assert isinstance(ds, ConcatDataset)
    flat = ConcatDataset([Listed("abc"), Listed("de"), Listed("f")])
    assert flat.cumulative_sizes == [3, 5, 6]
    assert [flat[i] for i in range(6)] == list("abcdef")
    assert flat[-1] == "f" and flat[-6] == "a"
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        flat[-7]


def test_concat_dataset_cumsum_is_a_static_method():
    assert ConcatDataset.cumsum([Listed("ab"), Listed(""), Listed("cde")]) == [2, 2, 5]


def test_datasets_are_generic_in_their_samples():
    class Words(Dataset[str]):
        def __len__(self):
            return 1

        def __getitem__(self, i):
            return "w"

    assert Words()[0] == "w" and Dataset[int].__origin__ is Dataset
    assert IterableDataset[int].__origin__ is IterableDataset and Subset[str].__origin__ is Subset
    assert TensorDataset.__orig_bases__[0].__args__ == (tuple[E.Tensor, ...],)


def test_concat_dataset_rejects_empty_and_iterable():
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        ConcatDataset([Range(0, 3)])


def test_chain_dataset_chains_and_adds_lengths():
    ds = Range(0, 3) + Range(10, 12)
    assert isinstance(ds, ChainDataset)
    assert list(ds) == [0, 1, 2, 10, 11] and len(ds) == 5
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(ChainDataset([Listed("a")]))


def test_subset_indexing_and_getitems():
    sub = Subset(Listed("abcdef"), [5, 0, 3])
    assert len(sub) == 3 and [sub[i] for i in range(3)] == ["f", "a", "d"]
    assert sub.__getitems__([2, 0]) == ["d", "f"]


def test_stack_dataset_tuples_and_dicts():
    assert StackDataset(Listed("ab"), Listed([1, 2]))[1] == ("b", 2)
    assert StackDataset(x=Listed("ab"), y=Listed([1, 2]))[0] == {"x": "a", "y": 1}
    assert len(StackDataset(Listed("ab"))) == 2
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(Listed("ab"), Listed("abc"))
    with pytest.raises(ValueError, match="both types are given"):
        StackDataset(Listed("ab"), y=Listed("ab"))
    with pytest.raises(ValueError, match="At least one dataset should be passed"):
        StackDataset()


def test_random_split_by_lengths_partitions_the_dataset():
    parts = random_split(Listed(range(10)), [3, 7], generator=E.Generator().manual_seed(3))
    assert [len(p) for p in parts] == [3, 7]
    assert sorted(list(parts[0]) + list(parts[1])) == list(range(10))


def test_random_split_follows_the_generator():
    perm = E.randperm(10, generator=E.Generator().manual_seed(11)).tolist()
    a, b = random_split(Listed(range(10)), [4, 6], generator=E.Generator().manual_seed(11))
    assert a.indices == perm[:4] and b.indices == perm[4:]


def test_random_split_fractions_give_remainders_to_the_first_splits():
    parts = random_split(Listed(range(10)), [0.33, 0.33, 0.34], generator=E.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [4, 3, 3]


def test_random_split_errors_and_warnings():
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
        random_split(Listed(range(10)), [3, 3])
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        random_split(Listed(range(2)), [1.0, 0.0])


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 60), st.lists(st.floats(0.05, 1.0), min_size=1, max_size=4))
def test_random_split_fractions_always_cover_the_dataset(n, weights):
    fracs = [w / sum(weights) for w in weights]
    fracs[-1] = 1.0 - sum(fracs[:-1])
    parts = random_split(Listed(range(n)), fracs, generator=E.Generator().manual_seed(n))
    assert sum(len(p) for p in parts) == n
    assert sorted(i for p in parts for i in p.indices) == list(range(n))


def test_stack_dataset_getitems_batches_through_nested_getitems():
    """PyTorch's StackDataset.__getitems__: tuples or dicts per index, a Subset column fetched in one call."""
    calls = []

    class Batched(Listed):
        def __getitems__(self, idx):
            calls.append(list(idx))
            return [self[i] for i in idx]

    st = StackDataset(Listed("abc"), Batched([10, 20, 30]))
    assert st.__getitems__([2, 0]) == [("c", 30), ("a", 10)] and calls == [[2, 0]]
    sd = StackDataset(x=Listed("abc"), y=Subset(Batched([1, 2, 3]), [2, 1, 0]))
    assert sd.__getitems__([0, 1]) == [{"x": "a", "y": 3}, {"x": "b", "y": 2}]

    class Short(Listed):
        def __getitems__(self, idx):
            return []

    with pytest.raises(ValueError, match="Nested dataset's output size mismatch. Expected 2, got 0"):
        StackDataset(Short("ab"), Listed("ab")).__getitems__([0, 1])


def test_iterable_dataset_without_iter_cannot_be_instantiated():
    with pytest.raises(TypeError, match="Can't instantiate abstract class IterableDataset"):
        IterableDataset()

    class Stream(IterableDataset):
        def __iter__(self):
            return iter([1, 2])

    assert list(Stream()) == [1, 2] and list(Stream() + Stream()) == [1, 2, 1, 2]
