"""Fused kernels compiled on a thread while the first replays run unfused (NOTE [ Fused kernels compiled in the
background ] in ember.jit.background): the same bits before and after the swap, one compile per kernel (the
thread's argument types are the launch's), plans that a swap could change compiled at once, failures and forks."""

import os
import threading

import numpy as np
import pytest

import ember.autograd as ea
import ember.jit as jit
from ember.jit import background, codegen, config
from ember.jit.fusion import FusedOp
from ember.jit.graph import OpNode

_real_start = background.start  # the fixture replaces it: the tests start the thread themselves


@pytest.fixture
def fresh_kernels(monkeypatch, tmp_path):
    """Background compiles on, and kernels generated anew into an empty cache (nothing compiled yet)."""
    monkeypatch.setattr(config, "background_compile", True)
    monkeypatch.setattr(config, "fuse_cache_dir", str(tmp_path))
    monkeypatch.setattr(codegen, "_kernels", {})
    started = []
    monkeypatch.setattr(background, "start", lambda todo, ready: started.append((todo, ready)))
    return started


def _step(x, b):
    y = ((x * 1.5).sin() + x).tanh().neg()  # a flat group
    z = ((x + b).relu() * 0.5).exp()  # a rows x cols nest: b is one row
    return y, z


def _fused_nodes(c):
    (entry,) = c._cache.values()
    ((graph, _),) = entry.plans
    return entry, [n for n in graph.nodes if isinstance(n, OpNode) and isinstance(n.op, FusedOp)]


def _flat(x, b):
    return ((x * 1.5).cos() - x).sigmoid() * x, (x * 3.0).exp() + 1.0  # flat groups (b unused)


@pytest.mark.parametrize("step", [_step, _flat])
def test_first_replays_run_unfused_until_the_thread_swaps_the_fused_plan_in(fresh_kernels, step):
    rng = np.random.default_rng(0)
    x = ea.from_numpy(rng.standard_normal((6, 40)).astype(np.float32))
    b = ea.from_numpy(rng.standard_normal(40).astype(np.float32))
    want = [t.numpy() for t in step(x, b)]
    c = jit.compile(step)
    for _ in range(config.capture_call + 2):
        got = c(x, b)
        assert all(np.array_equal(g.numpy(), w) for g, w in zip(got, want))
    entry, fused = _fused_nodes(c)
    assert fused and "# fused[" not in entry.replay.source  # the unfused replay runs
    ((todo, ready),) = fresh_kernels
    kernels = [n.kernel.whole[1] for n in fused]
    assert [f.__self__ for f, _ in todo] == kernels
    assert all(len(k.signatures) == 0 for k in kernels)
    plain = entry.replay
    _real_start(todo, ready)
    jit.wait_for_compiles()
    assert entry.replay is not plain and "# fused[" in entry.replay.source
    for _ in range(3):
        got = c(x, b)
        assert all(np.array_equal(g.numpy(), w) for g, w in zip(got, want))
    assert all(len(k.signatures) == 1 for k in kernels)  # the thread compiled the launch's own types: once



def test_a_plan_whose_fused_sum_changes_bits_compiles_at_its_first_replay(fresh_kernels):
    c = jit.compile(lambda x: ((x * 2.0).exp() + x).sum(-1))  # a sum over each row: float64 accumulators
    x = ea.from_numpy(np.linspace(-1, 1, 48, dtype=np.float32).reshape(4, 12))
    for _ in range(config.capture_call + 1):
        c(x)
    entry, fused = _fused_nodes(c)
    assert [n.kernel.exact for n in fused] == [False]
    assert "# fused[" in entry.replay.source and fresh_kernels == []


def test_kernels_already_compiled_need_no_thread(fresh_kernels):
    x = ea.from_numpy(np.ones((3, 5), np.float32))
    b = ea.from_numpy(np.ones(5, np.float32))
    for _ in range(2):  # the second compiled function finds the first one's kernels compiled
        c = jit.compile(_step)
        for _ in range(config.capture_call + 1):
            c(x, b)
        if fresh_kernels:
            (todo, ready), = fresh_kernels
            _real_start(todo, ready)
            jit.wait_for_compiles()
    entry, _ = _fused_nodes(c)
    assert "# fused[" in entry.replay.source and len(fresh_kernels) == 1


def _failing(sig):
    raise TypeError("no matching definition")


def test_a_failed_compile_keeps_the_unfused_plan_and_warns():
    swapped = []
    with pytest.warns(RuntimeWarning, match="compiling a plan's fused kernels failed .TypeError: no matching"):
        _real_start([(_failing, ((),))], lambda: swapped.append(1))
        jit.wait_for_compiles()
    assert swapped == []


class _Slow:
    def __init__(self, gate: threading.Event) -> None:
        self.gate, self.done = gate, False

    def compile(self, sig):
        self.gate.wait(30)
        self.done = True


def test_fork_waits_for_pending_compiles():
    gate = threading.Event()
    kern = _Slow(gate)
    _real_start([(kern.compile, ((),))], lambda: None)
    threading.Timer(0.2, gate.set).start()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: was the compile over when it was forked?
        os.write(w, b"1" if kern.done else b"0")
        os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(r, 1) == b"1"


def test_replay_profile_times_the_fused_plan(monkeypatch, tmp_path):
    from ember.jit.profiling import replay_profile

    monkeypatch.setattr(config, "background_compile", True)
    monkeypatch.setattr(config, "fuse_cache_dir", str(tmp_path))
    monkeypatch.setattr(codegen, "_kernels", {})
    gate = threading.Event()  # the compile waits for it: the profile must wait for the compile
    monkeypatch.setattr(background, "start", lambda todo, ready: _real_start([(gate.wait, (30,)), *todo], ready))
    c = jit.compile(_step)
    x, b = ea.from_numpy(np.ones((3, 5), np.float32)), ea.from_numpy(np.ones(5, np.float32))
    for _ in range(config.capture_call + 1):
        c(x, b)
    (entry,) = c._cache.values()
    assert "# fused[" not in entry.replay.source
    threading.Timer(0.3, gate.set).start()
    rows = replay_profile(c, x, b, steps=3)
    assert any(label.startswith("fused[") for label, _, _ in rows), rows
