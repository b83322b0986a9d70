"""Optimizers: float64 trajectories against PyTorch's update rules written out in numpy; the
Optimizer base's groups, state dicts, zero_grad, hooks and argument checks."""

import copy

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn, optim

STEPS = 6


def grads_for(seed, shape):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape) for _ in range(STEPS)]


def run_ember(cls, p0, grads, **kw):
    p = nn.Parameter(torch.tensor(p0.copy(), dtype=torch.float64))
    opt = cls([p], **kw)
    traj = []
    for g in grads:
        p.grad = torch.tensor(g, dtype=torch.float64)
        opt.step()
        traj.append(p.detach().numpy().copy())
    return np.array(traj), opt


def sgd_ref(p, grads, lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, maximize=False):
    buf, out = None, []
    for g in grads:
        g = -g if maximize else g
        if weight_decay:
            g = g + weight_decay * p
        if momentum:
            buf = g.copy() if buf is None else momentum * buf + (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        p = p - lr * g
        out.append(p)
    return np.array(out)


def adam_ref(p, grads, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, maximize=False,
             decoupled=False):
    m = np.zeros_like(p)
    v = np.zeros_like(p)
    vmax = np.zeros_like(p)
    out = []
    for t, g in enumerate(grads, 1):
        g = -g if maximize else g
        if weight_decay:
            if decoupled:
                p = p * (1 - lr * weight_decay)
            else:
                g = g + weight_decay * p
        m = m + (1 - betas[0]) * (g - m)
        v = betas[1] * v + (1 - betas[1]) * g * g
        bc1, bc2 = 1 - betas[0] ** t, 1 - betas[1] ** t
        if amsgrad:
            vmax = np.maximum(vmax, v)
            denom = np.sqrt(vmax) / np.sqrt(bc2) + eps
        else:
            denom = np.sqrt(v) / np.sqrt(bc2) + eps
        p = p - lr / bc1 * m / denom
        out.append(p)
    return np.array(out)


def rmsprop_ref(p, grads, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False,
                maximize=False):
    sq = np.zeros_like(p)
    gavg = np.zeros_like(p)
    buf = np.zeros_like(p)
    out = []
    for g in grads:
        g = -g if maximize else g
        if weight_decay:
            g = g + weight_decay * p
        sq = alpha * sq + (1 - alpha) * g * g
        if centered:
            gavg = gavg + (1 - alpha) * (g - gavg)
            avg = np.sqrt(sq - gavg * gavg) + eps
        else:
            avg = np.sqrt(sq) + eps
        if momentum > 0:
            buf = momentum * buf + g / avg
            p = p - lr * buf
        else:
            p = p - lr * g / avg
        out.append(p)
    return np.array(out)


def adagrad_ref(p, grads, lr=1e-2, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0, eps=1e-10,
                maximize=False):
    s = np.full_like(p, initial_accumulator_value)
    out = []
    for t, g in enumerate(grads, 1):
        g = -g if maximize else g
        if weight_decay:
            g = g + weight_decay * p
        clr = lr / (1 + (t - 1) * lr_decay)
        s = s + g * g
        p = p - clr * g / (np.sqrt(s) + eps)
        out.append(p)
    return np.array(out)


P0 = np.random.default_rng(0).standard_normal((3, 4))
G = grads_for(1, (3, 4))


@pytest.mark.parametrize("kw", [
    {"lr": 0.1},
    {"lr": 0.1, "momentum": 0.9},
    {"lr": 0.05, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.01},
    {"lr": 0.05, "momentum": 0.8, "nesterov": True, "weight_decay": 0.1},
    {"lr": 0.1, "maximize": True, "momentum": 0.5},
])
def test_sgd_trajectory(kw):
    got, _ = run_ember(optim.SGD, P0, G, **kw)
    np.testing.assert_allclose(got, sgd_ref(P0, G, **kw), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("kw", [
    {},
    {"lr": 0.01, "betas": (0.8, 0.9), "eps": 1e-6},
    {"lr": 0.01, "weight_decay": 0.1},
    {"lr": 0.01, "amsgrad": True},
    {"lr": 0.01, "maximize": True, "weight_decay": 0.05},
])
def test_adam_trajectory(kw):
    got, _ = run_ember(optim.Adam, P0, G, **kw)
    np.testing.assert_allclose(got, adam_ref(P0, G, **kw), rtol=1e-12, atol=1e-14)


def test_adam_float32_computes_in_float32():
    """A float32 parameter's update rounds each step in float32, with 1 - beta cast from the double,
    as PyTorch's float32 kernel: equal to a float32 numpy reference, element for element."""
    rng = np.random.default_rng(5)
    p0 = rng.standard_normal(4096).astype(np.float32)
    grads = [rng.standard_normal(4096).astype(np.float32) * 1e-3 for _ in range(3)]
    p = nn.Parameter(torch.tensor(p0.copy()))
    opt = optim.Adam([p], lr=1e-3)
    f = np.float32
    ref, m, v = p0.copy(), np.zeros_like(p0), np.zeros_like(p0)
    for t, g in enumerate(grads, 1):
        p.grad = torch.tensor(g)
        opt.step()
        m = m + f(1 - 0.9) * (g - m)
        v = v * f(0.999) + f(1 - 0.999) * (g * g)
        denom = np.sqrt(v) / f(np.sqrt(1 - 0.999 ** t)) + f(1e-8)
        ref = ref + f(-1e-3 / (1 - 0.9 ** t)) * (m / denom)
        np.testing.assert_array_equal(p.detach().numpy(), ref)


@pytest.mark.parametrize("kw", [{}, {"lr": 0.01, "weight_decay": 0.3, "amsgrad": True}])
def test_adamw_trajectory(kw):
    got, opt = run_ember(optim.AdamW, P0, G, **kw)
    ref_kw = {"weight_decay": 1e-2, **kw}
    np.testing.assert_allclose(got, adam_ref(P0, G, decoupled=True, **ref_kw), rtol=1e-12, atol=1e-14)
    assert opt.defaults["weight_decay"] == ref_kw["weight_decay"]


@pytest.mark.parametrize("kw", [
    {},
    {"lr": 0.01, "alpha": 0.9, "centered": True},
    {"lr": 0.01, "momentum": 0.9, "weight_decay": 0.1},
    {"lr": 0.01, "momentum": 0.5, "centered": True, "maximize": True},
])
def test_rmsprop_trajectory(kw):
    got, _ = run_ember(optim.RMSprop, P0, G, **kw)
    np.testing.assert_allclose(got, rmsprop_ref(P0, G, **kw), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("kw", [{}, {"lr": 0.1, "lr_decay": 0.1, "weight_decay": 0.05,
                                     "initial_accumulator_value": 0.5}])
def test_adagrad_trajectory(kw):
    got, _ = run_ember(optim.Adagrad, P0, G, **kw)
    np.testing.assert_allclose(got, adagrad_ref(P0, G, **kw), rtol=1e-12, atol=1e-14)


def test_float32_parameters_and_strided_parameters_update():
    p = nn.Parameter(torch.ones(4, 3).t())
    assert not p.is_contiguous()
    opt = optim.SGD([p], lr=0.5)
    p.grad = torch.ones(3, 4)
    opt.step()
    np.testing.assert_allclose(p.detach().numpy(), 0.5)
    v = p._version
    opt.step()
    assert p._version > v and p.dtype == torch.float32


@pytest.mark.parametrize("cls, kw", [
    (optim.SGD, {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
    (optim.Adam, {"lr": 0.1, "amsgrad": True}), (optim.RMSprop, {"lr": 0.01, "momentum": 0.5, "centered": True}),
    (optim.Adagrad, {"lr": 0.1}), (optim.Adadelta, {}), (optim.Adamax, {}), (optim.NAdam, {}), (optim.RAdam, {}),
])
def test_state_is_laid_out_as_a_channels_last_parameter(cls, kw):
    """PyTorch makes state with zeros_like(p, memory_format=preserve_format): a channels_last parameter's is
    channels_last, and the update equals the contiguous parameter's element for element."""
    rng = np.random.default_rng(1)
    base = torch.tensor(rng.standard_normal((3, 4, 2, 5)))
    p1 = nn.Parameter(base.clone())
    p2 = nn.Parameter(base.clone().contiguous(memory_format=torch.channels_last))
    o1, o2 = cls([p1], **kw), cls([p2], **kw)
    for _ in range(3):
        g = torch.tensor(rng.standard_normal((3, 4, 2, 5)))
        p1.grad, p2.grad = g.clone(), g.clone().contiguous(memory_format=torch.channels_last)
        o1.step()
        o2.step()
    assert p2.stride() == (40, 1, 20, 4)
    np.testing.assert_allclose(p2.detach().numpy(), p1.detach().numpy(), rtol=1e-12)
    for k, v in o2.state[p2].items():
        if v.dim():
            assert v.stride() == (40, 1, 20, 4), k
            np.testing.assert_allclose(v.numpy(), o1.state[p1][k].numpy(), rtol=1e-12)


def test_contiguous_state_of_a_channels_last_parameter_updates_through_a_copy():
    p = nn.Parameter(torch.ones(2, 3, 2, 2).contiguous(memory_format=torch.channels_last))
    q = nn.Parameter(torch.ones(2, 3, 2, 2))
    opt, ref = optim.SGD([p], lr=0.1, momentum=0.9), optim.SGD([q], lr=0.1, momentum=0.9)
    grad = torch.arange(24.0).reshape(2, 3, 2, 2)
    opt.state[p]["momentum_buffer"] = grad.clone()  # as a checkpoint saved from a contiguous model loads it
    ref.state[q]["momentum_buffer"] = grad.clone()
    p.grad, q.grad = grad.contiguous(memory_format=torch.channels_last), grad.clone()
    opt.step()
    ref.step()
    np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy())
    np.testing.assert_allclose(opt.state[p]["momentum_buffer"].numpy(), ref.state[q]["momentum_buffer"].numpy())


def test_param_groups_defaults_and_per_group_lr():
    a, b = nn.Parameter(torch.zeros(2)), nn.Parameter(torch.zeros(2))
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 1.0}], lr=0.1, momentum=0.0)
    assert opt.param_groups[0]["lr"] == 0.1 and opt.param_groups[1]["lr"] == 1.0
    assert opt.defaults["lr"] == 0.1
    a.grad, b.grad = torch.ones(2), torch.ones(2)
    opt.param_groups[0]["lr"] = 0.01
    opt.step()
    np.testing.assert_allclose(a.detach().numpy(), -0.01, rtol=1e-6)
    np.testing.assert_allclose(b.detach().numpy(), -1.0)
    c = nn.Parameter(torch.zeros(1))
    opt.add_param_group({"params": [c], "momentum": 0.5})
    assert opt.param_groups[2]["lr"] == 0.1 and opt.param_groups[2]["momentum"] == 0.5
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [a]})


