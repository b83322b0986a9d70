"""Rprop, ASGD, Adafactor, SparseAdam, Muon: float64 trajectories against the update rules written out in
numpy; in the torch session, float32 trajectories, state dicts and errors against PyTorch's."""

import math

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn, optim

STEPS = 20
RNG = np.random.default_rng(0)
A = RNG.standard_normal((4, 4)) / 2


def grad_of(p):
    """The gradient of a fixed non-quadratic loss at p (both frameworks see the same function)."""
    return np.tanh(A[: p.shape[0], : p.shape[0]] @ p + 0.3) + 0.1 * np.sin(3 * p) + 0.05


def run_ember(cls, p0, dtype=torch.float64, grad=grad_of, **kw):
    p = nn.Parameter(torch.tensor(p0.copy(), dtype=dtype))
    opt = cls([p], **kw)
    traj = []
    for _ in range(STEPS):
        p.grad = torch.tensor(grad(p.detach().numpy().astype(np.float64)), dtype=dtype)
        opt.step()
        traj.append(p.detach().numpy().astype(np.float64).copy())
    return np.array(traj), opt


def rprop_ref(p, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), maximize=False, grad=grad_of):
    prev = np.zeros_like(p)
    size = np.full_like(p, lr)
    out = []
    for _ in range(STEPS):
        g = grad(p)
        g = -g if maximize else g
        s = np.sign(g * prev)
        size = np.clip(size * np.where(s > 0, etas[1], np.where(s < 0, etas[0], 1.0)), *step_sizes)
        g = np.where(s < 0, 0.0, g)
        p = p - np.sign(g) * size
        prev = g
        out.append(p)
    return np.array(out)


def asgd_ref(p, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0, maximize=False, grad=grad_of):
    eta, mu, ax = lr, 1.0, np.zeros_like(p)
    out, axs = [], []
    for t in range(1, STEPS + 1):
        g = grad(p)
        g = -g if maximize else g
        g = g + weight_decay * p
        p = p * (1 - lambd * eta) - eta * g
        ax = ax + (p - ax) * mu if mu != 1 else p.copy()
        eta = lr / (1 + lambd * lr * t) ** alpha
        mu = 1 / max(1, t - t0)
        out.append(p)
        axs.append(ax)
    return np.array(out), np.array(axs)


def adafactor_ref(p, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, maximize=False,
                  grad=grad_of):
    eps1 = np.finfo(np.float64).eps if eps[0] is None else eps[0]
    row = np.zeros((*p.shape[:-1], 1)) if p.ndim > 1 else None
    col = np.zeros((*p.shape[:-2], 1, p.shape[-1])) if p.ndim > 1 else None
    var = np.zeros_like(p)
    out = []
    for t in range(1, STEPS + 1):
        g = grad(p)
        g = -g if maximize else g
        beta = t ** beta2_decay
        rho = min(lr, 1 / math.sqrt(t))
        alpha = max(eps[1], np.sqrt((p * p).sum()) / math.sqrt(p.size)) * rho
        p = p * (1 - lr * weight_decay)
        if p.ndim > 1:
            row = row + beta * ((g * g).mean(-1, keepdims=True) - row)
            col = col + beta * ((g * g).mean(-2, keepdims=True) - col)
            est = row @ col / np.maximum(row.mean(-2, keepdims=True), eps1)
        else:
            var = var + beta * (g * g - var)
            est = var
        u = g / np.sqrt(np.maximum(est, eps1 * eps1))
        p = p - alpha / max(1.0, np.sqrt((u * u).mean()) / d) * u
        out.append(p)
    return np.array(out)


