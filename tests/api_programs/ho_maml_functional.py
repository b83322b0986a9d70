"""MAML as meta-learning research code writes it: a model run with explicit parameter lists (F.linear/F.conv2d)
and through torch.func.functional_call, second-order inner loops with create_graph=True against first-order
(detached) ones, per-parameter learned inner learning rates (Meta-SGD), and the meta-gradient checked by finite
differences."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def sample_task(n=10):
    amp = torch.rand(1) * 4.0 + 0.1
    phase = torch.rand(1) * 3.1416
    xs = torch.rand(2 * n, 1) * 10.0 - 5.0
    ys = amp * torch.sin(xs + phase)
    return (xs[:n], ys[:n]), (xs[n:], ys[n:])


def forward(params, x):
    h = F.relu(F.linear(x, params[0], params[1]))
    h = F.relu(F.linear(h, params[2], params[3]))
    return F.linear(h, params[4], params[5])


def init_params():
    sizes = [(16, 1), (16,), (16, 16), (16,), (1, 16), (1,)]
    ps = []
    for s in sizes:
        t = torch.empty(s)
        if len(s) == 2:
            nn.init.kaiming_uniform_(t, a=5 ** 0.5)
        else:
            nn.init.uniform_(t, -0.1, 0.1)
        ps.append(t.requires_grad_())
    return ps


def adapt(params, support, steps, lr, first_order=False):
    xs, ys = support
    fast = list(params)
    for _ in range(steps):
        loss = F.mse_loss(forward(fast, xs), ys)
        grads = torch.autograd.grad(loss, fast, create_graph=not first_order)
        fast = [p - lr * g for p, g in zip(fast, grads)]
    return fast


params = init_params()
meta_opt = torch.optim.Adam(params, lr=1e-3)
tasks = [sample_task() for _ in range(4)]
for it in range(3):
    meta_opt.zero_grad()
    total = 0.0
    for support, query in tasks:
        fast = adapt(params, support, steps=2, lr=0.01)
        q_loss = F.mse_loss(forward(fast, query[0]), query[1])
        (q_loss / len(tasks)).backward()
        total += q_loss.item()
    gn = torch.sqrt(sum(p.grad.pow(2).sum() for p in params))
    meta_opt.step()
    print(f"meta-iter {it}: query loss {total / len(tasks):.4f} meta-grad norm {gn.item():.4f}")

# second-order vs first-order meta-gradients on one task
support, query = tasks[0]
fast2 = adapt(params, support, 1, 0.05)
fast1 = adapt(params, support, 1, 0.05, first_order=True)
print("second-order fast weights have grad_fn:", fast2[0].grad_fn is not None, type(fast2[0].grad_fn).__name__)
g2 = torch.autograd.grad(F.mse_loss(forward(fast2, query[0]), query[1]), params)
g1 = torch.autograd.grad(F.mse_loss(forward(fast1, query[0]), query[1]), params)
print("so vs fo cosine per tensor:", [round(F.cosine_similarity(a.flatten(), b.flatten(), 0).item(), 4)
                                      for a, b in zip(g2, g1)])
print("bias grads so:", g2[5], "fo:", g1[5])

# finite-difference check of the second-order meta-gradient along a random direction, in float64
p64 = [p.detach().double().requires_grad_() for p in params]
sup64 = tuple(t.double() for t in support)
qry64 = tuple(t.double() for t in query)
direction = [torch.randn_like(p) for p in p64]
eps = 1e-6


def meta_loss(ps):
    f = adapt(ps, sup64, 1, 0.05)
    return F.mse_loss(forward(f, qry64[0]), qry64[1])


g64 = torch.autograd.grad(meta_loss(p64), p64)
with torch.no_grad():
    plus = [p + eps * d for p, d in zip(p64, direction)]
    minus = [p - eps * d for p, d in zip(p64, direction)]
plus = [p.requires_grad_() for p in plus]
minus = [p.requires_grad_() for p in minus]
fd = (meta_loss(plus) - meta_loss(minus)).item() / (2 * eps)
analytic = sum((g * d).sum() for g, d in zip(g64, direction)).item()
print("directional meta-grad: fd", round(fd, 4), "analytic", round(analytic, 4), "close:", abs(fd - analytic) < 1e-5)

# Meta-SGD: learned per-parameter inner learning rates
alphas = [torch.full_like(p, 0.01, requires_grad=True) for p in params]
opt = torch.optim.SGD(params + alphas, lr=1e-3)
for it in range(2):
    opt.zero_grad()
    for support, query in tasks[:2]:
        loss = F.mse_loss(forward(params, support[0]), support[1])
        grads = torch.autograd.grad(loss, params, create_graph=True)
        fast = [p - a * g for p, a, g in zip(params, alphas, grads)]
        F.mse_loss(forward(fast, query[0]), query[1]).backward()
    opt.step()
    print(f"meta-sgd {it}: alpha[4] mean {alphas[4].mean().item():.6f} alpha grad norm "
          f"{alphas[4].grad.norm().item():.4f}")

# the same inner loop through functional_call on an nn.Module, with buffers
torch.manual_seed(3)
net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 25, 3))
named = dict(net.named_parameters())
bufs = dict(net.named_buffers())
imgs = torch.randn(6, 1, 5, 5)
labels = torch.tensor([0, 1, 2, 0, 1, 2])
fast = dict(named)
for step in range(2):
    logits = functional_call(net, {**fast, **bufs}, (imgs,))
    loss = F.cross_entropy(logits, labels)
    grads = torch.autograd.grad(loss, list(fast.values()), create_graph=True)
    fast = {k: v - 0.1 * g for (k, v), g in zip(fast.items(), grads)}
    print(f"inner {step}: loss {loss.item():.4f}")
q_logits = functional_call(net, {**fast, **bufs}, (imgs,))
q_loss = F.cross_entropy(q_logits, labels)
q_loss.backward()
print("outer loss:", round(q_loss.item(), 4), "conv grad norm:", round(net[0].weight.grad.norm().item(), 4))
print("bn buffers updated by functional_call:", bufs["1.num_batches_tracked"].item(),
      net[1].running_mean.abs().sum().item() > 0)
print("module params untouched:", all(torch.equal(named[k], dict(net.named_parameters())[k]) for k in named))
print("grad_fn of fast conv weight:", type(fast["0.weight"].grad_fn).__name__)