def test_optimizer_argument_errors():
    p = [nn.Parameter(torch.zeros(1))]
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        optim.Adam(p, lr=-1)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1: 1.0"):
        optim.Adam(p, betas=(0.9, 1.0))
    # Adam and AdamW refuse an int beta; NAdam (same range checks) takes it
    for cls in (optim.Adam, optim.AdamW):
        with pytest.raises(ValueError, match="^betas must be either both floats or both Tensors$"):
            cls(p, betas=(0, 0.999))
    assert optim.NAdam(p, betas=(0, 0.999)).defaults["betas"] == (0, 0.999)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        optim.SGD(p, lr=0.1, nesterov=True)
    with pytest.raises(TypeError, match="ordering of tensors in sets"):
        optim.SGD([{"params": set(p)}], lr=0.1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([p[0] * 2], lr=0.1)
    # the offending object named as torch.typename does (passing the model instead of its parameters)
    with pytest.raises(TypeError, match=r"^optimizer can only optimize Tensors, but one of the params is "
                                        r"torch\.nn\.modules\.linear\.Linear$"):
        optim.SGD(nn.Sequential(nn.Linear(2, 2)), lr=0.1)  # iterating a Sequential gives its modules
    with pytest.raises(TypeError, match=r"but one of the params is int$"):
        optim.SGD([3], lr=0.1)


def test_zero_grad_and_skipped_parameters():
    a, b = nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(2))
    opt = optim.Adam([a, b], lr=0.1)
    a.grad = torch.ones(2)
    opt.step()
    assert b.detach().tolist() == [1.0, 1.0] and b not in opt.state
    opt.zero_grad(set_to_none=False)
    assert a.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert a.grad is None


