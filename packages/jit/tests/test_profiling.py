"""replay_profile: a compiled step's replay timed statement by statement, grouped by what each runs."""

from __future__ import annotations

import numpy as np
import pytest

import ember.autograd as ea
import ember.jit as jit
from ember.jit.profiling import replay_profile

nn = pytest.importorskip("ember.nn")
optim = pytest.importorskip("ember.optim")


def _step(logit: bool = False):
    """An MLP's Adam step and its batch: 4 classes and cross entropy, or (`logit`) one logit squeezed into
    binary cross entropy with logits."""
    ea.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1 if logit else 4))
    opt = optim.Adam(model.parameters(), lr=0.01)

    def step(x, y):
        opt.zero_grad()
        out = model(x)
        loss = (nn.functional.binary_cross_entropy_with_logits(out.squeeze(-1), y) if logit
                else nn.functional.cross_entropy(out, y))
        loss.backward()
        opt.step()
        return loss

    rng = np.random.default_rng(0)
    y = ea.tensor(rng.random(5).astype(np.float32)) if logit else ea.tensor(rng.integers(0, 4, 5))
    return step, (ea.tensor(rng.standard_normal((5, 8)).astype(np.float32)), y)


def test_profile_rows_name_the_plans_ops_and_leave_the_replay_as_it_was(monkeypatch):
    monkeypatch.setattr(jit.config, "whole_plan", False)  # a row per node (a run is one statement)
    step, args = _step()
    fn = jit.compile(step)
    for _ in range(jit.config.capture_call + 1):
        fn(*args)
    replay = next(iter(fn._cache.values())).replay
    rows = replay_profile(fn, *args, steps=5)
    names = {r[0] for r in rows}
    assert {"mm", "guards", "Adam.step, one pass"} <= names
    assert all(us >= 0 and n >= 1 for _, us, n in rows)
    assert [r[1] for r in rows] == sorted((r[1] for r in rows), reverse=True)
    # every op of the plan is counted once: as many statements as the replay has kernel calls of each op
    assert dict((r[0], r[2]) for r in rows)["mm"] == fn.explain().ops_per_graph[0].count("mm")
    assert next(iter(fn._cache.values())).replay is replay


def test_profile_of_a_function_without_a_plan_raises():
    step, args = _step()
    with pytest.raises(ValueError, match="expected one captured plan, found 0"):
        replay_profile(jit.compile(step), *args, steps=1)



def test_profiled_steps_launch_fused_kernels_through_their_entry_points(monkeypatch):
    # the profile times a copy of the replay: each fused launch written into the replay (here the loss's group after
    # a squeeze) must call its compiled entry point there, not the first-call path (dispatcher and signature
    # lookup) at every profiled step. With the background compile the fused plan swaps in unused, as in a
    # benchmark that profiles right after `wait_for_compiles()`
    monkeypatch.setattr(jit.config, "whole_plan", False)
    monkeypatch.setattr(jit.config, "background_compile", True)
    step, args = _step(logit=True)
    fn = jit.compile(step)
    for _ in range(jit.config.capture_call + 1):
        fn(*args)
    jit.wait_for_compiles()
    g = next(iter(fn._cache.values())).replay.__globals__
    firsts = [v for k, v in g.items() if k.endswith("__call") and getattr(v, "__name__", "") == "first"]
    assert firsts  # launches whose first call is still to come
    runs = [dict(zip(f.__code__.co_freevars, (c.cell_contents for c in f.__closure__)))["run"] for f in firsts]
    replay_profile(fn, *args, steps=4)
    assert [r.dispatched for r in runs] == [1] * len(runs)
