"""config.whole_plan: runs of a plan's kernels emitted as one generated Numba function (NOTE [ The whole plan as
one function ] in ember.jit.wholeplan), against the per-node replay it replaces."""

from __future__ import annotations

import re

import numpy as np
import pytest

import ember.autograd as ea
import ember.jit as jit


def _t(*shape, seed=0, grad=False):
    rng = np.random.default_rng(seed)
    return ea.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=grad)


def _count_calls(fn) -> list:
    """Wrap every kernel the replay of compiled `fn` calls from Python (its globals: a node's kernel `f<k>`, a
    run's function `W<k>`, a fused launch's entry point `L<k>__call`); the list fills with their names."""
    (entry,) = fn._cache.values()
    g = entry.replay.__globals__
    calls = []

    def wrap(name, f):
        def counted(*a, **k):
            calls.append(name)
            return f(*a, **k)
        return counted

    for name, f in list(g.items()):
        if callable(f) and re.fullmatch(r"f\d+|W\d+|L\d+__call|L\d+__dispatch", name):
            g[name] = wrap(name, f)
    return calls


def _mlp_forward(x, w1, b1, w2, b2):
    return ((x @ w1.t() + b1).relu() @ w2.t() + b2).tanh()


def _params():
    return _t(16, 8, seed=1), _t(16, seed=2), _t(4, 16, seed=3), _t(4, seed=4)


def _run(monkeypatch, whole: bool, calls: int = 4):
    monkeypatch.setattr(jit.config, "whole_plan", whole)
    x = _t(32, 8)
    ps = _params()
    fn = jit.compile(_mlp_forward)
    for _ in range(calls - 1):
        fn(x, *ps)
    counted = _count_calls(fn)
    return fn(x, *ps), counted, fn


def test_a_plan_whose_kernels_all_run_in_numba_is_one_call_with_the_per_node_replays_bits(monkeypatch):
    pytest.importorskip("scipy")  # Numba's np.dot (the runs' mm) calls scipy's BLAS
    per_node, calls_off, _ = _run(monkeypatch, False)
    whole, calls_on, fn = _run(monkeypatch, True)
    assert len(calls_off) == 4  # mm, the fused bias+relu, mm, the fused bias+tanh: a call each
    assert calls_on == [n for n in calls_on if n.startswith("W")] and len(calls_on) == 1
    assert np.array_equal(whole.numpy(), per_node.numpy())
    (entry,) = fn._cache.values()
    assert "one Numba function" in entry.replay.source


def test_the_run_function_is_cached_on_disk_by_its_source(monkeypatch, tmp_path):
    pytest.importorskip("scipy")  # Numba's np.dot (the runs' mm) calls scipy's BLAS
    from ember.jit import wholeplan

    monkeypatch.setattr(jit.config, "fuse_cache_dir", str(tmp_path))
    monkeypatch.setattr(wholeplan, "_loaded", {})  # this process's functions, by source
    _run(monkeypatch, True)
    files = [p.name for p in tmp_path.iterdir() if p.name.startswith("ember_plan_")]
    assert len(files) == 1
    src = (tmp_path / files[0]).read_text()
    assert "cache=True" in src and "nogil=True" in src and "gemm(" in src
    assert any(fn.source == src for fn in wholeplan._loaded.values())


def test_switch_off_gives_the_per_node_replay(monkeypatch):
    _, calls, fn = _run(monkeypatch, False)
    (entry,) = fn._cache.values()
    assert "one Numba function" not in entry.replay.source
    assert not any(n.startswith("W") for n in calls)


def test_a_node_that_cannot_run_in_numba_splits_the_plan_into_runs(monkeypatch):
    pytest.importorskip("scipy")  # Numba's np.dot (the runs' mm) calls scipy's BLAS
    def f(x, w1, b1, w2, b2):  # softmax is no kernel a run takes: the runs end before it and start after it
        h = (x @ w1.t() + b1).relu() @ w2.t()
        return (h.softmax(-1) @ w2 + b1).relu() @ w1

    outs = {}
    for whole in (False, True):
        monkeypatch.setattr(jit.config, "whole_plan", whole)
        x = _t(32, 8)
        ps = _params()
        fn = jit.compile(f)
        for _ in range(3):
            fn(x, *ps)
        calls = _count_calls(fn)
        outs[whole] = (fn(x, *ps).numpy(), calls, next(iter(fn._cache.values())).replay.source)
    assert np.array_equal(outs[True][0], outs[False][0])
    runs = [n for n in outs[True][1] if n.startswith("W")]
    assert len(runs) == 2 and "# softmax" in outs[True][2]
    assert len(outs[True][1]) < len(outs[False][1])