def test_state_dict_format_and_round_trip():
    model = nn.Linear(3, 2).double()
    opt = optim.Adam(model.parameters(), lr=0.01, amsgrad=True)
    x = torch.randn(4, 3, dtype=torch.float64)
    for _ in range(2):
        opt.zero_grad()
        model(x).pow(2).sum().backward()
        opt.step()
    sd = opt.state_dict()
    assert sorted(sd["state"]) == [0, 1] and sd["param_groups"][0]["params"] == [0, 1]
    assert set(sd["state"][0]) == {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}
    assert sd["state"][0]["step"].item() == 2
    twin = nn.Linear(3, 2).double()
    twin.load_state_dict(model.state_dict())
    opt2 = optim.Adam(twin.parameters(), lr=0.5)
    opt2.load_state_dict(copy.deepcopy(sd))
    assert opt2.param_groups[0]["lr"] == 0.01 and opt2.param_groups[0]["params"][0] is twin.weight
    for m, o in ((model, opt), (twin, opt2)):
        o.zero_grad()
        m(x).pow(2).sum().backward()
        o.step()
    np.testing.assert_allclose(twin.weight.detach().numpy(), model.weight.detach().numpy(), rtol=1e-14)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt2.load_state_dict({"state": {}, "param_groups": []})
    with pytest.raises(TypeError, match="^list indices must be integers or slices, not str$"):
        opt2.load_state_dict([1, 2])


def test_load_state_dict_shares_state_as_pytorch():
    # PyTorch casts state tensors with .to(): nothing is copied where the dtype already matches, 'step'
    # is never cast (unless the group is fused/capturable), and a float param casts every tensor entry
    p = nn.Parameter(torch.ones(3, dtype=torch.float64))
    opt = optim.Adam([p], lr=0.1)
    step, avg = torch.tensor(4.0), torch.full((3,), 0.5, dtype=torch.float64)
    group = dict(opt.state_dict()["param_groups"][0], params=[0])
    saved = {"step": step, "exp_avg": avg, "exp_avg_sq": torch.ones(3), "n": torch.tensor([2])}
    opt.load_state_dict({"state": {0: saved}, "param_groups": [group]})
    st = opt.state[p]
    assert st["step"] is step and st["exp_avg"] is avg
    assert st["exp_avg_sq"].dtype == torch.float64 and st["n"].dtype == torch.float64
    step64 = torch.tensor(4.0, dtype=torch.float64)
    opt.load_state_dict({"state": {0: {"step": step64}}, "param_groups": [dict(group, capturable=True)]})
    assert opt.state[p]["step"].dtype == torch.float32


