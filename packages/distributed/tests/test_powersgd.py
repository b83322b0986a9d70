"""PowerSGD communication hooks: a 2-rank job against a numpy reference of the algorithm and a
training run; the state's rules and the orthogonalization without MPI."""

import pickle

import numpy as np
import pytest

from ember.distributed.powersgd import PowerSGDState, _orthogonalize, _should_compress


def test_powersgd_hooks_match_the_numpy_reference_and_train(run_job):
    res = run_job(2, "powersgd.py")
    assert res.returncode == 0, res.stdout
    for r in range(2):
        assert f"rank {r} DONE" in res.stdout, res.stdout
    assert res.stdout.count(" OK ") == 2 * 9, res.stdout


def test_state_needs_plain_iterations_before_feedback_or_warm_start():
    with pytest.raises(ValueError, match="Expect `start_powerSGD_iter` > 1"):
        PowerSGDState(None, start_powerSGD_iter=1)
    st = PowerSGDState(None, start_powerSGD_iter=1, use_error_feedback=False, warm_start=False)
    assert st.compression_stats() == (0, 0, 0)
    assert (PowerSGDState(None).start_powerSGD_iter, PowerSGDState(None).matrix_approximation_rank) == (1000, 1)


def test_state_pickles_without_its_process_group():
    st = PowerSGDState("not picklable", start_powerSGD_iter=5, random_seed=3)
    st.iter = 7
    back = pickle.loads(pickle.dumps(st))
    assert (back.iter, back.start_powerSGD_iter, back.process_group) == (7, 5, None)
    assert back.rng.randint(100) == np.random.RandomState(3).randint(100)


@pytest.mark.parametrize("rank", [1, 2, 3])
def test_orthogonalize_spans_the_columns_with_orthonormal_ones(rank):
    a = np.random.default_rng(rank).standard_normal((2, 7, rank))
    q = a.copy()
    _orthogonalize(q)
    for k in range(2):
        np.testing.assert_allclose(q[k].T @ q[k], np.eye(rank), atol=1e-12)
        np.testing.assert_allclose(q[k] @ (q[k].T @ a[k]), a[k], atol=1e-12)   # same column space


def test_compression_needs_the_rate():
    assert _should_compress(4, 5, 1, 2) == (True, 20, 9)
    assert _should_compress(4, 1, 1, 2) == (False, 4, 5)
