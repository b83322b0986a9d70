"""Branches on tensor values (NOTE [ Branches on tensor values ] in ember.jit.capture): a guard per
branch, one plan per path, and a break where the ops before the branch outlive the call."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import ember.autograd as ea
import ember.jit as jit
from ember.jit import config


def _t(*shape, seed=0):
    return ea.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def _np(t):
    return t.detach().numpy()


def by_bool(x):
    y = x.exp()
    if y.sum() > 3:
        return y * 2
    return y - 1


def by_any(x):
    return x + 1 if (x > 1).any() else x - 1


def by_item_comparison(x):
    s = x.sum().item()
    if s > 0:
        return x * 2
    return x * 3


def by_item_truth(x):
    return x * 2 if (x > 0).all().item() else x * 3


def by_int(x, n):
    for _ in range(int(n)):
        x = x * 2
    return x


def by_int_item(x, n):
    return x[: n.item()] * 2


@pytest.mark.parametrize("fn", [by_bool, by_any, by_item_comparison, by_item_truth])
def test_a_branch_is_a_guard_with_a_plan_per_path(fn):
    c = jit.compile(fn)
    xs = [_t(4, seed=s) for s in range(8)] + [_t(4).abs() + 2, -_t(4).abs() - 2]
    for x in xs + xs[::-1]:  # fused exp is within an ulp of numpy's
        np.testing.assert_allclose(_np(c(x)), _np(fn(x)), rtol=1e-6)
    e = c.explain()
    assert e.graph_break_count == 0 and e.graph_count == 2 and c.captures == 2
    guards = [[op for op in ops if op.startswith("guard[")] for ops in e.ops_per_graph]
    assert all(len(g) == 1 for g in guards) and {g[0].rsplit("== ", 1)[1] for g in guards} == {"True]", "False]"}


@pytest.mark.parametrize("fn", [by_int, by_int_item])
def test_an_integer_read_is_guarded_by_value(fn):
    c = jit.compile(fn)
    for n in (2, 2, 2, 3, 3, 2, 3, 1, 1):
        x, k = _t(4, seed=n), ea.tensor(n)
        np.testing.assert_array_equal(_np(c(x, k)), _np(fn(x, k)))
    e = c.explain()
    assert e.graph_break_count == 0 and e.graph_count == 3
    assert sorted(ops[0] for ops in e.ops_per_graph) == [f"guard[{'int(t)' if fn is by_int else 't.item()'} == {n}]"
                                                        for n in (1, 2, 3)]


def test_a_replay_stops_at_the_guard_and_the_other_path_runs():
    c = jit.compile(lambda x: x * 2 if x.sum() > 0 else x * 3)
    pos, neg = _t(3).abs(), -_t(3).abs()
    for x in (pos, pos, pos, pos):  # eager, capture, replay, replay
        np.testing.assert_array_equal(_np(c(x)), _np(x) * 2)
    assert c.captures == 1
    np.testing.assert_array_equal(_np(c(neg)), _np(neg) * 3)  # the plan diverges: this path is captured
    assert c.captures == 2
    for x, k in ((neg, 3), (pos, 2), (neg, 3)):
        np.testing.assert_array_equal(_np(c(x)), _np(x) * k)
    assert c.captures == 2 and c.explain().graph_count == 2


def test_a_training_step_skipping_non_finite_losses_matches_eager():
    nn, optim = pytest.importorskip("ember.nn"), pytest.importorskip("ember.optim")
    ea.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    twin = copy.deepcopy(model)

    def make(m):
        opt = optim.SGD(m.parameters(), lr=0.1, momentum=0.9)

        def step(x, y):
            opt.zero_grad()
            loss = ((m(x) - y) ** 2).mean()
            if ea.isfinite(loss):
                loss.backward()
                opt.step()
            return loss
        return step
    c, eager = jit.compile(make(model)), make(twin)
    rng = np.random.default_rng(0)
    for i in range(12):
        x = ea.tensor(rng.standard_normal((5, 4)).astype(np.float32))
        y = ea.tensor(rng.standard_normal((5, 1)).astype(np.float32) * (np.nan if i in (6, 9) else 1))
        np.testing.assert_allclose(_np(c(x, y)), _np(eager(x, y)), rtol=1e-6)
    for p, q in zip(model.parameters(), twin.parameters()):
        np.testing.assert_allclose(_np(p), _np(q), rtol=1e-6, atol=1e-7)
    e = c.explain()
    assert e.graph_break_count == 0 and any("guard[bool(t) == True]" in ops for ops in e.ops_per_graph)


@pytest.mark.parametrize("before", ["dropout", "input_written", "optimizer_step"])
def test_a_branch_after_what_outlives_the_call_is_a_break(before):
    nn, optim = pytest.importorskip("ember.nn"), pytest.importorskip("ember.optim")
    w = nn.Parameter(ea.ones(3))
    w.grad = ea.ones(3)
    opt = optim.SGD([w], lr=0.1)
    drop = nn.Dropout(0.5)

    def f(x):
        if before == "dropout":
            y = drop(x)
        elif before == "input_written":
            y = x.mul_(2)
        else:
            opt.step()
            y = x * 1
        return y * 2 if y.sum() > 0 else y
    c = jit.compile(f)
    for _ in range(3):
        c(ea.ones(3))
    e = c.explain()
    what = {"dropout": "a random draw", "input_written": "op 'mul' writing a tensor made before the call",
            "optimizer_step": "SGD.step()"}[before]
    assert e.graph_count == 0 and e.graph_break_count == 1
    assert f"bool(tensor) reads a tensor's value on the host (a branch on it is a guard only where nothing " \
           f"before it outlives the call; {what} did)" in e.break_reasons[0]
    g = jit.compile(f, fullgraph=True)
    with pytest.raises(jit.Unsupported, match="a branch on it is a guard only where"):  # at the first call
        g(ea.ones(3))


def test_fullgraph_accepts_a_guarded_branch():
    c = jit.compile(by_any, fullgraph=True)
    for x in (_t(3), _t(3), _t(3) + 5, _t(3) - 5, _t(3)):
        np.testing.assert_array_equal(_np(c(x)), _np(by_any(x)))
    assert c.explain().graph_break_count == 0


def test_a_path_that_breaks_runs_eagerly_and_keeps_the_other_plans():
    def f(x):
        if x.sum() > 0:
            return x * 2
        return x * float(x.max())  # a break on this path only
    c = jit.compile(f)
    pos, neg = _t(3).abs(), -_t(3).abs() - 1
    for x in (pos, pos, pos, neg, neg, pos, neg):
        np.testing.assert_array_equal(_np(c(x)), _np(f(x)))
    e = c.explain()
    assert e.graph_count == 1 and e.graph_break_count == 1 and "float(tensor)" in e.break_reasons[0]
    assert c.captures == 2


def test_more_paths_than_the_cache_limit_run_eagerly_with_one_warning(monkeypatch):
    monkeypatch.setattr(config, "cache_size_limit", 2)
    c = jit.compile(by_int)
    x = _t(2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for n in (1, 1, 2, 3, 4, 3, 1, 2):
            np.testing.assert_array_equal(_np(c(x, ea.tensor(n))), _np(by_int(x, ea.tensor(n))))
    msgs = [str(m.message) for m in w if "paths through branches on tensor values" in str(m.message)]
    assert len(msgs) == 1 and "config.cache_size_limit" in msgs[0]
    assert c.explain().graph_count == 2