def sparse_adam_ref(p, grads, rows_per_step, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
    m, v = np.zeros_like(p), np.zeros_like(p)
    out = []
    for t, (g, rows) in enumerate(zip(grads, rows_per_step), 1):
        rows = np.unique(rows)
        if len(rows):
            m[rows] = m[rows] + (1 - betas[0]) * (g[rows] - m[rows])
            v[rows] = v[rows] + (1 - betas[1]) * (g[rows] ** 2 - v[rows])
            step = lr * math.sqrt(1 - betas[1] ** t) / (1 - betas[0] ** t)
            p = p.copy()
            p[rows] -= step * m[rows] / (np.sqrt(v[rows]) + eps)
        out.append(p)
    return np.array(out)


def newton_schulz_ref(g, steps=5, coef=(3.4445, -4.7750, 2.0315), eps=1e-7):
    """PyTorch's bfloat16 iteration: each op computed exactly, its result rounded to bfloat16."""
    bf16 = pytest.importorskip("ml_dtypes").bfloat16

    def r(a):
        return np.asarray(a, np.float32).astype(bf16).astype(np.float64)

    a, b, c = coef
    tall = g.shape[0] > g.shape[1]
    x = r(g.T if tall else g)
    x = r(x / max(r(np.sqrt((x * x).sum())), eps))
    for _ in range(steps):
        gram = r(x @ x.T)
        x = r(a * x + r(b * gram + c * gram @ gram) @ x)
    return x.T if tall else x


def muon_ref(p, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True, grad=grad_of):
    buf = np.zeros_like(p)
    out = []
    for _ in range(STEPS):
        g = grad(p)
        buf = buf + (1 - momentum) * (g - buf)
        u = g + momentum * (buf - g) if nesterov else buf
        o = newton_schulz_ref(u)
        p = p * (1 - lr * weight_decay) - lr * math.sqrt(max(1, p.shape[0] / p.shape[1])) * o
        out.append(p)
    return np.array(out)


P0 = RNG.standard_normal((4, 3))


@pytest.mark.parametrize("kw", [{}, {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.08)},
                                {"maximize": True}])
def test_rprop_trajectory(kw):
    traj, _ = run_ember(optim.Rprop, P0, **kw)
    np.testing.assert_allclose(traj, rprop_ref(P0, **kw), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kw", [{}, {"lr": 0.1, "lambd": 1e-2, "alpha": 0.5, "t0": 5, "weight_decay": 0.1},
                                {"maximize": True, "t0": 0}])
def test_asgd_trajectory_and_average(kw):
    traj, opt = run_ember(optim.ASGD, P0, **kw)
    ref, axs = asgd_ref(P0, **kw)
    # eta and mu round through float32 scalars as in PyTorch
    np.testing.assert_allclose(traj, ref, rtol=1e-6, atol=1e-7)
    ax = opt.state[opt.param_groups[0]["params"][0]]["ax"].numpy()
    np.testing.assert_allclose(ax, axs[-1], rtol=1e-6, atol=1e-7)


def asgd_foreach_ref(p, lr, lambd, alpha, t0, weight_decay):
    """PyTorch's multi-tensor ASGD: p -= eta (g + wd p + lambd p), ax += mu (p - ax), and the next eta evaluated
    in float32 (the step counter is a float32 tensor there). PyTorch's float32 pow is a vectorized approximation
    (within 1 ulp), so its eta can still differ from numpy's by an ulp: the tolerance allows that, not float64 eta."""
    f32 = np.float32
    eta, mu, ax = f32(lr), f32(1.0), np.zeros_like(p)
    for t in range(1, STEPS + 1):
        g = grad_of(p) + weight_decay * p
        p = p - (g + lambd * p) * float(eta)
        ax = ax + (p - ax) * float(mu)
        eta = f32(lr) / (f32(1) + f32(lambd * lr) * f32(t)) ** f32(alpha)
        mu = f32(1 / max(1, t - t0))
    return p, ax


def test_asgd_foreach_follows_pytorchs_multi_tensor_arithmetic():
    kw = {"lr": 0.1, "lambd": 1e-2, "alpha": 0.5, "t0": 5, "weight_decay": 0.1}
    traj, opt = run_ember(optim.ASGD, P0, foreach=True, **kw)
    ref, ax_ref = asgd_foreach_ref(P0, **kw)
    np.testing.assert_allclose(traj[-1], ref, rtol=1e-9, atol=1e-12)  # the float64 eta path is ~1e-8 away
    np.testing.assert_allclose(opt.state[opt.param_groups[0]["params"][0]]["ax"].numpy(), ax_ref, rtol=1e-9,
                               atol=1e-12)


