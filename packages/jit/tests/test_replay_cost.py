"""The fast paths of a replay (NOTE [ The cost of a replay ]): the generated guard check of the last plan,
the guards' one-loop key and the fused kernels' generated launch. Each answers as the slow path would."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import ember.autograd as ea
import ember.jit as jit
from ember.core.dispatch import get_op
from ember.core.storage import Storage
from ember.core.tensor import Tensor
from ember.jit.compiler import _fast_values, _guard_check
from ember.jit.fusion import FusedOp


def _t(*shape, seed=0, dtype=np.float32, requires_grad=False):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return ea.tensor(a, requires_grad=requires_grad)


def _np(t):
    return t.detach().numpy()


def _variants() -> list[tuple]:
    """Calls that differ from one another in one guard each (and some that differ in none)."""
    x, y = _t(3, 4), _t(3, 4, seed=1)
    leaf = _t(3, 4, requires_grad=True)
    return [(x,), (y,), (x.t(),), (x.double(),), (_t(4, 3),), (leaf,), (leaf * 2,), (x, x), (x, y), (y, x),
            (x, x[1:]), (x, 2.0), (x, 3.0), (x, 2), (x, True), (x, np.float64(2.0)), (x, None), (x, "a"),
            (x, [x]), (), (x, y, x), (x, y, y), (2.0, x), (x, 0.0), (x, -0.0), (x, float("nan")),
            (x, float("nan")), (x, np.float64(0.0)), (x, float("inf"))]


def test_guards_of_the_one_loop_path_equal_the_general_ones():
    c = jit.compile(lambda *a: a)
    for args in _variants():
        key, tensors = c._guards(args, {})
        key2, tensors2 = c._guards(args, {}, labels=[])  # the labelled call takes `_flatten`
        assert key == key2
        assert [id(t) for t in tensors] == [id(t) for t in tensors2]


@pytest.mark.parametrize("mode", ["plain", "no_grad", "inference", "autocast", "float64"])
def test_generated_guard_check_answers_as_key_equality(mode):
    c = jit.compile(lambda *a: a)
    variants = _variants()
    keys = {}
    for base in variants:
        if _fast_values(base, [], []):
            keys[len(keys)] = (base, c._guards(base, {})[0])
    assert len(keys) >= 20
    old = ea.get_default_dtype()
    ctx = {"plain": None, "no_grad": ea.no_grad(), "inference": ea.inference_mode(),
           "autocast": ea.autocast("cpu", dtype=ea.bfloat16), "float64": None}[mode]
    if mode == "float64":
        ea.set_default_dtype(ea.float64)
    try:
        if ctx is not None:
            ctx.__enter__()
        hits = 0
        for base, key in keys.values():
            check = _guard_check(key, len(base), None)
            for other in variants:
                got = check(other)
                other_key, tensors = c._guards(other, {})
                assert (got is not None) == (other_key == key), (base, other, check.source)
                if got is not None:
                    hits += 1
                    assert [id(t) for t in got] == [id(t) for t in tensors]
        assert (hits > 0) == (mode == "plain")  # the keys were made outside the mode: only "plain" matches
    finally:
        if ctx is not None:
            ctx.__exit__(None, None, None)
        ea.set_default_dtype(old)


def _counting(c, monkeypatch) -> list:
    """Count the calls that compute their guards in full (the last plan's check did not hold)."""
    calls = []
    full = c._guards

    def counted(*a, **k):
        calls.append(1)
        return full(*a, **k)

    monkeypatch.setattr(c, "_guards", counted)
    return calls


def test_a_replay_with_the_last_guards_skips_the_full_guards_and_a_change_captures_again(monkeypatch):
    def f(x, k):
        return (x * k).exp()

    monkeypatch.setattr(jit.config, "cache_size_limit", 16)
    c = jit.compile(f)
    full = _counting(c, monkeypatch)
    x = _t(3, 4)
    for _ in range(3):
        c(x, 2.0)
    assert c.captures == 1 and len(full) == 3  # the first replay finds the plan by its key, then makes the check
    for _ in range(5):
        c(x, 2.0)
    assert len(full) == 3
    leaf = _t(3, 4, requires_grad=True)
    changes = [(x.t().contiguous().t(), 2.0), (x.double(), 2.0), (leaf, 2.0), (leaf * 1, 2.0), (x, 3.0),
               (x, 2), (_t(3, 4, seed=3).expand(2, 3, 4), 2.0)]
    for n, args in enumerate(changes, start=2):
        for _ in range(3):
            r = c(*args)
        assert c.captures == n, args
        np.testing.assert_allclose(_np(r), _np(f(*args)), rtol=1e-5)  # fused exp: within an ulp
        assert r.dtype == f(*args).dtype and r.requires_grad == f(*args).requires_grad
    with ea.no_grad():
        for _ in range(3):
            r = c(leaf, 2.0)
    assert c.captures == len(changes) + 2 and not r.requires_grad


def test_the_generated_check_of_a_compiled_module_sees_its_training_flags(monkeypatch):
    nn = pytest.importorskip("ember.nn")
    m = nn.Sequential(nn.Linear(4, 64), nn.Dropout(0.5))
    c = jit.compile(m)
    full = _counting(c._compiled, monkeypatch)
    x = _t(2, 4)
    m.eval()
    for _ in range(4):
        r = c(x)
    np.testing.assert_array_equal(_np(r), _np(m(x)))
    assert len(full) == 3 and c._compiled.captures == 1
    m.train()  # only the flags differ: the check of the eval plan fails, the full guards pick another entry
    for _ in range(3):
        r = c(x)
    assert len(full) == 6 and c._compiled.captures == 2
    assert (_np(r) == 0).any()  # dropout ran
    m.eval()
    r = c(x)
    np.testing.assert_array_equal(_np(r), _np(m(x)))
    assert len(full) == 7 and c._compiled.captures == 2


@pytest.fixture()
def fused(monkeypatch):
    monkeypatch.setattr(jit.config, "fuse", True)


def chain(x):
    y = (x * 1.5 + 0.25).sin()
    y = (y * y - 0.5).exp().tanh() / 3.0
    return y.sigmoid() + x


def _run(c):
    """The generated launch of the (one) fused node of `c`'s plan."""
    (plan,) = c.explain().plans
    (node,) = [n for n in plan.nodes if isinstance(n.op, FusedOp)]
    return node.kernel


def test_fused_results_are_made_as_tensor_wrap_makes_them(fused):
    c = jit.compile(chain)
    x = _t(10, 10)
    for _ in range(3):
        r = c(x)
    ref = Tensor._wrap(_np(r).copy())
    for name in Tensor.__slots__:
        assert hasattr(r, name) == hasattr(ref, name), name
    for name in ("_offset", "_shape", "_strides", "_dtype", "_requires_grad", "_grad", "_grad_fn", "_ag"):
        assert getattr(r, name) == getattr(ref, name), name
    assert r._npc[0] is r._storage._raw and r._npc[1].shape == (10, 10)
    for name in Storage.__slots__:
        if name != "__weakref__":
            assert hasattr(r._storage, name) == hasattr(ref._storage, name), name
    for name in ("_bytes", "_block", "_shared", "nbytes", "device", "version"):
        assert getattr(r._storage, name) == getattr(ref._storage, name), name
    np.testing.assert_array_equal(r._storage.data, ref._storage.data)
    r.add_(1.0)  # a result is an ordinary tensor: written in place, its version counts
    assert r._storage.version == 1


def test_fused_launch_calls_the_entry_point_after_the_first_call(fused):
    c = jit.compile(chain)
    x = _t(10, 10)
    for _ in range(3):
        c(x)
    run = _run(c)
    assert run.dispatched == 1 and run.direct is not None
    for seed in range(5):
        x = _t(10, 10, seed=seed)
        np.testing.assert_allclose(_np(c(x)), _np(chain(x)), rtol=1e-5, atol=1e-6)
    assert run.dispatched == 1


def test_fused_launch_takes_the_dispatcher_for_another_dtype_and_refuses_another_shape(fused):
    c = jit.compile(chain)
    x = _t(10, 10)
    for _ in range(3):
        c(x)
    run = _run(c)
    x64 = _t(10, 10, dtype=np.float64)
    (r,) = run(x64)  # the group's kernel, called on float64 values: the dispatcher picks that signature
    assert run.dispatched == 2
    np.testing.assert_allclose(_np(r), _np(chain(x64)), rtol=1e-5, atol=1e-6)
    (r,) = run(x)
    assert run.dispatched == 2
    with pytest.raises(RuntimeError, match=r"planned for inputs of shape \(10, 10\), got one of shape \(5, 10\)"):
        run(_t(5, 10))
    assert run.dispatched == 2


def test_a_fused_plan_captures_again_when_a_constant_it_reads_is_re_pointed(fused):
    w = _t(2, 3, seed=4)
    f = lambda x: (x * w + 1.0).exp()  # noqa: E731
    c = jit.compile(f)
    x = _t(2, 3)
    for _ in range(3):
        c(x)
    assert c.captures == 1
    for n, new in enumerate((_t(1, 3, seed=5), _t(2, 3, seed=6, dtype=np.float64), _t(3, 2, seed=7).t()), start=2):
        w.data = new  # smaller, another dtype, other strides: the fused kernel was made for none of them
        for _ in range(3):
            r = c(x)
        assert c.captures == n
        np.testing.assert_allclose(_np(r), _np(f(x)), rtol=1e-6)
        assert r.dtype == f(x).dtype


@pytest.mark.parametrize("fuse", [False, True])
def test_a_view_of_a_constant_made_once_follows_the_constant_re_pointed(monkeypatch, fuse):
    monkeypatch.setattr(jit.config, "whole_plan", False)  # the per-node replay's hoisted view
    monkeypatch.setattr(jit.config, "fuse", fuse)
    w = _t(4, 3, seed=2)
    f = lambda x: (x * w.t() + 1.0).exp()  # noqa: E731
    c = jit.compile(f)
    x = _t(3, 4)
    for _ in range(3):
        c(x)
    (entry,) = c._cache.values()
    assert "(_h := h" in entry.replay.source  # the transpose is made at codegen, and reused while w is unchanged
    w.copy_(_t(4, 3, seed=3))  # in place: the same storage, read by the same view
    np.testing.assert_allclose(_np(c(x)), _np(f(x)), rtol=1e-6)
    old = weakref.ref(w._storage)
    w.data = _t(4, 3, seed=4)  # re-pointed to another storage of the same geometry: the view is made afresh
    np.testing.assert_allclose(_np(c(x)), _np(f(x)), rtol=1e-6)
    gc.collect()
    assert old() is None  # the plan keeps the view of the new storage, not the old one
    np.testing.assert_allclose(_np(c(x)), _np(f(x)), rtol=1e-6)
    w.data = _t(5, 3, seed=5)[1:]  # another storage, at an offset
    np.testing.assert_allclose(_np(c(x)), _np(f(x)), rtol=1e-6)
    assert c.captures == 1


def test_calls_with_many_tensors_or_keywords_keep_the_general_path(monkeypatch):
    c = jit.compile(lambda *ts, k=1.0: sum(t * k for t in ts))
    full = _counting(c, monkeypatch)
    many = [_t(2, seed=i) for i in range(9)]  # more than the check's pairwise storage tests cover
    for _ in range(5):
        r = c(*many)
    np.testing.assert_array_equal(_np(r), _np(sum(many)))
    assert len(full) == 5 and c._hot is None
    few = many[:3]
    for _ in range(5):
        c(*few, k=2.0)
    assert len(full) == 10 and c._hot is None
    for _ in range(5):
        r = c(*few)
    assert len(full) == 13 and c._hot is not None  # 2 eager (capture on the 2nd), the 3rd makes the check
    np.testing.assert_array_equal(_np(r), _np(sum(few)))


def test_training_flags_are_read_in_modules_order_each_module_once():
    nn = pytest.importorskip("ember.nn")
    from ember.jit.compiler import _training_flags

    shared = nn.Linear(2, 2)
    inner = nn.Sequential(shared, nn.ReLU(), nn.Dropout(0.1))
    m = nn.Sequential(nn.Linear(2, 2), inner, shared, nn.Sequential(inner, nn.Tanh()))
    inner[2].eval()
    m[3][1].eval()
    m.add_module("none", None)
    assert _training_flags(m) == tuple(bool(s.training) for s in m.modules())
    assert len(_training_flags(m)) == len(list(m.modules())) == 8


def test_a_fused_launch_is_written_into_the_replay_and_drops_its_temporaries(fused):
    def f(x):
        y = x * 2.0 + 1.0  # fused, written out: read by amax (which no group takes) and by the next group
        return y.amax(), (y * y).exp()

    c = jit.compile(f)
    x = _t(10, 10)
    for _ in range(3):
        s, e = c(x)
    (entry,) = c._cache.values()
    src = entry.replay.source
    assert "_call(" in src and src.count("del L") == 2  # two launches inline, each deleting its temporaries
    ref_s, ref_e = f(x)
    np.testing.assert_allclose(_np(s), _np(ref_s), rtol=1e-5)
    np.testing.assert_allclose(_np(e), _np(ref_e), rtol=1e-5)
    run = _run_of(c, 0)
    assert run.dispatched == 1 and run.direct is not None  # the replay's calls took the entry point too


def _run_of(c, k):
    (plan,) = c.explain().plans
    return [n for n in plan.nodes if isinstance(n.op, FusedOp)][k].kernel


def test_a_negative_zero_or_nan_argument_is_guarded_by_its_bits():
    c = jit.compile(lambda x, k: x * k)
    x = _t(3)
    for _ in range(3):
        c(x, 0.0)
    r = c(x, -0.0)  # x * -0.0 has the other sign: another plan, not the replay of 0.0's
    np.testing.assert_array_equal(np.signbit(_np(r)), np.signbit(_np(x * -0.0)))
    assert len(c._cache) == 2
    for _ in range(12):  # every NaN is one key: one plan, not a new entry per call up to the cache limit
        r = c(x, float("nan"))
    assert len(c._cache) == 3 and c.captures == 2 and np.isnan(_np(r)).all()


def test_meta_steps_of_fixed_geometry_are_skipped_and_a_re_pointed_constant_captures_again(monkeypatch):
    # mm's meta step reads only shapes the guards and the constants' tests fix: the replay calls no meta step
    # for it (counted), keeps embedding's, whose meta step reads the indices, and a constant re-pointed to a
    # shape mm refuses captures again and raises eager's error, never reaching the kernel
    nn = pytest.importorskip("ember.nn")
    monkeypatch.setattr(jit.config, "fuse", False)
    w, table = _t(3, 4), _t(6, 3, seed=1)
    f = lambda x, i: ea.mm(x, w) * 2.0 + nn.functional.embedding(i, table).sum()  # noqa: E731
    x, i = _t(2, 3, seed=2), ea.tensor([0, 5])
    calls = {"mm": 0}
    op = get_op("mm")
    original = op.check

    def counted(*a, **k):
        calls["mm"] += 1
        return original(*a, **k)

    monkeypatch.setattr(op, "check", counted)
    c = jit.compile(f)
    for _ in range(3):
        c(x, i)
    before = calls["mm"]
    for _ in range(4):
        np.testing.assert_array_equal(_np(c(x, i)), _np(f(x, i)))
    assert calls["mm"] == before + 4  # eager's four calls above; the four replays none
    with pytest.raises(IndexError, match="index out of range in self"):
        c(x, ea.tensor([0, 6]))  # embedding's check still runs at replay
    w.data = _t(5, 4, seed=3)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 5x4\)"):
        c(x, i)
    assert c.captures == 2  # the re-pointed constant failed its test: a capture, whose eager call raised