def test_step_hooks_see_self_in_args_and_may_replace_them():
    # PyTorch passes step's full positional args (self first) to the hooks
    p = nn.Parameter(torch.tensor([2.0], dtype=torch.float64))
    opt = optim.SGD([p], lr=0.25)
    seen = []
    opt.register_step_pre_hook(lambda o, a, k: seen.append((a[0] is o, len(a), dict(k))))

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    opt.register_step_pre_hook(lambda o, a, k: ((o,), {"closure": closure}))
    opt.register_step_post_hook(lambda o, a, k: seen.append((a[0] is o, sorted(k))))
    assert opt.step().item() == 4.0 and p.item() == 1.0
    assert seen == [(True, 1, {}), (True, ["closure"])]


def test_base_step_raises_a_bare_not_implemented_error():
    class NoStep(optim.Optimizer):
        pass

    with pytest.raises(NotImplementedError) as info:
        NoStep([nn.Parameter(torch.zeros(1))], {"lr": 0.1}).step()
    assert info.value.args == ()  # PyTorch's repr: NotImplementedError()


def test_step_pre_hook_bad_return_names_the_step_as_pytorch():
    # PyTorch's message names the optimizer's step function (SGD.step), not the hook that returned 42
    opt = optim.SGD([nn.Parameter(torch.ones(1))], lr=0.1)
    opt.register_step_pre_hook(lambda o, a, k: 42)
    with pytest.raises(RuntimeError, match=r"^<function SGD\.step at 0x[0-9a-f]+> must return None or a tuple of "
                                           r"\(new_args, new_kwargs\), but got 42\.$"):
        opt.step()


@pytest.mark.parametrize("cls", [optim.SGD, optim.Adam, optim.AdamW, optim.Adagrad])
def test_fused_refuses_differentiable_and_foreach(cls):
    p = [nn.Parameter(torch.ones(2))]
    with pytest.raises(RuntimeError, match="^`fused` does not support `differentiable`$"):
        cls(p, lr=0.1, fused=True, differentiable=True)
    with pytest.raises(RuntimeError, match=r"^`fused` and `foreach` cannot be `True` together\.$"):
        cls(p, lr=0.1, fused=True, foreach=True)


def test_sgd_closure_and_hooks():
    p = nn.Parameter(torch.tensor([2.0], dtype=torch.float64))
    opt = optim.SGD([p], lr=0.25)
    calls = []
    opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    h = opt.register_step_post_hook(lambda o, a, k: calls.append("post"))

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert loss.item() == 4.0 and p.item() == 1.0 and calls == ["pre", "post"]
    h.remove()
    opt.step(closure)
    assert calls == ["pre", "post", "pre"]


def test_repr_lists_group_options():
    opt = optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1, momentum=0.9)
    text = repr(opt)
    assert text.startswith("SGD (\nParameter Group 0\n    dampening: 0\n") and "    lr: 0.1\n" in text
    assert text.endswith(")")


