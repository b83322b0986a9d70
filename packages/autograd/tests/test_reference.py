"""A micrograd-style oracle: a small expression's value and gradients, derived by hand in float64
numpy, against ember's forward and backward."""

from __future__ import annotations

import numpy as np

import ember.autograd as E


def test_expression_matches_hand_derived_gradients():
    av, bv = np.array([-4.0, 2.5]), np.array([2.0, -1.5])
    a = E.tensor(av, dtype=E.float64, requires_grad=True)
    b = E.tensor(bv, dtype=E.float64, requires_grad=True)
    c = a + b
    d = a * b + b ** 3
    c = c + c + 1
    c = c + 1 + c + (-a)
    d = d + d * 2 + (b + a).relu()
    d = d + 3 * d + (b - a).relu()
    e = c - d
    f = e ** 2
    g = f / 2.0
    g = g + 10.0 / f
    g.sum().backward()

    # the same expression by hand, forward
    c1 = av + bv
    d1 = av * bv + bv ** 3
    c2 = 2 * c1 + 1
    c3 = 2 * c2 + 1 - av
    d2 = 3 * d1 + np.maximum(bv + av, 0)
    d3 = 4 * d2 + np.maximum(bv - av, 0)
    e1 = c3 - d3
    f1 = e1 ** 2
    g1 = f1 / 2 + 10 / f1
    assert np.allclose(g.detach().numpy(), g1)
    # backward, by the chain rule
    df = 0.5 - 10 / f1 ** 2
    de = df * 2 * e1
    dc3, dd3 = de, -de
    dd2 = 4 * dd3
    rb_a = (bv - av > 0) * dd3  # d relu(b - a)
    dd1 = 3 * dd2
    r_ab = (bv + av > 0) * dd2  # d relu(b + a)
    dc2 = 2 * dc3
    dc1 = 2 * dc2
    da = dc1 - dc3 + dd1 * bv + r_ab - rb_a
    db = dc1 + dd1 * (av + 3 * bv ** 2) + r_ab + rb_a
    assert np.allclose(a.grad.numpy(), da) and np.allclose(b.grad.numpy(), db)


def test_mlp_step_matches_numpy():
    rng = np.random.default_rng(0)
    xv, w1v, w2v = rng.normal(size=(5, 3)), rng.normal(size=(3, 4)), rng.normal(size=(4, 1))
    x = E.tensor(xv, dtype=E.float64)
    w1 = E.tensor(w1v, dtype=E.float64, requires_grad=True)
    w2 = E.tensor(w2v, dtype=E.float64, requires_grad=True)
    loss = ((x @ w1).tanh() @ w2).pow(2).mean()
    loss.backward()
    h = np.tanh(xv @ w1v)
    out = h @ w2v
    dout = 2 * out / out.size
    dw2 = h.T @ dout
    dh = dout @ w2v.T * (1 - h ** 2)
    dw1 = xv.T @ dh
    assert np.isclose(loss.item(), (out ** 2).mean())
    assert np.allclose(w1.grad.numpy(), dw1) and np.allclose(w2.grad.numpy(), dw2)