@pytest.mark.parametrize("shape", [(4, 3), (3,), (2, 4, 3)])
@pytest.mark.parametrize("kw", [{}, {"lr": 0.3, "beta2_decay": -0.5, "eps": (1e-20, 1e-2), "d": 1.5,
                                     "weight_decay": 0.1}, {"maximize": True}])
def test_adafactor_trajectory(shape, kw):
    p0 = np.random.default_rng(1).standard_normal(shape)

    def grad(p):
        return np.tanh(p * 1.3 + 0.2) + 0.05 * p ** 2

    traj, opt = run_ember(optim.Adafactor, p0, grad=grad, **kw)
    np.testing.assert_allclose(traj, adafactor_ref(p0, grad=grad, **kw), rtol=1e-10, atol=1e-12)
    state = opt.state[opt.param_groups[0]["params"][0]]
    if len(shape) > 1:
        assert sorted(state) == ["col_var", "row_var", "step"]
        assert tuple(state["row_var"].shape) == (*shape[:-1], 1)
        assert tuple(state["col_var"].shape) == (*shape[:-2], 1, shape[-1])
    else:
        assert sorted(state) == ["step", "variance"]


def test_sparse_adam_updates_only_the_looked_up_rows_of_an_embedding():
    emb = nn.Embedding(10, 3, sparse=True, padding_idx=5, dtype=torch.float64)
    w0 = emb.weight.detach().numpy().copy()
    opt = optim.SparseAdam(emb.parameters(), lr=0.05)
    rng = np.random.default_rng(2)
    grads, rows = [], []
    for _ in range(STEPS):
        idx = rng.integers(0, 7, size=5)  # rows 7..9 are never looked up, 5 is padding
        keep = torch.tensor((rng.random(5) < 0.6).astype(np.float64))[:, None]  # masked: looked up, zero grad
        opt.zero_grad()
        ((emb(torch.tensor(idx)) ** 2) * keep).sum().backward()
        grads.append(emb.weight.grad.to_dense().numpy().copy())
        rows.append(idx[idx != 5])
        opt.step()
    ref = sparse_adam_ref(w0, grads, rows, lr=0.05)
    np.testing.assert_allclose(emb.weight.detach().numpy(), ref[-1], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(emb.weight.detach().numpy()[7:], w0[7:])
    np.testing.assert_array_equal(emb.weight.detach().numpy()[5], w0[5])
    state = opt.state[emb.weight]
    assert state["step"] == STEPS and np.all(state["exp_avg"].numpy()[7:] == 0)
    # looked-up rows with a zero gradient still decay and move: updating only non-zero rows differs
    nonzero_rows = [np.flatnonzero(np.any(g != 0, axis=1)) for g in grads]
    assert not np.allclose(ref[-1], sparse_adam_ref(w0, grads, nonzero_rows, lr=0.05)[-1])


def test_sparse_adam_refuses_dense_gradients_as_pytorch_and_changes_nothing():
    p0 = np.random.default_rng(3).standard_normal((4, 2))
    emb = nn.Embedding.from_pretrained(torch.tensor(p0.copy()), freeze=False, sparse=True)
    p = nn.Parameter(torch.tensor(p0.copy()))
    opt = optim.SparseAdam([{"params": [emb.weight, p]}], lr=0.1)
    emb(torch.tensor([0, 2])).sum().backward()
    p.grad = torch.ones(4, 2, dtype=torch.float64)  # a dense gradient (no sparse embedding made it)
    with pytest.raises(RuntimeError, match=r"^SparseAdam does not support dense gradients, please consider Adam "
                                           r"instead$"):
        opt.step()
    np.testing.assert_array_equal(emb.weight.detach().numpy(), p0)  # the group's sparse parameter too
    np.testing.assert_array_equal(p.detach().numpy(), p0)
    assert not opt.state


def test_sparse_adam_refuses_sparse_and_complex_parameters_by_their_indices():
    dense = nn.Parameter(torch.zeros(2))
    with pytest.raises(ValueError, match=r"^Sparse params at indices \[\[1, 0\]\]: SparseAdam requires dense "
                                         r"parameter tensors$"):
        optim.SparseAdam([{"params": [dense]}, {"params": [torch.ones(2).to_sparse().requires_grad_()]}])
    with pytest.raises(ValueError, match=r"^Complex params at indices \[\[0, 1\]\]"):
        optim.SparseAdam([dense, nn.Parameter(torch.zeros(2, dtype=torch.complex64))])


def test_muon_trajectory_against_a_bfloat16_rounded_newton_schulz():
    traj, opt = run_ember(optim.Muon, P0, lr=0.02)
    ref = muon_ref(P0, lr=0.02)
    np.testing.assert_allclose(traj, ref, rtol=1e-6, atol=1e-7)
    assert sorted(opt.state[opt.param_groups[0]["params"][0]]) == ["momentum_buffer"]


def test_newton_schulz_output_is_near_orthogonal():
    from ember.optim._muon import _zeropower_via_newtonschulz

    g = np.random.default_rng(3).standard_normal((8, 5))
    o = _zeropower_via_newtonschulz(torch.tensor(g), (3.4445, -4.7750, 2.0315), 5, 1e-7).float().numpy()
    s = np.linalg.svd(o.astype(np.float64), compute_uv=False)
    assert o.shape == (8, 5) and np.all((s > 0.5) & (s < 1.5))
    np.testing.assert_array_equal(o, newton_schulz_ref(g))


def test_new_optimizers_check_their_arguments_as_pytorch():
    p = [nn.Parameter(torch.zeros(2, 2))]
    cases = [(optim.Rprop, {"lr": -1}, "Invalid learning rate: -1"),
             (optim.Rprop, {"etas": (1.5, 2.0)}, "Invalid eta values: 1.5, 2.0"),
             (optim.ASGD, {"weight_decay": -1}, "Invalid weight_decay value: -1"),
             (optim.Adafactor, {"beta2_decay": 0.5}, "beta2_decay should be <= 0 but is: 0.5"),
             (optim.Adafactor, {"d": 0.5}, "Clipping threshold d should be >= 1 but is: 0.5"),
             (optim.Adafactor, {"eps": (-1, 1e-3)}, "epsilon1 should be >= 0 but is: -1"),
             (optim.SparseAdam, {"lr": 0}, "Invalid learning rate: 0"),
             (optim.SparseAdam, {"eps": 0}, "Invalid epsilon value: 0"),
             (optim.SparseAdam, {"betas": (1.0, 0.9)}, "Invalid beta parameter at index 0: 1.0"),
             (optim.Muon, {"adjust_lr_fn": "x"}, "Adjust learning rate function x is not supported"),
             (optim.Muon, {"momentum": -1}, "momentum should be >= 0 but is: -1")]
    for cls, kw, msg in cases:
        with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)")):
            cls(p, **kw)
    with pytest.raises(ValueError, match="Muon only supports 2D parameters whereas we found a parameter with size"):
        optim.Muon([nn.Parameter(torch.zeros(3))])


