"""Optimizer wrappers researchers write on top of torch.optim: Lookahead around RAdam (sharing the base's
param_groups, its own slow weights in state, a scheduler driving the wrapper), gradient centralization and
per-step gradient noise as step pre-hooks that rewrite the gradients, an EMA of the weights kept by a post-hook,
and a subclass of Adam with a custom state entry that survives state_dict / load_state_dict."""

from collections import defaultdict

import numpy as np
import torch
from torch import nn, optim
from torch.optim import lr_scheduler as S

rng = np.random.default_rng(77)
X = torch.from_numpy(rng.standard_normal((32, 5)).astype(np.float32))
Y = torch.from_numpy(rng.standard_normal((32, 2)).astype(np.float32))
NOISE = [torch.from_numpy(rng.standard_normal((4, 5)).astype(np.float32)) * 0.01 for _ in range(6)]


def model():
    m = nn.Sequential(nn.Linear(5, 4), nn.GELU(), nn.Linear(4, 2))
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(torch.from_numpy(np.cos(np.arange(p.numel()) + i).reshape(p.shape).astype(np.float32)) * 0.4)
    return m


def r(t, k=4):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


class Lookahead(optim.Optimizer):
    def __init__(self, base, k=3, alpha=0.5):
        self.base, self.k, self.alpha = base, k, alpha
        self.param_groups = base.param_groups
        self.defaults = base.defaults
        self.state = defaultdict(dict)
        self._optimizer_step_pre_hooks = {}
        self._optimizer_step_post_hooks = {}
        self.counter = 0

    def step(self, closure=None):
        loss = self.base.step(closure)
        self.counter += 1
        if self.counter % self.k == 0:
            with torch.no_grad():
                for g in self.param_groups:
                    for p in g["params"]:
                        slow = self.state[p].setdefault("slow", p.detach().clone())
                        slow.add_(p - slow, alpha=self.alpha)
                        p.copy_(slow)
        return loss

    def state_dict(self):
        return {
            "base": self.base.state_dict(),
            "counter": self.counter,
            "slow": [self.state[p].get("slow") for g in self.param_groups for p in g["params"]],
        }


m = model()
la = Lookahead(optim.RAdam(m.parameters(), lr=0.05), k=3, alpha=0.5)
sched = S.StepLR(la, step_size=2, gamma=0.5)
hist = []
for step in range(7):
    la.zero_grad()
    loss = nn.functional.mse_loss(m(X), Y)
    loss.backward()
    la.step()
    sched.step()
    hist.append((round(loss.item(), 4), la.param_groups[0]["lr"]))
sd = la.state_dict()
print("lookahead", hist)
print(
    "lookahead_state", sd["counter"], r(sd["slow"][0]), sorted(sd["base"]["state"][0]), isinstance(la, optim.Optimizer)
)

# gradient centralization + noise as a pre-hook, EMA as a post-hook
m = model()
opt = optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
ema = {n: p.detach().clone() for n, p in m.named_parameters()}
calls = {"pre": 0, "post": 0}


def centralize(optimizer, args, kwargs):
    calls["pre"] += 1
    for g in optimizer.param_groups:
        for p in g["params"]:
            if p.grad is not None and p.grad.dim() > 1:
                p.grad.sub_(p.grad.mean(dim=tuple(range(1, p.grad.dim())), keepdim=True))
                p.grad.add_(NOISE[calls["pre"] - 1][: p.grad.shape[0], : p.grad.shape[1]])


def update_ema(optimizer, args, kwargs):
    calls["post"] += 1
    with torch.no_grad():
        for n, p in m.named_parameters():
            ema[n].lerp_(p, 0.2)


h1 = opt.register_step_pre_hook(centralize)
h2 = opt.register_step_post_hook(update_ema)
for step in range(6):
    opt.zero_grad()
    loss = nn.functional.mse_loss(m(X), Y)
    loss.backward()
    opt.step()
print("gc_loss", round(loss.item(), 4), calls, r(m[0].weight.grad.mean(1)))
print("gc_weights", r(m[0].weight), "ema", r(ema["0.weight"]), r(ema["2.bias"], 2))
h1.remove()
h2.remove()
opt.step()
print("after_remove", calls)


# subclass with an extra state entry
class AdamWithCount(optim.Adam):
    @torch.no_grad()
    def step(self, closure=None):
        loss = super().step(closure)
        for g in self.param_groups:
            for p in g["params"]:
                if p.grad is not None:
                    st = self.state[p]
                    st["big_updates"] = st.get("big_updates", torch.zeros_like(p)) + (p.grad.abs() > 0.1).float()
        return loss


m = model()
opt = AdamWithCount(m.parameters(), lr=0.02)
for _ in range(4):
    opt.zero_grad()
    nn.functional.mse_loss(m(X), Y).backward()
    opt.step()
sd = opt.state_dict()
print("custom_state", sorted(sd["state"][0]), r(sd["state"][0]["big_updates"]), type(opt).__mro__[1].__name__)
m2 = model()
opt2 = AdamWithCount(m2.parameters(), lr=0.02)
opt2.load_state_dict(sd)
print("custom_loaded", r(opt2.state[m2[0].weight]["big_updates"]), opt2.state[m2[0].weight]["step"].item())
print("OK")
