"""Dynamic shapes (NOTE [ Dynamic shapes ] in ember.jit.compiler): past the plan limit a new shape replaces the
least recently used plan of another shape, unless `dynamic=False`."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember.autograd as ea
import ember.jit as jit


def _t(*shape, seed=0):
    return ea.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def f(x):
    return (x * 2 + 1).tanh().sum(-1)


@pytest.mark.parametrize("dynamic", [None, True])
def test_new_shapes_replace_the_least_recent_plan_without_falling_back(monkeypatch, dynamic):
    monkeypatch.setattr(jit.config, "cache_size_limit", 3)
    c = jit.compile(f, dynamic=dynamic)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no cache-limit warning
        for n in range(1, 9):  # eight sequence lengths, each called three times: eager, capture, replay
            x = _t(2, n, seed=n)
            for _ in range(3):
                np.testing.assert_allclose(c(x).numpy(), f(x).numpy(), rtol=1e-6)
    assert len(c._cache) == 3 and c.evictions == 5 and c.captures == 8
    assert sorted(e.key[0][0] for e in c._cache.values()) == [(2, 6), (2, 7), (2, 8)]  # the last three shapes
    captures = c.captures
    for n in (6, 7, 8, 8, 6):  # recent shapes keep replaying
        c(_t(2, n))
    assert c.captures == captures


def test_a_shape_in_use_is_kept_over_older_ones(monkeypatch):
    monkeypatch.setattr(jit.config, "cache_size_limit", 2)
    c = jit.compile(f)
    a, b = _t(2, 3), _t(2, 4)
    for x in (a, a, b, b, a):  # plans for both; `a` replayed last
        c(x)
    for _ in range(2):
        c(_t(2, 5))  # evicts `b`, the least recently used
    assert sorted(e.key[0][0] for e in c._cache.values()) == [(2, 3), (2, 5)]


def test_other_guards_still_count_towards_the_limit(monkeypatch):
    monkeypatch.setattr(jit.config, "cache_size_limit", 2)
    c = jit.compile(lambda x, k: x * k)
    x = _t(3)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for k in (1.0, 2.0, 3.0, 4.0):
            np.testing.assert_array_equal(c(x, k).numpy(), (x * k).numpy())
    msgs = [str(m.message) for m in w if "cache_size_limit" in str(m.message)]
    assert len(msgs) == 1 and "argument 1: 3.0" in msgs[0] and c.evictions == 0


def test_dynamic_false_keeps_the_recompile_limit(monkeypatch):
    monkeypatch.setattr(jit.config, "cache_size_limit", 2)
    c = jit.compile(f, dynamic=False)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for n in (1, 1, 2, 2, 3, 3, 4):
            c(_t(n))
    assert sum("cache_size_limit" in str(m.message) for m in w) == 1
    assert len(c._cache) == 2 and c.evictions == 0