def test_defaults_are_pytorchs():
    p = [nn.Parameter(torch.zeros(2, 2))]
    assert optim.Rprop(p).defaults == {"lr": 1e-2, "etas": (0.5, 1.2), "step_sizes": (1e-6, 50), "foreach": None,
                                       "maximize": False, "differentiable": False, "capturable": False}
    assert optim.ASGD(p).defaults == {"lr": 1e-2, "lambd": 1e-4, "alpha": 0.75, "t0": 1e6, "weight_decay": 0,
                                      "foreach": None, "maximize": False, "differentiable": False,
                                      "capturable": False}
    assert optim.Adafactor(p).defaults == {"lr": 1e-2, "beta2_decay": -0.8, "eps": (None, 1e-3), "d": 1.0,
                                           "weight_decay": 0.0, "foreach": None, "maximize": False}
    assert optim.SparseAdam(p).defaults == {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "maximize": False}
    assert optim.Muon(p).defaults["weight_decay"] == 0.1 and optim.Muon(p).defaults["ns_steps"] == 5


CASES = [("Rprop", {}, (4, 3)), ("Rprop", {"lr": 0.05, "maximize": True}, (4, 3)),
         ("ASGD", {"lr": 0.1, "t0": 3, "lambd": 1e-2, "weight_decay": 0.05}, (4, 3)),
         ("Adafactor", {}, (4, 3)), ("Adafactor", {"lr": 0.2, "weight_decay": 0.1}, (3,)),
         ("Adafactor", {"eps": (1e-6, 1e-3), "d": 2.0}, (2, 4, 3)),
         ("Muon", {"lr": 0.02}, (4, 3)), ("Muon", {"lr": 0.02, "nesterov": False, "adjust_lr_fn": "match_rms_adamw"},
                                          (3, 4))]


