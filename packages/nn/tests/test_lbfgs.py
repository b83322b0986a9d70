"""LBFGS: PyTorch's trajectories (fixed step and strong-Wolfe line search) on a small nonlinear least
squares fit, hard-coded from PyTorch 2.13 and compared live when PyTorch is installed; a quadratic's
exact minimum; argument errors."""

import numpy as np
import pytest

import ember.autograd as ea
from ember import optim
from ember.optim.lbfgs import _cubic_interpolate

rng = np.random.default_rng(0)
X = rng.standard_normal((20, 3)).astype(np.float32)
Y = np.tanh(X @ np.array([[1.5], [-2.0], [0.5]], np.float32)) + 0.1

# torch.optim.LBFGS(lr=1, max_iter=5, history_size=4), three steps, as PyTorch 2.13 gives them
TORCH = {
    None: ([0.5081691145896912, 0.011000041849911213, 1.2244958270457573e-05],
           [1.4995129, -1.9992245, 0.50009304], 15, 15),
    "strong_wolfe": ([0.5081691145896912, 0.011000041849911213, 0.00038410743582062423],
                     [1.5000048, -2.0000088, 0.5000263], 18, 14),
}


def fit(lib, optim_mod, line_search_fn, steps=3):
    W = lib.tensor(np.full((3, 1), 0.1, np.float32), requires_grad=True)
    b = lib.zeros(1, requires_grad=True)
    opt = optim_mod.LBFGS([W, b], lr=1, max_iter=5, history_size=4, line_search_fn=line_search_fn)
    x, y = lib.tensor(X), lib.tensor(Y)

    def closure():
        opt.zero_grad()
        loss = ((lib.tanh(x @ W) + b - y) ** 2).mean()
        loss.backward()
        return loss

    losses = [float(opt.step(closure).detach()) for _ in range(steps)]
    st = opt.state[W]
    return losses, W.detach().numpy().ravel().tolist(), st["func_evals"], st["n_iter"]


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_follows_pytorch_trajectory(line_search_fn):
    losses, w, evals, n_iter = fit(ea, optim, line_search_fn)
    t_losses, t_w, t_evals, t_iter = TORCH[line_search_fn]
    np.testing.assert_allclose(losses, t_losses, rtol=1e-3, atol=1e-7)
    np.testing.assert_allclose(w, t_w, rtol=1e-4, atol=1e-5)
    assert (evals, n_iter) == (t_evals, t_iter)


@pytest.mark.torch
@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_matches_live_pytorch(line_search_fn):
    torch = pytest.importorskip("torch")
    ours, theirs = fit(ea, optim, line_search_fn), fit(torch, torch.optim, line_search_fn)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-3, atol=1e-7)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-4, atol=1e-5)
    assert ours[2:] == theirs[2:]


def test_lbfgs_minimises_a_quadratic_exactly():
    A = np.array([[3.0, 0.5], [0.5, 1.0]])
    bvec = np.array([1.0, -2.0])
    x = ea.zeros(2, dtype=ea.float64, requires_grad=True)
    opt = optim.LBFGS([x], line_search_fn="strong_wolfe", tolerance_grad=1e-12, tolerance_change=1e-14)
    At, bt = ea.tensor(A), ea.tensor(bvec)

    def closure():
        opt.zero_grad()
        loss = 0.5 * (x @ (At @ x)) - bt @ x
        loss.backward()
        return loss

    import importlib
    import warnings

    importlib.import_module("ember.core.tensor")._scalar_of_grad_warned = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PyTorch reads the losses under the step's no_grad: no warning
        opt.step(closure)
    np.testing.assert_allclose(x.detach().numpy(), np.linalg.solve(A, bvec), atol=1e-8)


def test_cubic_interpolate_finds_a_cubics_minimum():
    # f(x) = (x - 1)^2 sampled at 0 and 3: the interpolating cubic is the parabola, minimum at 1
    assert _cubic_interpolate(0.0, 1.0, -2.0, 3.0, 4.0, 4.0) == pytest.approx(1.0)
    # no real minimiser: the midpoint of the bounds
    assert _cubic_interpolate(0.0, 0.0, 1.0, 1.0, 2 / 3, 1.0, bounds=(0.0, 3.0)) == pytest.approx(1.5)


def test_lbfgs_argument_errors():
    p = ea.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="per-parameter options"):
        optim.LBFGS([{"params": [p]}, {"params": [ea.zeros(1, requires_grad=True)]}])
    with pytest.raises(ValueError, match="Invalid learning rate"):
        optim.LBFGS([p], lr=-1)


def test_lbfgs_state_holds_pytorchs_keys():
    W = ea.tensor(np.full((3, 1), 0.1, np.float32), requires_grad=True)
    opt = optim.LBFGS([W], max_iter=3, history_size=4)

    def closure():
        opt.zero_grad()
        loss = ((ea.tanh(ea.tensor(X) @ W) - ea.tensor(Y)) ** 2).mean()
        loss.backward()
        return loss

    opt.step(closure)
    assert sorted(opt.state_dict()["state"][0]) == ["H_diag", "al", "d", "func_evals", "n_iter", "old_dirs",
                                                    "old_stps", "prev_flat_grad", "prev_loss", "ro", "t"]
    assert len(opt.state[W]["al"]) == 4


def test_strong_wolfe_stops_at_a_float32_minimum_as_pytorch():
    # near the minimum f_new == f in float32; the Armijo bound f + c1*t*gtd must round in float32 too (the slope
    # is a 0-dim tensor in PyTorch), or the search keeps shrinking its bracket: PyTorch 2.13 takes 14 evaluations
    rng = np.random.default_rng(3)
    xs = rng.standard_normal((60, 3)).astype(np.float32)
    ys = (xs @ np.array([2.0, -1.0, 0.5], np.float32) + 0.3 * rng.standard_normal(60).astype(np.float32) > 0)
    x, y = ea.tensor(xs), ea.tensor(ys.astype(np.float32))
    w = ea.tensor(np.full(3, 0.1, np.float32), requires_grad=True)
    opt = optim.LBFGS([w], line_search_fn="strong_wolfe", history_size=5)

    def closure():
        opt.zero_grad()
        z = x @ w
        loss = (ea.logaddexp(z * 0, z) - y * z).mean() + 0.01 * (w * w).sum()
        loss.backward()
        return loss

    for _ in range(3):
        opt.step(closure)
    assert (opt.state[w]["func_evals"], opt.state[w]["n_iter"]) == (14, 10)


def test_unknown_line_search_is_refused_only_when_a_search_would_run():
    # at a point whose gradient is within tolerance_grad, step returns before any line search, as PyTorch's
    p = ea.ones(2, requires_grad=True)
    opt = optim.LBFGS([p], line_search_fn="armijo")

    def closure():
        opt.zero_grad()
        loss = ((p - 1) ** 2).sum()
        loss.backward()
        return loss

    assert float(opt.step(closure)) == 0.0
    with ea.no_grad():
        p.fill_(0.0)
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)
