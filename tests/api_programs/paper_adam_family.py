"""Adam (Kingma & Ba 2015), AMSGrad, AdamW (Loshchilov & Hutter 2019), RAdam (Liu et al. 2020), NAdam and Lookahead
(Zhang et al. 2019) written from their papers' pseudo-code and run side by side with torch.optim on a small
regression net; prints trajectories, the state the optimizers keep, and the errors of bad hyper-parameters."""

import math

import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(2014)
X = torch.from_numpy(rng.standard_normal((32, 5)).astype(np.float32))
Y = torch.from_numpy((X.numpy() @ rng.standard_normal((5, 1)) + 0.1).astype(np.float32))
W1 = rng.standard_normal((8, 5)).astype(np.float32) * 0.4
W2 = rng.standard_normal((1, 8)).astype(np.float32) * 0.4


def make_net():
    net = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 1))
    with torch.no_grad():
        net[0].weight.copy_(torch.from_numpy(W1))
        net[0].bias.fill_(0.05)
        net[2].weight.copy_(torch.from_numpy(W2))
        net[2].bias.zero_()
    return net


def loss_of(net):
    return nn.functional.mse_loss(net(X), Y)


class PaperAdam:
    """Algorithm 1 of each paper; `kind` picks adam, amsgrad, adamw, radam or nadam."""

    def __init__(self, params, kind, lr=1e-2, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        self.params, self.kind, self.lr, self.betas, self.eps, self.wd = (
            list(params),
            kind,
            lr,
            betas,
            eps,
            weight_decay,
        )
        self.t = 0
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]
        self.vmax = [torch.zeros_like(p) for p in self.params]
        self.mu_product = 1.0

    @torch.no_grad()
    def step(self):
        self.t += 1
        b1, b2 = self.betas
        t = self.t
        for p, m, v, vmax in zip(self.params, self.m, self.v, self.vmax):
            g = p.grad.clone()
            if self.kind == "adamw":
                p.mul_(1 - self.lr * self.wd)
            elif self.wd:
                g.add_(p, alpha=self.wd)
            m.mul_(b1).add_(g, alpha=1 - b1)
            v.mul_(b2).addcmul_(g, g, value=1 - b2)
            bc1, bc2 = 1 - b1**t, 1 - b2**t
            if self.kind == "radam":
                rho_inf = 2 / (1 - b2) - 1
                rho_t = rho_inf - 2 * t * b2**t / bc2
                mhat = m / bc1
                if rho_t > 5:
                    rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                    p.add_(mhat * rect * math.sqrt(bc2) / (v.sqrt() + self.eps), alpha=-self.lr)
                else:
                    p.add_(mhat, alpha=-self.lr)
                continue
            if self.kind == "nadam":
                mu_t = b1 * (1 - 0.5 * 0.96 ** (t * 0.004))
                mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * 0.004))
                if p is self.params[0]:
                    self.mu_product *= mu_t
                denom = (v / bc2).sqrt() + self.eps
                p.addcdiv_(g, denom, value=-self.lr * (1 - mu_t) / (1 - self.mu_product))
                p.addcdiv_(m, denom, value=-self.lr * mu_next / (1 - self.mu_product * mu_next))
                continue
            if self.kind == "amsgrad":
                torch.maximum(vmax, v, out=vmax)
                v = vmax
            denom = (v.sqrt() / math.sqrt(bc2)).add_(self.eps)
            p.addcdiv_(m, denom, value=-self.lr / bc1)


configs = [
    ("adam", lambda ps: torch.optim.Adam(ps, lr=1e-2), {}),
    ("amsgrad", lambda ps: torch.optim.Adam(ps, lr=1e-2, amsgrad=True), {}),
    ("adam_l2", lambda ps: torch.optim.Adam(ps, lr=1e-2, weight_decay=0.1), {"weight_decay": 0.1}),
    ("adamw", lambda ps: torch.optim.AdamW(ps, lr=1e-2, weight_decay=0.1), {"weight_decay": 0.1}),
    ("radam", lambda ps: torch.optim.RAdam(ps, lr=1e-2), {}),
    ("nadam", lambda ps: torch.optim.NAdam(ps, lr=1e-2), {}),
]
for kind, make, kw in configs:
    a, b = make_net(), make_net()
    opt_a = make(a.parameters())
    opt_b = PaperAdam(b.parameters(), kind.replace("adam_l2", "adam"), **kw)
    traj = []
    for step in range(8):
        opt_a.zero_grad()
        la = loss_of(a)
        la.backward()
        opt_a.step()
        for p in b.parameters():
            p.grad = None
        loss_of(b).backward()
        opt_b.step()
        traj.append(round(la.item(), 4))
    diff = max((pa - pb).abs().max().item() for pa, pb in zip(a.parameters(), b.parameters()))
    st = opt_a.state[a[0].weight]
    print(kind, traj, diff < 1e-5, sorted(st.keys()), st["step"])
    print(
        " ",
        kind,
        np.round(a[2].weight.detach().double().numpy()[0, :4], 4).tolist(),
        opt_a.defaults.get("decoupled_weight_decay"),
    )


class Lookahead:
    """k fast steps of an inner optimizer, then slow weights move alpha of the way."""

    def __init__(self, base, k=3, alpha=0.5):
        self.base, self.k, self.alpha = base, k, alpha
        self.param_groups = base.param_groups
        self.defaults = base.defaults
        self.state = base.state
        self.slow = [[p.detach().clone() for p in g["params"]] for g in self.param_groups]
        self.counter = 0

    def zero_grad(self, set_to_none=True):
        self.base.zero_grad(set_to_none=set_to_none)

    @torch.no_grad()
    def step(self, closure=None):
        loss = self.base.step(closure)
        self.counter += 1
        if self.counter % self.k == 0:
            for group, slows in zip(self.param_groups, self.slow):
                for p, s in zip(group["params"], slows):
                    s.add_(p - s, alpha=self.alpha)
                    p.copy_(s)
        return loss


net = make_net()
la = Lookahead(torch.optim.Adam(net.parameters(), lr=5e-2), k=3, alpha=0.5)
for step in range(7):
    la.zero_grad()

    def closure():
        la.zero_grad()
        loss = loss_of(net)
        loss.backward()
        return loss

    loss = la.step(closure)
    print("lookahead", step, round(loss.item(), 4), round(net[0].weight[0, 0].item(), 4))
print("lookahead_lr", [g["lr"] for g in la.param_groups], isinstance(la, torch.optim.Optimizer))

sched = torch.optim.lr_scheduler.LambdaLR(la.base, lambda s: 0.5**s)
sched.step()
print("sched", sched.get_last_lr(), la.param_groups[0]["lr"])

opt = torch.optim.AdamW(make_net().parameters(), lr=1e-3, betas=(0.9, 0.98), eps=1e-9, amsgrad=True)
print(opt)
sd = opt.state_dict()
print(sorted(sd["param_groups"][0].keys()))
for bad in (
    lambda: torch.optim.Adam(make_net().parameters(), lr=-1.0),
    lambda: torch.optim.Adam(make_net().parameters(), betas=(1.0, 0.999)),
    lambda: torch.optim.Adam(make_net().parameters(), betas=(0.9, -0.1)),
    lambda: torch.optim.AdamW(make_net().parameters(), eps=-1e-8),
    lambda: torch.optim.RAdam(make_net().parameters(), weight_decay=-0.1),
    lambda: torch.optim.NAdam(make_net().parameters(), momentum_decay=-1),
    lambda: torch.optim.Adam([]),
):
    try:
        bad()
    except (ValueError, RuntimeError) as e:
        print(type(e).__name__, e)