@pytest.mark.torch
@pytest.mark.parametrize("name, kw, shape", CASES)
def test_trajectories_and_state_dicts_match_pytorch(name, kw, shape):
    pt = pytest.importorskip("torch")
    p0 = np.random.default_rng(4).standard_normal(shape).astype(np.float32)

    def grad(p):
        return (np.tanh(p * 1.3 + 0.2) + 0.05 * p ** 2).astype(np.float32)

    ours, opt = run_ember(getattr(optim, name), p0, dtype=torch.float32, grad=grad, **kw)
    tp = pt.nn.Parameter(pt.tensor(p0.copy()))
    topt = getattr(pt.optim, name)([tp], **kw)
    theirs = []
    for _ in range(STEPS):
        tp.grad = pt.tensor(grad(tp.detach().numpy().astype(np.float64)))
        topt.step()
        theirs.append(tp.detach().numpy().astype(np.float64).copy())
    tol = dict(rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(ours, np.array(theirs), **tol)
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert sorted(sd["state"][0]) == sorted(tsd["state"][0])
    assert sorted(sd["param_groups"][0]) == sorted(tsd["param_groups"][0])
    for k, v in tsd["state"][0].items():
        if isinstance(v, pt.Tensor):
            assert tuple(sd["state"][0][k].shape) == tuple(v.shape), k
            np.testing.assert_allclose(sd["state"][0][k].float().numpy(), v.float().numpy(), **tol)


@pytest.mark.torch
@pytest.mark.parametrize("name, kw, shape", CASES[::2])
def test_a_pytorch_optimizer_checkpoint_continues_the_same_trajectory(name, kw, shape):
    pt = pytest.importorskip("torch")
    p0 = np.random.default_rng(5).standard_normal(shape).astype(np.float32)

    def grad(p):
        return (np.tanh(p * 1.3 + 0.2) + 0.05 * p ** 2).astype(np.float32)

    tp = pt.nn.Parameter(pt.tensor(p0.copy()))
    topt = getattr(pt.optim, name)([tp], **kw)
    for _ in range(5):
        tp.grad = pt.tensor(grad(tp.detach().numpy()))
        topt.step()
    tsd = topt.state_dict()
    p = nn.Parameter(torch.tensor(tp.detach().numpy().copy()))
    opt = getattr(optim, name)([p], **kw)
    opt.load_state_dict({"state": {i: {k: torch.tensor(v.numpy()) if isinstance(v, pt.Tensor) else v
                                       for k, v in s.items()} for i, s in tsd["state"].items()},
                         "param_groups": tsd["param_groups"]})
    for _ in range(5):
        tp.grad = pt.tensor(grad(tp.detach().numpy()))
        topt.step()
        p.grad = torch.tensor(grad(p.detach().numpy()))
        opt.step()
    np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=2e-5, atol=2e-6)


@pytest.mark.torch
def test_sparse_adam_matches_pytorch_on_sparse_embedding_gradients():
    pt = pytest.importorskip("torch")
    w0 = np.random.default_rng(6).standard_normal((10, 3)).astype(np.float32)
    emb = nn.Embedding.from_pretrained(torch.tensor(w0.copy()), freeze=False, sparse=True, padding_idx=2)
    temb = pt.nn.Embedding.from_pretrained(pt.tensor(w0.copy()), freeze=False, sparse=True, padding_idx=2)
    opt = optim.SparseAdam(emb.parameters(), lr=0.05)
    topt = pt.optim.SparseAdam(temb.parameters(), lr=0.05)
    rng = np.random.default_rng(7)
    for _ in range(STEPS):
        idx = rng.integers(0, 6, size=(2, 4))
        keep = (idx % 3 != 1).astype(np.float32)[..., None]  # rows 1 and 4: looked up, zero gradient
        opt.zero_grad()
        topt.zero_grad()
        ((emb(torch.tensor(idx)) ** 3) * torch.tensor(keep)).sum().backward()
        ((temb(pt.tensor(idx)) ** 3) * pt.tensor(keep)).sum().backward()
        opt.step()
        topt.step()
    np.testing.assert_allclose(emb.weight.detach().numpy(), temb.weight.detach().numpy(), rtol=2e-5, atol=2e-6)
    sd, tsd = opt.state_dict()["state"][0], topt.state_dict()["state"][0]
    assert sd["step"] == tsd["step"] == STEPS
    np.testing.assert_allclose(sd["exp_avg_sq"].numpy(), tsd["exp_avg_sq"].numpy(), rtol=2e-5, atol=1e-7)