def test_gradients_and_a_training_run_match_the_per_node_replay(monkeypatch):
    pytest.importorskip("scipy")  # Numba's np.dot (the runs' mm) calls scipy's BLAS
    nn = pytest.importorskip("ember.nn")
    optim = pytest.importorskip("ember.optim")

    def train(whole: bool):
        monkeypatch.setattr(jit.config, "whole_plan", whole)
        ea.manual_seed(0)
        model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 4))
        opt = optim.Adam(model.parameters(), lr=1e-2)
        loss_fn = nn.CrossEntropyLoss()

        def step(x, y):
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            return loss

        fn = jit.compile(step)
        rng = np.random.default_rng(0)
        losses = []
        for _ in range(100):
            x = ea.tensor(rng.standard_normal((16, 8)).astype(np.float32))
            y = ea.tensor(rng.integers(0, 4, 16))
            losses.append(fn(x, y).item())
        src = next(iter(fn._cache.values())).replay.source
        return losses, [p.grad.numpy().copy() for p in model.parameters()], src

    off, g_off, _ = train(False)
    on, g_on, src = train(True)
    assert src.count("one Numba function") >= 2  # the forward's and the backward's GEMMs and fused groups
    assert on == off
    assert all(np.array_equal(a, b) for a, b in zip(g_on, g_off))


def test_bad_input_raises_eagers_error_before_the_run(monkeypatch):
    monkeypatch.setattr(jit.config, "whole_plan", True)
    x = _t(32, 8)
    ps = _params()
    fn = jit.compile(_mlp_forward)
    for _ in range(3):
        fn(x, *ps)
    bad = _t(32, 7)
    with pytest.raises(RuntimeError) as got:
        fn(bad, *ps)
    with pytest.raises(RuntimeError) as want:
        _mlp_forward(bad, *ps)
    assert str(got.value) == str(want.value)


def test_scipys_blas_gets_numpys_thread_count():
    # Numba's np.dot calls scipy's BLAS, loaded after a thread limit on numpy's: it would keep its own count
    pytest.importorskip("scipy")
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from ember.jit import wholeplan

    wholeplan._match_blas_threads()
    blas = [c for c in threadpoolctl.ThreadpoolController().lib_controllers if c.user_api == "blas"]
    mine = [c for c in blas if "numpy" in c.filepath]
    others = [c for c in blas if "numpy" not in c.filepath]
    if not mine or not others:
        pytest.skip("one BLAS only")
    before = mine[0].num_threads
    try:
        others[0].set_num_threads(before + 1)
        wholeplan._match_blas_threads()
        assert [c.num_threads for c in blas] == [before] * len(blas)
    finally:
        for c in blas:
            c.set_num_threads(before)


def test_a_run_numba_cannot_compile_keeps_its_nodes_lines(monkeypatch):
    from ember.jit import wholeplan

    def refuse(r, g):
        raise TypeError("no types for this run")

    monkeypatch.setattr(wholeplan, "_signature", refuse)
    got, calls, fn = _run(monkeypatch, True)
    monkeypatch.undo()
    want, _, _ = _run(monkeypatch, False)
    (entry,) = fn._cache.values()
    assert "one Numba function" not in entry.replay.source and len(calls) == 4
    assert np.array_equal(got.numpy(), want.numpy())


def test_results_eager_lays_out_column_major_keep_their_layout(monkeypatch):
    # a ufunc of transposed operands gives a column-major result in eager; its views follow those strides
    def f(a, b, w):
        s = a.t() + b.t()  # (16, 8), column-major
        return ((s.t() @ w) * (w @ s).sum()).relu() @ (a.t() * b.t())

    outs = []
    for whole in (False, True):
        monkeypatch.setattr(jit.config, "whole_plan", whole)
        args = (_t(8, 16, seed=5), _t(8, 16, seed=6), _t(16, 16, seed=7))
        fn = jit.compile(f)
        for _ in range(3):
            fn(*args)
        outs.append(fn(*args).numpy())
    want = f(*(_t(8, 16, seed=5), _t(8, 16, seed=6), _t(16, 16, seed=7))).numpy()
    assert np.array_equal(outs[0], want) and np.array_equal(outs[1], want)
