"""DataLoader in the main process: batching, shuffling, lengths, re-iteration and argument errors."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import ember.core as E
from ember.data import BatchSampler, DataLoader, IterableDataset, SequentialSampler, TensorDataset, get_worker_info

from loader_datasets import Range, Squares


def labels(loader) -> list[list[int]]:
    return [y.tolist() for _, y in loader]


def test_batches_in_order_with_a_short_last_batch():
    loader = DataLoader(Squares(10), batch_size=4)
    batches = list(loader)
    assert [y.tolist() for _, y in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    x, _ = batches[1]
    assert x.shape == (4, 2, 3) and x.dtype == E.float32
    np.testing.assert_array_equal(x.numpy()[:, 0, 0], [16, 25, 36, 49])
    assert len(loader) == 3


def test_drop_last():
    loader = DataLoader(Squares(10), batch_size=4, drop_last=True)
    assert labels(loader) == [[0, 1, 2, 3], [4, 5, 6, 7]] and len(loader) == 2


def test_default_batch_size_is_one():
    assert labels(DataLoader(Squares(3))) == [[0], [1], [2]]


def test_tensor_dataset_batches():
    ds = TensorDataset(E.arange(10).view(5, 2), E.arange(5))
    (x, y), *_ = DataLoader(ds, batch_size=5)
    assert x.tolist() == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]] and y.tolist() == [0, 1, 2, 3, 4]


def test_shuffle_follows_the_generator_and_reiteration_reshuffles():
    loader = DataLoader(Squares(20), batch_size=20, shuffle=True, generator=E.Generator().manual_seed(0))
    first, second = labels(loader), labels(loader)
    again = DataLoader(Squares(20), batch_size=20, shuffle=True, generator=E.Generator().manual_seed(0))
    assert labels(again) == first and labels(again) == second
    assert first != second and sorted(first[0]) == list(range(20))


def test_shuffle_without_generator_follows_manual_seed():
    E.manual_seed(7)
    a = labels(DataLoader(Squares(20), batch_size=20, shuffle=True))
    E.manual_seed(7)
    assert labels(DataLoader(Squares(20), batch_size=20, shuffle=True)) == a


def test_batch_size_none_converts_without_batching():
    out = list(DataLoader(Squares(3), batch_size=None))
    x, y = out[2]
    assert isinstance(out[2], list) and x.shape == (2, 3) and y == 2  # default_convert: tuples -> lists


def test_custom_collate_fn_and_batch_sampler():
    loader = DataLoader(Squares(6), batch_sampler=BatchSampler(SequentialSampler(range(6)), 4, False),
                        collate_fn=lambda batch: [i for _, i in batch])
    assert list(loader) == [[0, 1, 2, 3], [4, 5]] and len(loader) == 2


def test_iterable_dataset_batches_and_length():
    loader = DataLoader(Range(0, 7), batch_size=3)
    assert [b.tolist() for b in loader] == [[0, 1, 2], [3, 4, 5], [6]] and len(loader) == 3
    loader = DataLoader(Range(0, 7), batch_size=3, drop_last=True)
    assert [b.tolist() for b in loader] == [[0, 1, 2], [3, 4, 5]] and len(loader) == 2


def test_iterators_carry_pytorchs_class_names():
    assert type(iter(DataLoader(range(3)))).__name__ == "_SingleProcessDataLoaderIter"
    it = iter(DataLoader(range(3), num_workers=1))
    assert type(it).__name__ == "_MultiProcessingDataLoaderIter"
    assert [int(b) for b in it] == [0, 1, 2]


def test_dataset_kind_is_exported_at_the_top_as_pytorchs():
    import ember.data as D
    from ember.data import dataloader

    assert D._DatasetKind is dataloader._DatasetKind and (D._DatasetKind.Map, D._DatasetKind.Iterable) == (0, 1)
    assert DataLoader(Range(0, 3))._dataset_kind == D._DatasetKind.Iterable


def test_loader_is_generic_and_iterators_check_their_arguments_as_pytorch():
    assert DataLoader[int].__origin__ is DataLoader
    with pytest.raises(AssertionError, match="_SingleProcessDataLoaderIter requires timeout == 0"):
        iter(DataLoader(range(3), timeout=0.5))
    with pytest.raises(AssertionError, match="prefetch_factor must be greater than 0"):
        iter(DataLoader(range(3), num_workers=1, prefetch_factor=0))


def test_more_workers_than_usable_cpus_warns_as_pytorch(monkeypatch):
    import ember.data.dataloader as dl_module

    monkeypatch.setattr(dl_module.os, "sched_getaffinity", lambda pid: {0}, raising=False)
    with pytest.warns(UserWarning, match=re.escape(
            "This DataLoader will create 2 worker processes in total. Our suggested max number of worker in current "
            "system is 1, which is smaller than what this DataLoader is going to create. Please be aware")):
        DataLoader(range(4), num_workers=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        DataLoader(range(4), num_workers=1)
        DataLoader(range(4))


def test_worker_info_is_none_in_the_main_process():
    assert get_worker_info() is None


def test_pin_memory_without_cuda_warns_and_does_nothing(monkeypatch):
    monkeypatch.setattr("ember.data.dataloader.cuda_available", lambda: False)
    loader = DataLoader(Squares(4), batch_size=2, pin_memory=True)
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accelerator is found"):
        assert labels(loader) == [[0, 1], [2, 3]]


def test_pin_memory_with_cuda_pins_every_tensor(monkeypatch):
    monkeypatch.setattr("ember.data.dataloader.cuda_available", lambda: True)
    monkeypatch.setattr(E.Tensor, "pin_memory", lambda self: E.tensor(self.numpy() + 100), raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert labels(DataLoader(Squares(4), batch_size=2, pin_memory=True)) == [[100, 101], [102, 103]]


@pytest.mark.parametrize("kwargs, message", [
    ({"batch_size": 0}, "batch_size should be a positive integer value, but got batch_size=0"),
    ({"sampler": [0, 1], "shuffle": True}, "sampler option is mutually exclusive with shuffle"),
    ({"num_workers": -1}, "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing."),
    ({"prefetch_factor": 2}, "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None."),
    ({"timeout": -1}, "timeout option should be non-negative"),
    ({"persistent_workers": True}, "persistent_workers option needs num_workers > 0"),
    ({"batch_sampler": [[0]], "batch_size": 2}, "batch_sampler option is mutually exclusive with batch_size, "
                                                "shuffle, sampler, and drop_last"),
    ({"batch_size": None, "drop_last": True}, "batch_size=None option disables auto-batching and is mutually "
                                              "exclusive with drop_last"),
    ({"multiprocessing_context": "spawn"}, "multiprocessing_context can only be used with multi-process loading "
                                           "(num_workers > 0), but got num_workers=0"),
    ({"num_workers": 1, "multiprocessing_context": "nope"}, "multiprocessing_context option should specify a valid "
                                                            "start method in"),
    ({"num_workers": 1, "prefetch_factor": -1}, "prefetch_factor option should be non-negative"),
])
def test_bad_arguments_raise_pytorchs_errors(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        DataLoader(Squares(4), **kwargs)


def test_multiprocessing_context_of_a_wrong_type_is_a_type_error():
    with pytest.raises(TypeError, match="multiprocessing_context option should be a valid context object"):
        DataLoader(Squares(4), num_workers=1, multiprocessing_context=3)


@pytest.mark.parametrize("kwargs, message", [
    ({"shuffle": True}, "DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle=True"),
    ({"sampler": [0]}, r"expected unspecified sampler option, but got sampler=\[0\]"),
    ({"batch_sampler": [[0]]}, r"expected unspecified batch_sampler option, but got batch_sampler=\[\[0\]\]"),
])
def test_iterable_dataset_rejects_samplers(kwargs, message):
    with pytest.raises(ValueError, match=message):
        DataLoader(Range(0, 3), **kwargs)


def test_attributes_are_frozen_after_init():
    loader = DataLoader(Squares(4))
    with pytest.raises(ValueError, match="batch_size attribute should not be set after DataLoader is initialized"):
        loader.batch_size = 3
    loader.num_workers = 0  # not frozen, as in PyTorch


def test_iterable_dataset_yielding_more_than_its_len_warns_as_pytorch():
    """After len(loader), each sample past what `len(dataset)` reported warns (PyTorch's message)."""

    class Claims(IterableDataset):
        def __len__(self):
            return 2

        def __iter__(self):
            return iter(range(4))

    loader = DataLoader(Claims(), batch_size=None)
    assert list(loader) == [0, 1, 2, 3]  # len() never asked: no warning
    assert len(loader) == 2
    with pytest.warns(UserWarning, match=r"was reported to be 2\(when accessing len\(dataloader\)\), but 3 samples"):
        assert list(loader) == [0, 1, 2, 3]


def test_a_loader_over_numpy_data_loads_no_compiled_kernels():
    # the iterator's seed is a few words of the generator, drawn through numpy's engine before any compiled sampler
    # ran (`MT19937._numpy_words`): a fresh process iterating numpy data never imports Numba (seconds of start-up)
    import os
    import subprocess
    import sys

    script = ("import sys\nimport numpy as np\nfrom ember.data import DataLoader\n"
              "batches = list(DataLoader([np.full(2, i, np.float32) for i in range(6)], batch_size=4))\n"
              "print([b.shape[0] for b in batches], float(batches[1].sum()), 'numba' in sys.modules)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["[4,", "2]", "18.0", "False"]
