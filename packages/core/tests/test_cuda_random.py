"""Philox sampling on CUDA: reproducible from manual_seed, independent draws, the right ranges and
moments, Bernoulli with a tensor of probabilities, dropout's mask and scale. CUDA simulator."""

from __future__ import annotations

import numpy as np
import pytest

import ember.core as E
from ember.core.dispatch import get_op

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")]

N = 512


def _draw(op: str, *args, dtype=E.float32, n=N):
    x = E.empty(n, dtype=dtype, device="cuda")
    get_op(op)(x, *args)
    return x.cpu().numpy()


def test_same_seed_same_numbers_and_successive_draws_differ():
    E.manual_seed(5)
    a, b = _draw("uniform_", 0.0, 1.0), _draw("uniform_", 0.0, 1.0)
    E.manual_seed(5)
    c = _draw("uniform_", 0.0, 1.0)
    assert np.array_equal(a, c) and not np.array_equal(a, b)
    E.manual_seed(6)
    assert not np.array_equal(_draw("uniform_", 0.0, 1.0), a)


def test_uniform_normal_exponential_moments():
    E.manual_seed(1)
    u = _draw("uniform_", -2.0, 3.0)
    assert u.min() >= -2 and u.max() < 3 and abs(u.mean() - 0.5) < 0.4
    z = _draw("normal_", 1.0, 2.0, dtype=E.float64)
    assert abs(z.mean() - 1.0) < 0.3 and abs(z.std() - 2.0) < 0.3
    e = _draw("exponential_", 2.0)
    assert e.min() >= 0 and abs(e.mean() - 0.5) < 0.1
    ln = _draw("log_normal_", 0.0, 0.5)
    assert ln.min() > 0
    c = _draw("cauchy_", 0.0, 1.0)
    assert abs(np.median(c)) < 0.3


def test_random_and_geometric_integers():
    E.manual_seed(2)
    r = _draw("random_", 3, 7, dtype=E.int64)
    assert set(r.tolist()) == {3, 4, 5, 6}
    g = _draw("geometric_", 0.5, dtype=E.int64)
    assert g.min() >= 1 and abs(g.mean() - 2.0) < 0.4


def test_bernoulli_with_scalar_and_tensor_probabilities():
    E.manual_seed(3)
    b = _draw("bernoulli_", 0.25)
    assert set(b.tolist()) <= {0.0, 1.0} and abs(b.mean() - 0.25) < 0.1
    p = E.tensor([0.0, 1.0], device="cuda").repeat(N // 2)
    x = E.empty(N, device="cuda")
    get_op("bernoulli_")(x, p)
    assert x.cpu().numpy().tolist() == p.cpu().numpy().tolist()


def test_dropout_mask_and_scale():
    E.manual_seed(4)
    x = E.ones(N, device="cuda")
    out, mask = get_op("native_dropout")(x, 0.25)
    o, m = out.cpu().numpy(), mask.cpu().numpy()
    assert m.dtype == np.bool_ and abs(m.mean() - 0.75) < 0.1
    assert np.allclose(o[m], 1 / 0.75) and np.all(o[~m] == 0)
    g = get_op("native_dropout_backward")(E.ones(N, device="cuda"), mask, 1 / 0.75)
    assert np.allclose(g.cpu().numpy(), o)


def test_sampling_does_not_synchronize():
    x = E.empty(64, device="cuda")
    n = E.cuda.sync_count()
    get_op("normal_")(x)
    E.dropout(x, 0.5)
    assert E.cuda.sync_count() == n


def test_poisson_mean_and_variance_for_small_and_large_rates():
    E.manual_seed(7)
    rates = E.tensor([0.0, 3.0, 40.0], device="cuda").repeat_interleave(N // 2)
    x = E.poisson(rates).cpu().numpy().reshape(3, -1)
    assert np.all(x[0] == 0) and np.all(x == np.round(x)) and x.min() >= 0
    for row, lam in ((x[1], 3.0), (x[2], 40.0)):
        assert abs(row.mean() - lam) < 0.15 * lam and abs(row.var() - lam) < 0.35 * lam