def adamax_ref(p, grads, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
    m, u, out = np.zeros_like(p), np.zeros_like(p), []
    for t, g in enumerate(grads, 1):
        g = g + weight_decay * p
        m = m + (1 - betas[0]) * (g - m)
        u = np.maximum(betas[1] * u, np.abs(g) + eps)
        p = p - lr / (1 - betas[0] ** t) * m / u
        out.append(p)
    return np.array(out)


def nadam_ref(p, grads, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, momentum_decay=4e-3):
    m, v, mu_prod, out = np.zeros_like(p), np.zeros_like(p), 1.0, []
    for t, g in enumerate(grads, 1):
        g = g + weight_decay * p
        mu = betas[0] * (1 - 0.5 * 0.96 ** (t * momentum_decay))
        mu_next = betas[0] * (1 - 0.5 * 0.96 ** ((t + 1) * momentum_decay))
        mu_prod = float(np.float32(mu_prod) * np.float32(mu))  # PyTorch keeps it in a float32 tensor
        m = m + (1 - betas[0]) * (g - m)
        v = betas[1] * v + (1 - betas[1]) * g * g
        denom = np.sqrt(v / (1 - betas[1] ** t)) + eps
        p = p - lr * (1 - mu) / (1 - mu_prod) * g / denom - lr * mu_next / (1 - mu_prod * mu_next) * m / denom
        out.append(p)
    return np.array(out)


def radam_ref(p, grads, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
    m, v, out = np.zeros_like(p), np.zeros_like(p), []
    rho_inf = 2 / (1 - betas[1]) - 1
    for t, g in enumerate(grads, 1):
        m = m + (1 - betas[0]) * (g - m)
        v = betas[1] * v + (1 - betas[1]) * g * g
        bc1, bc2 = 1 - betas[0] ** t, 1 - betas[1] ** t
        rho_t = rho_inf - 2 * t * betas[1] ** t / bc2
        step = m / bc1 * lr
        if rho_t > 5:
            rect = np.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            step = step * np.sqrt(bc2) / (np.sqrt(v) + eps) * rect
        p = p - step
        out.append(p)
    return np.array(out)


def adadelta_ref(p, grads, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0):
    sq, acc, out = np.zeros_like(p), np.zeros_like(p), []
    for g in grads:
        g = g + weight_decay * p
        sq = rho * sq + (1 - rho) * g * g
        delta = np.sqrt(acc + eps) / np.sqrt(sq + eps) * g
        acc = rho * acc + (1 - rho) * delta * delta
        p = p - lr * delta
        out.append(p)
    return np.array(out)


@pytest.mark.parametrize("cls, ref, kw", [
    (optim.Adamax, adamax_ref, {"lr": 0.01, "weight_decay": 0.1}),
    (optim.NAdam, nadam_ref, {"lr": 0.01, "weight_decay": 0.1, "momentum_decay": 0.01}),
    (optim.RAdam, radam_ref, {"lr": 0.01}),
    (optim.Adadelta, adadelta_ref, {"lr": 0.5, "rho": 0.8, "weight_decay": 0.05}),
], ids=["Adamax", "NAdam", "RAdam", "Adadelta"])
def test_adam_variants_and_adadelta_trajectories(cls, ref, kw):
    got, _ = run_ember(cls, P0, G, **kw)
    np.testing.assert_allclose(got, ref(P0, G, **kw), rtol=1e-12, atol=1e-14)


def test_named_parameters_keep_their_names():
    model = nn.Linear(2, 2)
    opt = optim.SGD(model.named_parameters(), lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
    assert opt.param_groups[0]["params"][0] is model.weight
    group = opt.state_dict()["param_groups"][0]
    assert group["param_names"] == ["weight", "bias"] and group["params"] == [0, 1]
    opt.add_param_group({"params": [("extra", nn.Parameter(torch.zeros(1)))]})
    assert opt.state_dict()["param_groups"][1]["params"] == [2]
    with pytest.raises(ValueError, match="Some param names are missing"):
        optim.SGD([("w", model.weight), model.bias], lr=0.1)


def test_named_and_unnamed_groups_do_not_mix():
    model = nn.Linear(2, 2)
    with pytest.raises(ValueError, match=r"^all optimizer param groups should be with/without names\. cannot add "
                                         r"param group without names to the optimizer$"):
        optim.SGD([{"params": [("weight", model.weight)]}, {"params": [model.bias]}], lr=0.1)
    opt = optim.SGD([model.weight], lr=0.1)
    with pytest.raises(ValueError, match="cannot add param group with names to the optimizer$"):
        opt.add_param_group({"params": [("bias", model.bias)]})
    # the names follow the caller's keys in the group dict, as PyTorch's
    opt = optim.SGD([{"params": model.named_parameters(), "lr": 0.5}], lr=0.1)
    assert list(opt.param_groups[0])[:3] == ["params", "lr", "param_names"]


def _sgd_float32_reference(p, g, buf, lr, momentum, damp_w, wd, nesterov, first):
    """PyTorch's single-tensor SGD on float32: `buf.mul_(momentum)` rounds, each `add_(y, alpha=a)` is a
    fused multiply-add (exact float32 product, one rounding), emulated here in float64."""
    f32, f64 = np.float32, np.float64
    d = (g.astype(f64) + f64(f32(wd)) * p.astype(f64)).astype(f32) if wd else g
    if momentum:
        buf = d.copy() if first else ((buf * f32(momentum)).astype(f64) + f64(f32(damp_w)) * d.astype(f64)).astype(f32)
        d = (d.astype(f64) + f64(f32(momentum)) * buf.astype(f64)).astype(f32) if nesterov else buf
    return (p.astype(f64) - f64(f32(lr)) * d.astype(f64)).astype(f32), buf


@pytest.mark.parametrize("kw", [dict(lr=0.1), dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-2),
                                dict(lr=0.1, momentum=0.8, dampening=0.3, weight_decay=0.1)])
def test_sgd_float32_rounds_each_step_as_pytorchs_kernel(kw):
    rng = np.random.default_rng(4)
    p0 = rng.standard_normal(2000).astype(np.float32)
    p = nn.Parameter(torch.tensor(p0.copy()))
    opt = optim.SGD([p], **kw)
    ref, buf = p0.copy(), None
    for step in range(5):
        g = rng.standard_normal(2000).astype(np.float32)
        p.grad = torch.tensor(g)
        opt.step()
        ref, buf = _sgd_float32_reference(ref, g, buf, kw["lr"], kw.get("momentum", 0), 1 - kw.get("dampening", 0),
                                          kw.get("weight_decay", 0), kw.get("nesterov", False), step == 0)
        np.testing.assert_array_equal(p.detach().numpy(), ref)


@pytest.mark.torch
def test_sgd_float32_is_bitwise_pytorchs():
    real = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    p0 = rng.standard_normal(3000).astype(np.float32)
    p, q = nn.Parameter(torch.tensor(p0.copy())), real.nn.Parameter(real.tensor(p0.copy()))
    kw = dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=1e-3)
    opt, ref = optim.SGD([p], **kw), real.optim.SGD([q], foreach=False, **kw)
    for _ in range(6):
        g = rng.standard_normal(3000).astype(np.float32)
        p.grad, q.grad = torch.tensor(g.copy()), real.tensor(g.copy())
        opt.step()
        ref.step()
    np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


def test_tensor_lr_and_param_group_checks_as_pytorch():
    p = [nn.Parameter(torch.zeros(2))]
    with pytest.raises(ValueError, match="^lr as a Tensor is not supported for capturable=False and foreach=True$"):
        optim.Adam(p, lr=torch.tensor(0.01), foreach=True)
    with pytest.raises(ValueError, match="^lr as a Tensor is not supported for capturable=False and foreach=True$"):
        optim.AdamW(p, lr=torch.tensor(0.01), foreach=True)
    assert optim.Adam(p, lr=torch.tensor(0.01), foreach=True, capturable=True).param_groups[0]["capturable"]
    for cls in (optim.Adam, optim.AdamW, optim.NAdam, optim.SGD, optim.Adagrad, optim.Adadelta, optim.RMSprop):
        with pytest.raises(ValueError, match="^Tensor lr must be 1-element$"):
            cls(p, lr=torch.tensor([0.1, 0.2]))
    with pytest.raises(TypeError, match=r"^param_group must be a dict, but got <class 'list'>$"):
        optim.SGD(p, lr=0.1).add_param_group([nn.Parameter(torch.zeros(1))])


@pytest.mark.parametrize("name", ["Rprop", "ASGD", "LBFGS"])
def test_complex_parameters_step_as_real_pairs_as_pytorch(name):
    # PyTorch steps a complex parameter as view_as_real (Rprop's imaginary step sizes start at lr too)
    real = pytest.importorskip("torch")
    z0 = np.array([0.5 - 1.0j, -0.3 + 0.2j, 1.2 + 0.7j], np.complex64)
    target = np.array([1.0 + 1.0j, -1.0 + 0.5j, 0.2 - 0.4j], np.complex64)
    kw = {"Rprop": {"lr": 0.05}, "ASGD": {"lr": 0.05, "weight_decay": 0.1}, "LBFGS": {"max_iter": 5}}[name]
    out = []
    for lib, lib_nn, lib_optim in ((torch, nn, optim), (real, real.nn, real.optim)):
        z = lib_nn.Parameter(lib.from_numpy(z0.copy()))
        opt = getattr(lib_optim, name)([z], **kw)
        t = lib.from_numpy(target)

        def closure():
            opt.zero_grad()
            loss = ((z - t).abs() ** 2).sum() + 0.1 * (z.real * z.imag).sum()
            loss.backward()
            return loss

        for _ in range(4):
            opt.step(closure)
        out.append(z.detach().numpy())
    np.testing.assert_allclose(out[0], out[1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["SGD", "Adam", "Adagrad", "RMSprop", "NAdam"])
def test_half_precision_parameters_update_through_float32(name):
    # the fused kernels take float32/64: a bfloat16 parameter and its state update in float32, rounded back
    p = nn.Parameter(torch.linspace(-1, 1, 6, dtype=torch.float64).bfloat16())
    ref = nn.Parameter(p.detach().float())
    opts = [getattr(optim, name)([q], lr=0.05) for q in (p, ref)]
    for q, opt in zip((p, ref), opts):
        q.grad = torch.linspace(0.5, 2.0, 6).to(q.dtype)
        opt.step()
    assert p.dtype == torch.bfloat16 and all(v.dtype == torch.bfloat16 for k, v in opts[0].state[p].items()
                                             if k != "step" and v.dim() > 0)
    np.testing.assert_array_equal(p.detach().float().numpy(), ref.detach().bfloat16().float().numpy())


@pytest.mark.parametrize("momentum, nesterov", [(0.0, False), (0.9, True)])
def test_differentiable_sgd_gives_hypergradients_as_pytorch(momentum, nesterov):
    real = pytest.importorskip("torch")
    out = []
    for lib, lib_optim in ((torch, optim), (real, real.optim)):
        lr = lib.tensor(0.1, requires_grad=True)
        w0 = lib.tensor([1.0, 2.0, -1.0], requires_grad=True)
        c = lib.tensor([1.0, 2.0, 3.0])
        w = w0.clone()  # a non-leaf parameter: allowed with differentiable=True
        opt = lib_optim.SGD([w], lr=lr, momentum=momentum, nesterov=nesterov, differentiable=True, weight_decay=0.01)
        for k in range(2):
            (g,) = lib.autograd.grad((w0**2 * c).sum() * (k + 1), w0, create_graph=True)
            w.grad = g
            opt.step()
        (w**2 * c).sum().backward()
        out.append((lr.grad.item(), w0.grad.numpy().copy(), w.grad_fn.name()))
    assert out[0][2] == out[1][2] == "AddcmulBackward0"
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-6)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-6)


