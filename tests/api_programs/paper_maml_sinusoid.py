"""MAML (Finn et al. 2017) on the paper's sinusoid regression: second-order inner loops with autograd.grad
(create_graph=True) on a functional MLP, the same with torch.func (functional_call, grad, vmap over tasks),
first-order MAML, Reptile (Nichol et al. 2018), and meta-SGD's learned per-parameter step sizes."""

import numpy as np
import torch
from torch import nn
from torch.func import functional_call, grad, vmap
import torch.nn.functional as F

rng = np.random.default_rng(1703)


def tasks(n, k):
    amp = rng.uniform(0.1, 5.0, (n, 1, 1))
    phase = rng.uniform(0, np.pi, (n, 1, 1))
    xs = rng.uniform(-5, 5, (n, 2 * k, 1))
    ys = amp * np.sin(xs - phase)
    t = lambda a: torch.from_numpy(a.astype(np.float32))  # noqa: E731
    return t(xs[:, :k]), t(ys[:, :k]), t(xs[:, k:]), t(ys[:, k:])


def make_model():
    net = nn.Sequential(nn.Linear(1, 20), nn.ReLU(), nn.Linear(20, 20), nn.ReLU(), nn.Linear(20, 1))
    g = np.random.default_rng(0)
    with torch.no_grad():
        for p in net.parameters():
            bound = 1 / np.sqrt(p.shape[-1]) if p.dim() > 1 else 0.1
            p.copy_(torch.from_numpy(g.uniform(-bound, bound, tuple(p.shape)).astype(np.float32)))
    return net


def forward(params, x):
    h = F.relu(F.linear(x, params[0], params[1]))
    h = F.relu(F.linear(h, params[2], params[3]))
    return F.linear(h, params[4], params[5])


xs, ys, xq, yq = tasks(4, 5)
print("tasks", xs.shape, yq.shape, xs.dtype)

# second-order MAML with autograd.grad
net = make_model()
meta_opt = torch.optim.Adam(net.parameters(), lr=1e-3)
inner_lr = 0.01
for it in range(3):
    meta_opt.zero_grad()
    outer = 0.0
    for t in range(4):
        fast = list(net.parameters())
        for _ in range(2):
            loss = F.mse_loss(forward(fast, xs[t]), ys[t])
            grads = torch.autograd.grad(loss, fast, create_graph=True)
            fast = [w - inner_lr * g for w, g in zip(fast, grads)]
        q = F.mse_loss(forward(fast, xq[t]), yq[t])
        outer = outer + q / 4
    outer.backward()
    gnorm = torch.sqrt(sum(p.grad.pow(2).sum() for p in net.parameters()))
    meta_opt.step()
    print("maml2", it, round(outer.item(), 4), round(gnorm.item(), 4), fast[0].grad_fn is not None, fast[0].is_leaf)
so_grad = [p.grad.clone() for p in net.parameters()]


# the same meta-gradient with torch.func, vmapped over tasks
def inner_loss(params, x, y):
    return F.mse_loss(functional_call(net, params, (x,)), y)


def adapted_query_loss(params, x, y, xq_, yq_):
    for _ in range(2):
        g = grad(inner_loss)(params, x, y)
        params = {k: params[k] - inner_lr * g[k] for k in params}
    return inner_loss(params, xq_, yq_)


net_b = make_model()
params = {k: v.detach() for k, v in net_b.named_parameters()}
per_task = vmap(adapted_query_loss, in_dims=(None, 0, 0, 0, 0))(params, xs, ys, xq, yq)
meta_grads = grad(lambda p: vmap(adapted_query_loss, in_dims=(None, 0, 0, 0, 0))(p, xs, ys, xq, yq).mean())(params)
print("func_per_task", np.round(per_task.double().numpy(), 4).tolist(), per_task.shape)
print("func_meta_grad", sorted(meta_grads), [tuple(v.shape) for v in meta_grads.values()][:2])

# check against the autograd version on a fresh model, one iteration
chk = make_model()
outer = 0.0
for t in range(4):
    fast = list(chk.parameters())
    for _ in range(2):
        gr = torch.autograd.grad(F.mse_loss(forward(fast, xs[t]), ys[t]), fast, create_graph=True)
        fast = [w - inner_lr * g for w, g in zip(fast, gr)]
    outer = outer + F.mse_loss(forward(fast, xq[t]), yq[t]) / 4
