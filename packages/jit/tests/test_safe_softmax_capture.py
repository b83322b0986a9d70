"""Masked attention's `_safe_softmax` is captured as one op: a compiled step replays to eager's bits,
all -inf rows zero in value and gradient."""

from __future__ import annotations

import numpy as np

import ember.autograd as ea
import ember.jit as jit


def test_safe_softmax_step_replays_to_eager_bits():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4, 9))
    x[rng.random(x.shape) < 0.3] = -np.inf
    x[0, 1] = -np.inf
    g = ea.from_numpy(rng.standard_normal(x.shape))

    def f(t):
        t.grad = None
        y = ea._safe_softmax(t, -1)
        y.backward(g)
        return y.detach(), t.grad

    eager = f(ea.from_numpy(x).requires_grad_(True))
    c = jit.compile(f)
    t = ea.from_numpy(x).requires_grad_(True)
    for _ in range(3):
        got = c(t)
    for a, b in zip(eager, got):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert (got[0].numpy()[0, 1] == 0).all() and (got[1].numpy()[0, 1] == 0).all()
    ex = c.explain()
    assert c.captures == 1 and ex.graph_break_count == 0
    assert any("_safe_softmax" in str(op) for ops in ex.ops_per_graph for op in ops)