@pytest.mark.parametrize("cls, weight_decay, maximize", [("Adam", 0.0, False), ("Adam", 0.01, True),
                                                         ("AdamW", 0.01, False)])
def test_differentiable_adam_gives_hypergradients_as_pytorch(cls, weight_decay, maximize):
    """PyTorch 2.13's values for three steps of a recorded Adam/AdamW update (its single-tensor tensor ops)."""
    want = {("Adam", False): (-36.563377, [1.4115398, 6.8296375, -4.2483144], [0.7040219, 1.7064900, -0.7097221]),
            ("Adam", True): (57.066223, [2.585428, 9.168992, -7.7597899], [1.2959570, 2.2934899, -1.2902563]),
            ("AdamW", False): (-36.936024, [1.4019233, 6.7864466, -4.2194347], [0.7013230, 1.7007931, -0.7070205])}
    lr = torch.tensor(0.1, requires_grad=True)
    w0 = torch.tensor([1.0, 2.0, -1.0], requires_grad=True)
    c = torch.tensor([1.0, 2.0, 3.0])
    w = w0.clone()  # a non-leaf parameter: allowed with differentiable=True
    opt = getattr(optim, cls)([w], lr=lr, weight_decay=weight_decay, maximize=maximize, differentiable=True)
    for k in range(3):
        (g,) = torch.autograd.grad((w0**2 * c).sum() * (k + 1) + w0.sum(), w0, create_graph=True)
        w.grad = g
        opt.step()
    (w**2 * c).sum().backward()
    lr_grad, w0_grad, w_now = want[(cls, maximize)]
    assert w.grad_fn.name() == "AddcdivBackward0" and opt.state[w]["step"].item() == 3
    np.testing.assert_allclose(lr.grad.item(), lr_grad, rtol=1e-6)
    np.testing.assert_allclose(w0.grad.numpy(), w0_grad, rtol=1e-6)
    np.testing.assert_allclose(w.detach().numpy(), w_now, rtol=1e-6)


