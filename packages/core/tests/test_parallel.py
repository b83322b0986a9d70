"""set_num_threads/get_num_threads drive Numba's thread pool; bad values raise."""

import pytest

import ember.core as ec


def test_set_num_threads_round_trips():
    before = ec.get_num_threads()
    try:
        ec.set_num_threads(1)
        assert ec.get_num_threads() == 1
    finally:
        ec.set_num_threads(before)
    assert ec.get_num_threads() == before


@pytest.mark.parametrize("bad", [0, -2, 1.5])
def test_set_num_threads_rejects_non_positive_integers(bad):
    with pytest.raises(ValueError, match="positive integer"):
        ec.set_num_threads(bad)


def test_interop_threads_are_recorded():
    before = ec.get_num_interop_threads()
    ec.set_num_interop_threads(3)
    assert ec.get_num_interop_threads() == 3
    ec.set_num_interop_threads(before)
