"""torch.multiprocessing's storage reducer: through ForkingPickler a tensor moves into shared memory in place
and arrives over the same memory; the DataLoader's table can drop it; the strategies."""

import pickle
from multiprocessing.reduction import ForkingPickler

import numpy as np
import pytest

import ember.core as E
from ember.core import multiprocessing as cmp


def test_forking_pickler_moves_storage_to_shared_memory_and_back():
    cmp.init_reductions()
    x = E.arange(4.0)
    payload = ForkingPickler.dumps(x[1:])
    assert x.is_shared()
    y = pickle.loads(payload)
    y.mul_(10)  # the same physical memory, mapped a second time
    np.testing.assert_array_equal(x.numpy(), [0.0, 10.0, 20.0, 30.0])
    assert y.shape == (3,) and y.is_shared()


def test_plain_dispatch_table_drops_only_the_storage_reducer():
    cmp.init_reductions()
    table = cmp.plain_dispatch_table(dict(ForkingPickler._extra_reducers))
    assert cmp.reduce_storage not in table.values()
    assert len(table) == len(ForkingPickler._extra_reducers) - 1


def test_sharing_strategy_validation():
    assert cmp.get_sharing_strategy() == "file_descriptor"
    with pytest.raises(AssertionError, match="invalid sharing strategy"):
        cmp.set_sharing_strategy("shm")
    assert cmp.get_sharing_strategy() == "file_descriptor"
