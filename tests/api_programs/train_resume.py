"""Training infrastructure: activation checkpointing (reentrant and not), gradient accumulation with clipping,
add_param_group, optimizer and scheduler state_dicts saved mid-training and resumed, EMA with _foreach ops,
parameters_to_vector / vector_to_parameters."""

import io
import numpy as np
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential
from torch.nn.utils import parameters_to_vector, vector_to_parameters, clip_grad_norm_, clip_grad_value_

rng = np.random.default_rng(7)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def det(m, scale=0.3):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * scale)
    return m


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc1 = nn.Linear(d, 2 * d)
        self.fc2 = nn.Linear(2 * d, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x, scale=1.0):
        return x + scale * self.fc2(torch.tanh(self.fc1(self.norm(x))))


class Net(nn.Module):
    def __init__(self, d=6, n=3, reentrant=None):
        super().__init__()
        self.blocks = nn.ModuleList(Block(d) for _ in range(n))
        self.head = nn.Linear(d, 1)
        self.reentrant = reentrant

    def forward(self, x):
        for b in self.blocks:
            if self.reentrant is None:
                x = b(x, scale=0.5)
            else:
                x = checkpoint(b, x, 0.5, use_reentrant=self.reentrant)
        return self.head(x)


X, Y = T(16, 6), T(16, 1)
base = det(Net())
grads = {}
for mode in (None, False, True):
    net = Net(reentrant=mode)
    net.load_state_dict(base.state_dict())
    x = X.clone().requires_grad_(True)
    loss = nn.functional.mse_loss(net(x), Y)
    loss.backward()
    grads[mode] = [p.grad.clone() for p in net.parameters()]
    print("ckpt", mode, round(loss.item(), 4), r(net.blocks[0].fc1.weight.grad, 4), r(x.grad, 3))
same = all(torch.allclose(a, b, atol=1e-6) for a, b in zip(grads[None], grads[True]))
print("ckpt_same", same, all(torch.allclose(a, b, atol=1e-6) for a, b in zip(grads[None], grads[False])))
seq = det(nn.Sequential(nn.Linear(6, 6), nn.ReLU(), nn.Linear(6, 6), nn.Tanh(), nn.Linear(6, 2)))
xs = X.clone().requires_grad_(True)
out = checkpoint_sequential(seq, 2, xs, use_reentrant=False)
out.sum().backward()
print("ckpt_seq", out.shape, r(out, 4), r(xs.grad, 4))

# gradient accumulation over 4 micro-batches with clipping; clip_grad_norm_ returns the total norm
net = Net()
net.load_state_dict(base.state_dict())
opt = torch.optim.AdamW(net.parameters(), lr=1e-2, weight_decay=0.05, betas=(0.9, 0.95))
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=8)
accum = 4
norms = []
for step in range(3):
    for micro in range(accum):
        xb, yb = X[micro * 4 : (micro + 1) * 4], Y[micro * 4 : (micro + 1) * 4]
        loss = nn.functional.mse_loss(net(xb), yb) / accum
        loss.backward()
    total = clip_grad_norm_(net.parameters(), max_norm=0.5)
    norms.append(round(total.item(), 4))
    opt.step()
    sched.step()
    opt.zero_grad(set_to_none=True)
print("accum_norms", norms, type(total).__name__, total.dtype, total.dim())
print("lr_now", [round(g["lr"], 6) for g in opt.param_groups], round(opt.param_groups[0]["betas"][0], 4))
print("grad_none", all(p.grad is None for p in net.parameters()))
inf_norm = clip_grad_norm_([p for p in net.parameters()], 1.0, norm_type="inf")
print("inf_norm_no_grads", inf_norm.item())

