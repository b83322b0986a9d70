"""A 2019 paper's hand-written optimizers (AdamW and RAdam the way their repositories wrote them, with
`p.grad.data`, `add_(1 - beta1, grad)`, `addcmul_(1 - beta2, grad, grad)`, `addcdiv_(-step, m, denom)`), checked
against torch.optim; and the scheduler habits of that era (step before optimizer.step, get_lr, step(epoch))."""

import math
import warnings

import numpy as np
import torch
import torch.nn as nn
from torch.optim import Optimizer

rng = np.random.default_rng(23)


def r(t, k=6):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


def show(w):
    for item in w:
        print("  warn", item.category.__name__, str(item.message).splitlines()[0].split(" (Triggered internally")[0])


class AdamW(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        if not 0.0 <= lr:
            raise ValueError("Invalid learning rate: {}".format(lr))  # noqa: UP032
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
        super(AdamW, self).__init__(params, defaults)  # noqa: UP008

    def step(self, closure=None):
        loss = None
        if closure is not None:
            loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad.data
                if grad.is_sparse:
                    raise RuntimeError("Adam does not support sparse gradients")
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p.data)
                    state["exp_avg_sq"] = torch.zeros_like(p.data)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                beta1, beta2 = group["betas"]
                state["step"] += 1
                p.data.mul_(1 - group["lr"] * group["weight_decay"])
                exp_avg.mul_(beta1).add_(1 - beta1, grad)
                exp_avg_sq.mul_(beta2).addcmul_(1 - beta2, grad, grad)
                denom = (exp_avg_sq.sqrt() / math.sqrt(1 - beta2 ** state["step"])).add_(group["eps"])
                step_size = group["lr"] / (1 - beta1 ** state["step"])
                p.data.addcdiv_(-step_size, exp_avg, denom)
        return loss


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps))

    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad.data.float()
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p.data)
                    state["exp_avg_sq"] = torch.zeros_like(p.data)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                beta1, beta2 = group["betas"]
                exp_avg_sq.mul_(beta2).addcmul_(1 - beta2, grad, grad)
                exp_avg.mul_(beta1).add_(1 - beta1, grad)
                state["step"] += 1
                beta2_t = beta2 ** state["step"]
                n_sma_max = 2 / (1 - beta2) - 1
                n_sma = n_sma_max - 2 * state["step"] * beta2_t / (1 - beta2_t)
                if n_sma >= 5:
                    step_size = math.sqrt((1 - beta2_t) * (n_sma - 4) / (n_sma_max - 4) * (n_sma - 2) / n_sma
                                          * n_sma_max / (n_sma_max - 2)) / (1 - beta1 ** state["step"])
                    denom = exp_avg_sq.sqrt().add_(group["eps"])
                    p.data.addcdiv_(-step_size * group["lr"], exp_avg, denom)
                else:
                    step_size = 1.0 / (1 - beta1 ** state["step"])
                    p.data.add_(-step_size * group["lr"], exp_avg)
                state["n_sma"] = n_sma


def make():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(np.linspace(-0.5, 0.5, p.numel()).reshape(tuple(p.shape)).astype(np.float32)))
    return m


X = torch.from_numpy(rng.standard_normal((16, 4)).astype(np.float32))
Y = torch.from_numpy(rng.standard_normal((16, 1)).astype(np.float32))


def train(opt_fn, steps=6):
    m = make()
    opt = opt_fn(m.parameters())
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(m(X), Y)
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 4))
    return m, opt, losses


with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    m1, o1, l1 = train(lambda ps: AdamW(ps, lr=0.01, weight_decay=0.1))
show(w)
m2, o2, l2 = train(lambda ps: torch.optim.AdamW(ps, lr=0.01, weight_decay=0.1))
print("adamw", l1)
print("torch adamw", l2)
print("same params", all(torch.allclose(a, b, atol=1e-5) for a, b in zip(m1.parameters(), m2.parameters())))
print("state keys", sorted(o1.state[next(m1.parameters())].keys()), o1.state[next(m1.parameters())]["step"])
print("torch state step", o2.state[next(m2.parameters())]["step"])
m3, o3, l3 = train(lambda ps: RAdam(ps, lr=0.05), steps=8)
m4, o4, l4 = train(lambda ps: torch.optim.RAdam(ps, lr=0.05), steps=8)
print("radam", l3)
print("torch radam", l4)
print("radam n_sma", round(o3.state[next(m3.parameters())]["n_sma"], 4))
print("radam params", r(m3[0].weight), r(m4[0].weight))
print("defaults", o1.defaults)
print("repr", repr(o1).splitlines()[0], len(o1.param_groups))
try:
    AdamW(m1.parameters(), lr=-1)
except ValueError as e:
    print("ValueError", e)

# Scheduler habits of 1.0 code.
m = make()
opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    for epoch in range(4):
        sched.step()  # before the optimizer, as pre-1.1 tutorials did
        opt.zero_grad()
        nn.functional.mse_loss(m(X), Y).backward()
        opt.step()
        print("epoch", epoch, sched.get_last_lr(), opt.param_groups[0]["lr"])
    print("get_lr", sched.get_lr())
    sched.step(10)
    print("step(10)", sched.get_last_lr(), sched.last_epoch)
show(w)
