"""MAML as meta-learning code writes it: an inner loop with create_graph (autograd.grad and torch.func versions),
first-order MAML, per-parameter learned step sizes (Meta-SGD), and a task batch via vmap."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def sample_task(n=10):
    amp = torch.rand(()) * 4 + 0.5
    phase = torch.rand(()) * 3.1416
    xs = torch.rand(2 * n, 1) * 10 - 5
    ys = amp * torch.sin(xs + phase)
    return xs[:n], ys[:n], xs[n:], ys[n:]


net = nn.Sequential(nn.Linear(1, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))
meta_opt = torch.optim.Adam(net.parameters(), lr=1e-3)
inner_lr = 0.01


def adapt(params, xs, ys, steps, first_order=False):
    for _ in range(steps):
        loss = F.mse_loss(functional_call(net, params, (xs,)), ys)
        grads = torch.autograd.grad(loss, list(params.values()), create_graph=not first_order)
        params = {k: v - inner_lr * g for (k, v), g in zip(params.items(), grads)}
    return params


# second-order MAML with autograd.grad(create_graph=True)
for it in range(4):
    meta_opt.zero_grad()
    total = 0.0
    for _ in range(3):
        xs, ys, xq, yq = sample_task()
        fast = adapt(dict(net.named_parameters()), xs, ys, steps=2)
        q_loss = F.mse_loss(functional_call(net, fast, (xq,)), yq)
        q_loss.backward()
        total += q_loss.item()
    gnorm = torch.nn.utils.clip_grad_norm_(net.parameters(), 10.0)
    meta_opt.step()
    print(f"maml it {it} query {total / 3:.4f} grad-norm {gnorm.item():.4f}")

# the meta-gradient contains second-order terms: compare with first-order MAML
xs, ys, xq, yq = sample_task()
params = dict(net.named_parameters())
full = torch.autograd.grad(F.mse_loss(functional_call(net, adapt(params, xs, ys, 1), (xq,)), yq), list(params.values()))
fo = torch.autograd.grad(F.mse_loss(functional_call(net, adapt(params, xs, ys, 1, True), (xq,)), yq),
                         list(params.values()))
diff = sum((a - b).abs().sum() for a, b in zip(full, fo)).item()
print("second-order terms non-zero", diff > 0, "fo grad requires_grad", fo[0].requires_grad)

# the same inner loop with torch.func.grad, differentiated by an outer torch.func.grad
def inner_loss(p, x, y):
    return F.mse_loss(functional_call(net, p, (x,)), y)


def outer_loss(p, xs, ys, xq, yq):
    g = grad(inner_loss)(p, xs, ys)
    fast = {k: p[k] - inner_lr * g[k] for k in p}
    return inner_loss(fast, xq, yq)


p0 = {k: v.detach() for k, v in net.named_parameters()}
meta_g = grad(outer_loss)(p0, xs, ys, xq, yq)
print("func meta-grad matches", all(torch.allclose(meta_g[k], f, atol=1e-5) for k, f in zip(p0, full)))

# a batch of tasks with vmap over the outer loss
tasks = [sample_task() for _ in range(4)]
batch = [torch.stack(t) for t in zip(*tasks)]
losses = vmap(outer_loss, in_dims=(None, 0, 0, 0, 0))(p0, *batch)
print("task losses", losses)
per_task_g = vmap(grad(outer_loss), in_dims=(None, 0, 0, 0, 0))(p0, *batch)
print("per-task grad shapes", {k: tuple(v.shape) for k, v in list(per_task_g.items())[:2]})
print("mean of per-task", torch.allclose(per_task_g["4.bias"].mean(0),
                                         torch.stack([grad(outer_loss)(p0, *t)["4.bias"] for t in tasks]).mean(0),
                                         atol=1e-5))

# Meta-SGD: learned per-parameter inner step sizes
alphas = {k: torch.full_like(v, 0.01, requires_grad=True) for k, v in net.named_parameters()}
opt = torch.optim.SGD(list(net.parameters()) + list(alphas.values()), lr=1e-3)
for it in range(3):
    opt.zero_grad()
    xs, ys, xq, yq = sample_task()
    params = dict(net.named_parameters())
    loss = inner_loss(params, xs, ys)
    grads = torch.autograd.grad(loss, list(params.values()), create_graph=True)
    fast = {k: v - alphas[k] * g for (k, v), g in zip(params.items(), grads)}
    q = inner_loss(fast, xq, yq)
    q.backward()
    opt.step()
    print(f"meta-sgd it {it} query {q.item():.4f} alpha-grad {alphas['4.bias'].grad.item():.4f}")
print("alpha mean", round(torch.cat([a.flatten() for a in alphas.values()]).mean().item(), 6))

# misuse: the inner graph freed before the outer backward
xs, ys, xq, yq = sample_task()
params = dict(net.named_parameters())
g_nocg = torch.autograd.grad(inner_loss(params, xs, ys), list(params.values()))
print("no create_graph: grads are constants", all(not g.requires_grad for g in g_nocg))
try:
    lossq = inner_loss(params, xs, ys)
    torch.autograd.grad(lossq, list(params.values()))
    torch.autograd.grad(lossq, list(params.values()))
except RuntimeError as e:
    print("second grad:", str(e).split(".")[0])