# save optimizer + scheduler state mid-training and resume in fresh objects
buf = io.BytesIO()
torch.save({"model": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()}, buf)
buf.seek(0)
ck = torch.load(buf, weights_only=True)
print("ck_opt_keys", sorted(ck["opt"].keys()), sorted(ck["opt"]["state"][0].keys()))
print("ck_step", ck["opt"]["state"][0]["step"], ck["opt"]["param_groups"][0]["params"][:4])
print("ck_sched", ck["sched"]["last_epoch"], ck["sched"]["total_steps"], round(ck["sched"]["_last_lr"][0], 6))
net2 = Net()
net2.load_state_dict(ck["model"])
opt2 = torch.optim.AdamW(net2.parameters(), lr=1e-2, weight_decay=0.05, betas=(0.9, 0.95))
sched2 = torch.optim.lr_scheduler.OneCycleLR(opt2, max_lr=0.05, total_steps=8)
opt2.load_state_dict(ck["opt"])
sched2.load_state_dict(ck["sched"])
for o, s, m in ((opt, sched, net), (opt2, sched2, net2)):
    for _ in range(2):
        loss = nn.functional.mse_loss(m(X), Y)
        loss.backward()
        o.step()
        s.step()
        o.zero_grad()
print("resumed", r(net.head.weight), r(net2.head.weight), torch.equal(net.head.weight, net2.head.weight))
print("resumed_lr", round(sched.get_last_lr()[0], 6), round(sched2.get_last_lr()[0], 6))
print("exp_avg_sq", r(opt2.state[net2.head.weight]["exp_avg_sq"], 4))

# add_param_group: a new head joins with its own lr
extra = det(nn.Linear(6, 1))
sgd = torch.optim.SGD(net.blocks.parameters(), lr=0.1, momentum=0.9, nesterov=True)
sgd.add_param_group({"params": extra.parameters(), "lr": 0.01})
print("groups", len(sgd.param_groups), [len(g["params"]) for g in sgd.param_groups])
print("group_defaults", sgd.param_groups[1]["momentum"], sgd.param_groups[1]["nesterov"], sgd.param_groups[1]["lr"])
try:
    sgd.add_param_group({"params": extra.parameters()})
except ValueError as e:
    print("dup_group", type(e).__name__, str(e))
for _ in range(2):
    loss = (net(X) + extra(X)).pow(2).mean()
    sgd.zero_grad()
    loss.backward()
    sgd.step()
print("extra_w", r(extra.weight), len(sgd.state))
print("mom_buf", r(sgd.state[extra.weight]["momentum_buffer"], 4))

# EMA of parameters with _foreach ops
ema = [p.detach().clone() for p in net.parameters()]
for _ in range(3):
    with torch.no_grad():
        for p in net.parameters():
            p.mul_(0.9).add_(0.01)
        torch._foreach_mul_(ema, 0.99)
        torch._foreach_add_(ema, list(net.parameters()), alpha=0.01)
print("ema", r(ema[0], 4), r(ema[-1]))
norms = torch._foreach_norm(ema)
print("foreach_norm", len(norms), [round(n.item(), 4) for n in norms[:3]])
lerped = [e.clone() for e in ema]
torch._foreach_lerp_(lerped, list(net.parameters()), 0.5)
print("foreach_lerp", r(lerped[-1]))
sq = torch._foreach_sqrt(torch._foreach_abs(ema[:2]))
print("foreach_sqrt", r(sq[1], 4))

# flatten parameters to one vector and back
vec = parameters_to_vector(net.parameters())
print("vec", vec.shape, r(vec, 4), round(vec.norm().item(), 4))
vector_to_parameters(torch.zeros_like(vec), net.parameters())
print("zeroed", net.head.weight.abs().sum().item(), net.blocks[2].norm.bias.sum().item())
vector_to_parameters(vec, net.parameters())
print("restored", torch.equal(parameters_to_vector(net.parameters()), vec))
col = vec.clone().view(-1, 1)
vector_to_parameters(col, net.parameters())
col.mul_(2)
print("aliased", r(net.head.weight, 3), net.head.weight.requires_grad, type(net.head.weight).__name__)
for bad in (vec[:100], [0.0] * 529):
    try:
        vector_to_parameters(bad, net.parameters())
    except (RuntimeError, TypeError) as e:
        print("vec_err", type(e).__name__, str(e))
p = nn.Parameter(T(3, 3))
p.grad = T(3, 3) * 3
clip_grad_value_([p], 0.5)
print("clip_value", r(p.grad), p.grad.abs().max().item())
print("OK")