def test_differentiable_steps_ember_lacks_are_refused():
    w = torch.ones(2, requires_grad=True).clone()
    opt = optim.RMSprop([w], lr=0.1, differentiable=True)
    w.grad = torch.ones(2)
    with pytest.raises(NotImplementedError, match="RMSprop\\(differentiable=True\\) is not supported yet"):
        opt.step()
    with pytest.raises(ValueError, match="^can't optimize a non-leaf Tensor$"):
        optim.Adam([torch.ones(2, requires_grad=True) * 2])


@pytest.mark.parametrize("cls, what", [
    (optim.Adam, "params and state_steps"), (optim.NAdam, "params, mu_products and state_steps"),
    (optim.ASGD, "params, mus, etas, and state_steps"), (optim.Rprop, "params and state_steps"),
])
def test_capturable_step_on_cpu_is_refused_as_pytorch(cls, what):
    p = nn.Parameter(torch.ones(2))
    opt = cls([p], capturable=True)
    p.grad = torch.ones(2)
    msg = f"If capturable=True, {what} must be on supported devices: ['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']."
    with pytest.raises(AssertionError) as e:
        opt.step()
    assert str(e.value) == msg and p.tolist() == [1.0, 1.0]


def test_lbfgs_keeps_its_curvature_scalars_as_tensors_as_pytorch():
    # PyTorch's H_diag, ro and al are 0-dim tensors of the parameters' dtype (its state_dict shows them; its
    # float32 arithmetic decides the steps)
    real = pytest.importorskip("torch")
    w0 = np.array([[0.3, -1.2, 0.8], [1.5, 0.1, -0.4]], np.float32)
    out = []
    for lib, lib_nn, lib_optim in ((torch, nn, optim), (real, real.nn, real.optim)):
        w = lib_nn.Parameter(lib.from_numpy(w0.copy()))
        opt = lib_optim.LBFGS([w], lr=0.5, max_iter=6, history_size=3, line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = ((w.sin() * 2 + 1) ** 2).mean()
            loss.backward()
            return loss

        for _ in range(2):
            opt.step(closure)
        st = opt.state[w]
        assert isinstance(st["H_diag"], lib.Tensor) and st["H_diag"].dim() == 0
        assert all(isinstance(v, lib.Tensor) and v.dtype == lib.float32 for v in st["ro"] + st["al"] if v is not None)
        out.append(w.detach().numpy().copy())
    np.testing.assert_allclose(out[0], out[1], rtol=1e-5, atol=1e-6)  # the line search rounds otherwise


@pytest.mark.parametrize("cls", [optim.Adam, optim.AdamW, optim.NAdam, optim.RAdam, optim.Adamax, optim.Adagrad,
                                 optim.Adadelta, optim.RMSprop, optim.Rprop, optim.ASGD])
def test_loading_a_pre_option_checkpoint_fills_defaults_and_tensor_steps(cls):
    # a checkpoint from before maximize/foreach/capturable/... existed, with 'step' (and NAdam's mu_product,
    # ASGD's eta/mu) saved as Python numbers: PyTorch's __setstate__ fills the options and makes the tensors
    def fresh():
        p = nn.Parameter(torch.tensor([1.0, -2.0]))
        return p, cls([p], lr=0.01)

    p, opt = fresh()
    p.grad = torch.tensor([0.5, 0.25])
    opt.step()
    sd = opt.state_dict()
    old = {"state": {0: {k: (float(v) if k in cls._tensor_scalars else v) for k, v in sd["state"][0].items()}},
           "param_groups": [{k: v for k, v in sd["param_groups"][0].items()
                             if k not in ("maximize", "foreach", "capturable", "differentiable", "fused")}]}
    q, opt2 = fresh()
    opt2.load_state_dict(old)
    group = opt2.param_groups[0]
    assert (group["maximize"], group["foreach"], group["differentiable"]) == (False, None, False)
    for key in cls._tensor_scalars:
        v = opt2.state[q][key]
        assert torch.is_tensor(v) and v.dtype == torch.float32 and v.dim() == 0
    q.grad = torch.tensor([0.5, 0.25])
    opt2.step()
    assert float(opt2.state[q]["step"]) == 2.0


@pytest.mark.parametrize("decoupled", [False, True])
@pytest.mark.parametrize("amsgrad", [False, True])
@pytest.mark.parametrize("differentiable", [False, True])
def test_functional_adam_and_adamw_step_as_the_optimizer(decoupled, amsgrad, differentiable):
    """`optim.adam.adam`/`optim.adamw.adamw` (PyTorch's functional API) update parameter, moments and step tensor
    in place with the bits of the optimizer's own step (`differentiable`: PyTorch's tensor-op form, close)."""
    from ember.optim.adam import adam
    from ember.optim.adamw import adamw

    rng = np.random.default_rng(0)
    p0, g = rng.standard_normal(5).astype(np.float32), torch.tensor(rng.standard_normal(5).astype(np.float32))
    ref = nn.Parameter(torch.tensor(p0))
    opt = (optim.AdamW if decoupled else optim.Adam)([ref], lr=0.1, weight_decay=0.01, amsgrad=amsgrad)
    p, m, v, vm, step = torch.tensor(p0), torch.zeros(5), torch.zeros(5), torch.zeros(5), torch.tensor(0.0)
    kw = {"amsgrad": amsgrad, "beta1": 0.9, "beta2": 0.999, "lr": 0.1, "weight_decay": 0.01, "eps": 1e-8,
          "maximize": False}
    for _ in range(3):
        ref.grad = g.clone()
        opt.step()
        with torch.no_grad():
            (adamw if decoupled else adam)([p], [g], [m], [v], [vm], [step], differentiable=differentiable, **kw)
    np.testing.assert_allclose(p.numpy(), ref.detach().numpy(), rtol=1e-4 if differentiable else 0)
    np.testing.assert_allclose(v.numpy(), opt.state[ref]["exp_avg_sq"].numpy(), rtol=1e-4 if differentiable else 0)
    assert float(step) == 3.0
    with pytest.raises(RuntimeError, match="^API has changed, `state_steps` argument must contain a list of "
                                           "singleton tensors$"):
        adam([p], [g], [m], [v], [vm], [3], **kw)


def test_functional_sgd_creates_the_momentum_buffer_and_steps_as_the_optimizer():
    from ember.optim.sgd import sgd

    rng = np.random.default_rng(1)
    p0, g = rng.standard_normal(4).astype(np.float32), torch.tensor(rng.standard_normal(4).astype(np.float32))
    ref = nn.Parameter(torch.tensor(p0))
    opt = optim.SGD([ref], lr=0.1, momentum=0.9, weight_decay=0.1, nesterov=True)
    p, bufs = torch.tensor(p0), [None]
    for _ in range(3):
        ref.grad = g.clone()
        opt.step()
        sgd([p], [g], bufs, weight_decay=0.1, momentum=0.9, lr=0.1, dampening=0.0, nesterov=True, maximize=False)
    np.testing.assert_array_equal(p.numpy(), ref.detach().numpy())
    np.testing.assert_array_equal(bufs[0].numpy(), opt.state[ref]["momentum_buffer"].numpy())


def test_adam_modules_export_pytorchs_names():
    # torch.optim.adam exports Adam and its functional form; AdamW belongs to torch.optim.adamw
    from ember.optim import adam, adamw

    assert adam.__all__ == ["Adam", "adam"] and adamw.__all__ == ["AdamW", "adamw"]
