"""set_num_threads/get_num_threads drive Numba's thread pool and the BLAS; bad values raise."""

import pytest
from threadpoolctl import threadpool_info

import ember.core as ec


def _blas_threads() -> set[int]:
    return {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"}


def test_set_num_threads_round_trips():
    before = ec.get_num_threads()
    try:
        ec.set_num_threads(1)
        assert ec.get_num_threads() == 1
    finally:
        ec.set_num_threads(before)
    assert ec.get_num_threads() == before


def test_set_num_threads_limits_the_blas_too():
    import numpy  # noqa: F401  (loads the BLAS that threadpoolctl reports)

    before = ec.get_num_threads()
    assert _blas_threads(), "numpy's BLAS is not visible to threadpoolctl"
    try:
        ec.set_num_threads(1)
        assert _blas_threads() == {1}
    finally:
        ec.set_num_threads(before)
    assert _blas_threads() == {before}


@pytest.mark.parametrize(("bad", "message"), [(0, "positive integer"), (-2, "positive integer"),
                                              (1.5, "expects an int, but got float"),
                                              (True, "expects an int, but got bool")])
def test_set_num_threads_rejects_what_pytorch_rejects(bad, message):
    with pytest.raises(RuntimeError, match=message):
        ec.set_num_threads(bad)


def test_interop_threads_are_recorded():
    before = ec.get_num_interop_threads()
    ec.set_num_interop_threads(3)
    assert ec.get_num_interop_threads() == 3
    ec.set_num_interop_threads(before)