def test_state_dict_hooks_and_global_step_hooks_run_as_pytorchs():
    p = nn.Parameter(torch.ones(2))
    opt = optim.SGD([p], lr=0.1)
    calls = []
    opt.register_state_dict_pre_hook(lambda o: calls.append("sd-pre"))
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    opt.register_load_state_dict_pre_hook(lambda o, sd: calls.append("load-pre"))
    opt.register_load_state_dict_post_hook(lambda o: calls.append("load-post"), prepend=True)
    sd = opt.state_dict()
    assert sd["extra"] == 1
    opt.load_state_dict(sd)
    assert calls == ["sd-pre", "load-pre", "load-post"]
    from ember.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

    order = []
    h1 = register_optimizer_step_pre_hook(lambda o, a, k: order.append("global-pre"))
    h2 = register_optimizer_step_post_hook(lambda o, a, k: order.append("global-post"))
    opt.register_step_pre_hook(lambda o, a, k: order.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: order.append("post"))
    try:
        p.grad = torch.ones(2)
        opt.step()
    finally:
        h1.remove()
        h2.remove()
    assert order == ["global-pre", "pre", "post", "global-post"]
    np.testing.assert_allclose(p.detach().numpy(), [0.9, 0.9], rtol=1e-6)


def test_swap_in_optimizer_params_and_state_steps_the_copies_only():
    import copy

    p = nn.Parameter(torch.tensor([1.0, -2.0], dtype=torch.float64))
    opt = optim.Adam([p], lr=0.1)
    p.grad = torch.tensor([0.5, 0.5], dtype=torch.float64)
    opt.step()
    live_p, live_avg = p.detach().numpy().copy(), opt.state[p]["exp_avg"].numpy().copy()
    osd = copy.deepcopy(opt.state_dict())
    osd["param_groups"][0]["lr"] = 0.01
    q = nn.Parameter(torch.tensor(live_p.copy()))
    q.grad = torch.tensor([1.0, 1.0], dtype=torch.float64)
    with optim.swap_in_optimizer_params_and_state(opt, {"w": q}, osd):
        assert opt.param_groups[0]["params"][0] is q and opt.param_groups[0]["lr"] == 0.01
        opt.step()
    # the second Adam step from the saved state, at lr 0.01
    m = 0.9 * live_avg + 0.1 * 1.0
    v = 0.999 * opt.state[p]["exp_avg_sq"].numpy() + 0.001 * 1.0
    expected = live_p - 0.01 / (1 - 0.9 ** 2) * m / (np.sqrt(v) / np.sqrt(1 - 0.999 ** 2) + 1e-8)
    np.testing.assert_allclose(q.detach().numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(osd["state"][0]["exp_avg"].numpy(), m, rtol=1e-12)  # edited in place
    np.testing.assert_array_equal(p.detach().numpy(), live_p)
    assert opt.param_groups[0]["params"][0] is p and opt.param_groups[0]["lr"] == 0.1
    np.testing.assert_array_equal(opt.state[p]["exp_avg"].numpy(), live_avg)
    with pytest.raises(RuntimeError, match="requires initialized optimizer state"):
        with optim.swap_in_optimizer_params_and_state(optim.SGD([q], lr=0.1), {"w": q}, osd):
            pass
    bad = copy.deepcopy(osd)
    bad["param_groups"][0]["extra"] = 1
    with pytest.raises(RuntimeError, match=r"Keys only in swap-in: \['extra'\]"):
        with optim.swap_in_optimizer_params_and_state(opt, {"w": q}, bad):
            pass


@pytest.mark.torch
def test_sparse_adam_dense_gradient_error_is_pytorchs():
    pt = pytest.importorskip("torch")
    errors = []
    for lib, nn_mod, opt_mod in ((pt, pt.nn, pt.optim), (torch, nn, optim)):
        p = nn_mod.Parameter(lib.ones(3))
        p.grad = lib.ones(3)
        with pytest.raises(RuntimeError) as info:
            opt_mod.SparseAdam([p]).step()
        errors.append(str(info.value))
    assert errors[1] == errors[0]


@pytest.mark.parametrize("name", ["Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Rprop", "Adagrad",
                                  "Adadelta"])
@pytest.mark.parametrize("foreach", [None, True])
def test_an_int_step_in_the_state_is_refused_as_pytorch(name, foreach):
    """Old A3C code sets `state["step"] = 0` by hand: PyTorch's update functions refuse it, parameters unchanged."""
    lin = nn.Linear(2, 1)
    lin(torch.ones(1, 2)).sum().backward()
    opt = getattr(optim, name)(lin.parameters(), lr=0.1, foreach=foreach)
    opt.step()
    for p in lin.parameters():
        opt.state[p]["step"] = 1
    before = [p.detach().clone() for p in lin.parameters()]
    with pytest.raises(RuntimeError, match=r"^API has changed, `state_steps` argument must contain a list of "
                                           r"singleton tensors$"):
        opt.step()
    assert all(torch.equal(a, p) for a, p in zip(before, lin.parameters()))


def test_custom_optimizer_helpers_of_torch_optim_optimizer():
    """What optimizers written after PyTorch's import from torch.optim.optimizer: the step decorator runs the step
    without grad (unless `differentiable`) and restores the caller's mode; the scalar helpers; fused/foreach
    defaults as PyTorch's on the CPU."""
    from ember.optim.optimizer import (ParamsT, _default_to_fused_or_foreach, _get_scalar_dtype, _get_value,
                                       _stack_if_compiling, _use_grad_for_differentiable)

    class Plain(optim.Optimizer):
        def __init__(self, params: ParamsT, lr=0.1):
            super().__init__(params, {"lr": lr, "differentiable": False})

        @_use_grad_for_differentiable
        def step(self, closure=None):
            """Plain descent."""
            for p in self.param_groups[0]["params"]:
                p.add_(p.grad, alpha=-self.param_groups[0]["lr"])
            return torch.is_grad_enabled()

    p = nn.Parameter(torch.ones(2))
    p.grad = torch.tensor([1.0, 2.0])
    opt = Plain([p])
    assert opt.step() is False and torch.is_grad_enabled()
    np.testing.assert_allclose(p.detach().numpy(), [0.9, 0.8], rtol=1e-6)
    assert Plain.step.__name__ == "step" and Plain.step.__doc__ == "Plain descent."
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        _use_grad_for_differentiable(lambda self: p.add_(1.0))(type("O", (), {"defaults": {"differentiable": True}}))
    assert torch.is_grad_enabled()
    assert _get_value(torch.tensor(3.0)) == 3.0 and type(_get_value(torch.tensor(3.0))) is float
    assert _get_value(2) == 2 and _stack_if_compiling([1, 2]) == [1, 2]
    assert _get_scalar_dtype() == torch.float32 and _get_scalar_dtype(True) == torch.float32
    torch.set_default_dtype(torch.float64)
    try:
        assert _get_scalar_dtype() == torch.float64 and _get_scalar_dtype(True) == torch.float32
    finally:
        torch.set_default_dtype(torch.float32)
    assert _default_to_fused_or_foreach([p], False) == (False, False)
    assert _default_to_fused_or_foreach([p], False, True) == (True, False)
    assert _default_to_fused_or_foreach([p], True, True) == (False, False)
    assert _default_to_fused_or_foreach([], False) == (False, True)
    assert _default_to_fused_or_foreach([p.detach().clone().requires_grad_().mul(1)], False, True) == (True, False)
