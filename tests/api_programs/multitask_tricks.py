"""Optimization tricks of research code: a SAM optimizer wrapping a base optimizer, Lookahead, PCGrad projection of
conflicting task gradients, uncertainty-weighted multi-task losses, a gradient-reversal Function, mixup with a
fixed coefficient, non-finite gradient checks (clip_grad_norm_ error_if_nonfinite, get_total_norm,
clip_grads_with_norm_), and grad-norm bookkeeping with retain_graph."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(23)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def det(m, scale=0.4):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * scale)
    return m


class SAM(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer, rho=0.05, adaptive=False, **kwargs):
        defaults = dict(rho=rho, adaptive=adaptive, **kwargs)
        super().__init__(params, defaults)
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)
        self.param_groups = self.base_optimizer.param_groups
        self.defaults.update(self.base_optimizer.defaults)

    @torch.no_grad()
    def first_step(self):
        grad_norm = self._grad_norm()
        for group in self.param_groups:
            scale = group["rho"] / (grad_norm + 1e-12)
            for p in group["params"]:
                if p.grad is None:
                    continue
                self.state[p]["old_p"] = p.data.clone()
                e_w = (torch.pow(p, 2) if group["adaptive"] else 1.0) * p.grad * scale.to(p)
                p.add_(e_w)

    @torch.no_grad()
    def second_step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                p.data = self.state[p]["old_p"]
        self.base_optimizer.step()

    def _grad_norm(self):
        return torch.norm(
            torch.stack([((torch.abs(p) if g["adaptive"] else 1.0) * p.grad).norm(p=2)
                         for g in self.param_groups for p in g["params"] if p.grad is not None]),
            p=2,
        )


X, Y = T(24, 4), T(24, 1)
net = det(nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1)))
sam = SAM(net.parameters(), torch.optim.SGD, rho=0.1, lr=0.1, momentum=0.9)
print("sam_groups", len(sam.param_groups), sorted(sam.param_groups[0])[:5], sam.defaults["lr"])
for step in range(3):
    F.mse_loss(net(X), Y).backward()
    sam.first_step()
    sam.zero_grad()
    F.mse_loss(net(X), Y).backward()
    sam.second_step()
    sam.zero_grad()
    print("sam", step, round(F.mse_loss(net(X), Y).item(), 4), sorted(sam.state[net[0].weight])[:2])
print("sam_base_state", sorted(sam.base_optimizer.state[net[0].weight]), r(net[2].weight, 4))


class Lookahead:
    def __init__(self, opt, k=2, alpha=0.5):
        self.opt, self.k, self.alpha, self.n = opt, k, alpha, 0
        self.slow = [[p.detach().clone() for p in g["params"]] for g in opt.param_groups]

    def step(self):
        self.opt.step()
        self.n += 1
        if self.n % self.k == 0:
            with torch.no_grad():
                for group, slows in zip(self.opt.param_groups, self.slow):
                    for p, s in zip(group["params"], slows):
                        s.add_(p - s, alpha=self.alpha)
                        p.copy_(s)


net2 = det(nn.Linear(4, 1))
la = Lookahead(torch.optim.Adam(net2.parameters(), lr=0.1), k=3)
for _ in range(6):
    la.opt.zero_grad()
    F.mse_loss(net2(X), Y).backward()
    la.step()
print("lookahead", r(net2.weight), torch.equal(la.slow[0][0], net2.weight))

# PCGrad: project each task gradient off the other's when they conflict
shared = det(nn.Linear(4, 6))
heads = nn.ModuleList([det(nn.Linear(6, 1)) for _ in range(2)])
feats = torch.relu(shared(X))
losses = [F.mse_loss(heads[0](feats), Y), F.mse_loss(heads[1](feats), -Y)]
grads = []
for i, loss in enumerate(losses):
    g = torch.autograd.grad(loss, list(shared.parameters()), retain_graph=i == 0)
    grads.append(torch.cat([t.flatten() for t in g]))
dot = torch.dot(grads[0], grads[1])
print("pcgrad_dot", round(dot.item(), 4), [round(g.norm().item(), 4) for g in grads])
proj = [g.clone() for g in grads]
for i in range(2):
    j = 1 - i
    d = torch.dot(proj[i], grads[j])
    if d < 0:
        proj[i] = proj[i] - d / grads[j].norm() ** 2 * grads[j]
merged = proj[0] + proj[1]
print("pcgrad", r(merged), round(torch.dot(proj[0], grads[1]).item(), 4))
offset = 0
for p in shared.parameters():
    n = p.numel()
    p.grad = merged[offset : offset + n].view_as(p).clone()
    offset += n
print("pcgrad_assigned", r(shared.bias.grad, 4))
try:
    losses[1].backward()
    losses[1].backward()
except RuntimeError as e:
    print("retain_err", str(e).split(".")[0])

# uncertainty weighting (Kendall et al.): learned log variances per task
log_vars = nn.Parameter(torch.zeros(2))
opt = torch.optim.Adam(list(shared.parameters()) + list(heads.parameters()) + [log_vars], lr=0.05)
for _ in range(5):
    feats = torch.relu(shared(X))
    l1, l2 = F.mse_loss(heads[0](feats), Y), F.l1_loss(heads[1](feats), 2 * Y)
    total = sum(torch.exp(-lv) * l + lv for lv, l in zip(log_vars, (l1, l2)))
    opt.zero_grad()
    total.backward()
    opt.step()
print("uncertainty", round(total.item(), 4), r(log_vars), r(log_vars.grad))


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lam):
        ctx.lam = lam
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        return -ctx.lam * g, None


z = T(5, 4).requires_grad_(True)
out = GradReverse.apply(z, 0.3)
out.pow(2).sum().backward()
print("grl", r(z.grad), torch.allclose(z.grad, -0.6 * z), out.grad_fn.__class__.__name__)

# mixup with a fixed coefficient and permutation
lam = 0.7
perm = torch.tensor([3, 0, 4, 1, 2])
xm = lam * z.detach() + (1 - lam) * z.detach()[perm]
ya = torch.tensor([0, 1, 2, 1, 0])
logits = det(nn.Linear(4, 3))(xm)
mix_loss = lam * F.cross_entropy(logits, ya) + (1 - lam) * F.cross_entropy(logits, ya[perm])
soft = lam * F.one_hot(ya, 3).float() + (1 - lam) * F.one_hot(ya[perm], 3).float()
print("mixup", round(mix_loss.item(), 4), round(F.cross_entropy(logits, soft).item(), 4), r(soft[0]))

# non-finite gradients
lin = det(nn.Linear(3, 2))
lin.weight.grad = torch.tensor([[1.0, float("nan"), 0.0], [0.0, 2.0, 1.0]])
lin.bias.grad = torch.tensor([1.0, 1.0])
print("nonfinite_norm", clip_grad := nn.utils.clip_grad_norm_(lin.parameters(), 1.0).item())
try:
    nn.utils.clip_grad_norm_(lin.parameters(), 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print("nonfinite_err", str(e)[:90])
lin.weight.grad = torch.tensor([[3.0, 4.0, 0.0], [0.0, 0.0, 0.0]])
lin.bias.grad = torch.tensor([0.0, 12.0])
grads = [p.grad for p in lin.parameters()]
total = nn.utils.get_total_norm(grads, norm_type=2.0)
print("total_norm", total.item(), nn.utils.get_total_norm(grads, norm_type="inf").item())
nn.utils.clip_grads_with_norm_(lin.parameters(), max_norm=1.3, total_norm=total)
print("clipped", r(lin.weight.grad), r(lin.bias.grad))
norm1 = nn.utils.clip_grad_norm_(lin.parameters(), max_norm=0.5, norm_type=1.0, foreach=True)
print("clip_l1", round(norm1.item(), 4), round(sum(p.grad.abs().sum() for p in lin.parameters()).item(), 4))
print("OK")