outer.backward()
print(
    "agree",
    all(torch.allclose(p.grad, meta_grads[n], atol=1e-5) for n, p in chk.named_parameters()),
    round(outer.item(), 4),
    round(per_task.mean().item(), 4),
)

# first-order MAML: no create_graph, gradient of the query loss at the adapted weights
fo = make_model()
fo_grads = [torch.zeros_like(p) for p in fo.parameters()]
for t in range(4):
    fast = [p.detach().clone().requires_grad_(True) for p in fo.parameters()]
    for _ in range(2):
        gr = torch.autograd.grad(F.mse_loss(forward(fast, xs[t]), ys[t]), fast)
        fast = [(w - inner_lr * g).detach().requires_grad_(True) for w, g in zip(fast, gr)]
    q = F.mse_loss(forward(fast, xq[t]), yq[t])
    for acc, g in zip(fo_grads, torch.autograd.grad(q, fast)):
        acc += g / 4
print(
    "fomaml_vs_maml",
    round(
        sum(
            (a - b).abs().sum() for a, b in zip(fo_grads, chk.parameters() and [p.grad for p in chk.parameters()])
        ).item(),
        4,
    ),
)

# Reptile: move towards task-adapted weights
rep = make_model()
for t in range(4):
    before = [p.detach().clone() for p in rep.parameters()]
    inner = torch.optim.SGD(rep.parameters(), lr=0.02)
    for _ in range(3):
        inner.zero_grad()
        F.mse_loss(rep(xs[t]), ys[t]).backward()
        inner.step()
    with torch.no_grad():
        for p, b in zip(rep.parameters(), before):
            p.copy_(b + 0.5 * (p - b))
    print("reptile", t, round(F.mse_loss(rep(xq[t]), yq[t]).item(), 4))

# meta-SGD: per-parameter learning rates are meta-learned too
base = make_model()
alphas = [nn.Parameter(torch.full_like(p, 0.01)) for p in base.parameters()]
opt = torch.optim.Adam([{"params": base.parameters()}, {"params": alphas, "lr": 1e-4}], lr=1e-3)
for it in range(2):
    opt.zero_grad()
    fast = list(base.parameters())
    gr = torch.autograd.grad(F.mse_loss(forward(fast, xs[0]), ys[0]), fast, create_graph=True)
    fast = [w - a * g for w, a, g in zip(fast, alphas, gr)]
    q = F.mse_loss(forward(fast, xq[0]), yq[0])
    q.backward()
    opt.step()
    print(
        "meta_sgd",
        it,
        round(q.item(), 4),
        round(alphas[4].grad.abs().sum().item(), 4),
        round(alphas[5].mean().item(), 6),
    )
print("groups", [len(g["params"]) for g in opt.param_groups], [g["lr"] for g in opt.param_groups])
# batch norm inside vmapped tasks: running stats must be dropped (or batched) first
bn_net = nn.Sequential(nn.Linear(1, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 1))
bn_params = {k: torch.linspace(-0.6, 0.8, v.numel()).view_as(v) for k, v in bn_net.named_parameters()}
try:
    vmap(lambda p, x: functional_call(bn_net, p, (x,)), in_dims=(None, 0))(bn_params, xs)
except RuntimeError as e:
    print("RuntimeError", str(e).split("\n")[0])
print("bn_untouched", bn_net[1].running_mean.abs().sum().item(), bn_net[1].num_batches_tracked.item())
torch.func.replace_all_batch_norm_modules_(bn_net)
out = vmap(lambda p, x: functional_call(bn_net, p, (x,)), in_dims=(None, 0))(bn_params, xs)
print(
    "bn_patched",
    out.shape,
    bn_net[1].running_mean,
    bn_net[1].track_running_stats,
    round(out.mean(1).abs().sum().item(), 4),
)
try:
    grad(lambda p: functional_call(net, p, (xs[0],)))(params)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    functional_call(net, {"0.weight": torch.zeros(3, 3)}, (xs[0],))
except RuntimeError as e:
    print("RuntimeError", str(e).split("\n")[0])
