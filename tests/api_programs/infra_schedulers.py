"""Learning-rate schedules as training libraries build them: cosine with linear warmup written by hand (timm's
CosineLRScheduler arithmetic, per-step and per-epoch), the same through LambdaLR, SequentialLR of LinearLR and
CosineAnnealingLR, CosineAnnealingWarmRestarts with fractional epochs, scheduler state_dict round-trips, a
LearningRateMonitor callback, and the warnings and errors of typical misuse."""

import math
import warnings

import numpy as np
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import (
    ChainedScheduler,
    CosineAnnealingLR,
    CosineAnnealingWarmRestarts,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    MultiStepLR,
    OneCycleLR,
    ReduceLROnPlateau,
    SequentialLR,
)


def rl(xs, n=5):
    return [round(float(x), n) for x in xs]


class CosineWarmup:
    """timm-like: warmup_lr_init -> base over warmup_t, then half-cosine down to lr_min over t_initial."""

    def __init__(self, optimizer, t_initial, lr_min=0.0, warmup_t=0, warmup_lr_init=0.0, k_decay=1.0):
        self.optimizer = optimizer
        self.base_values = [g["initial_lr"] if "initial_lr" in g else g["lr"] for g in optimizer.param_groups]
        for g, b in zip(optimizer.param_groups, self.base_values):
            g.setdefault("initial_lr", b)
        self.t_initial, self.lr_min, self.k_decay = t_initial, lr_min, k_decay
        self.warmup_t, self.warmup_lr_init = warmup_t, warmup_lr_init
        self.warmup_steps = [(v - warmup_lr_init) / warmup_t for v in self.base_values] if warmup_t else [1.0]
        self.step(0)

    def _get_lr(self, t):
        if t < self.warmup_t:
            return [self.warmup_lr_init + t * s for s in self.warmup_steps]
        t = t - self.warmup_t
        k = self.k_decay
        return [self.lr_min + 0.5 * (b - self.lr_min) * (1 + math.cos(math.pi * t**k / self.t_initial**k))
                for b in self.base_values]

    def step(self, epoch):
        for g, lr in zip(self.optimizer.param_groups, self._get_lr(epoch)):
            g["lr"] = lr

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}


class LearningRateMonitor:
    def __init__(self, logging_interval="step"):
        self.logging_interval = logging_interval
        self.history = {}

    def on_train_batch_start(self, optimizers, names):
        for opt, name in zip(optimizers, names):
            for i, g in enumerate(opt.param_groups):
                key = f"lr-{name}" + (f"/pg{i + 1}" if len(opt.param_groups) > 1 else "")
                self.history.setdefault(key, []).append(g["lr"])
                if "momentum" in g:
                    self.history.setdefault(f"momentum-{name}", []).append(g["momentum"])


def make_opt(lr=0.1):
    net = nn.Linear(2, 1)
    return torch.optim.SGD([{"params": [net.weight]}, {"params": [net.bias], "lr": lr * 10}], lr=lr, momentum=0.9)


opt = make_opt()
hand = CosineWarmup(opt, t_initial=6, lr_min=1e-3, warmup_t=2, warmup_lr_init=1e-4)
mon = LearningRateMonitor()
for epoch in range(9):
    mon.on_train_batch_start([opt], ["SGD"])
    opt.step()
    hand.step(epoch + 1)
print("hand pg1", rl(mon.history["lr-SGD/pg1"]))
print("hand pg2", rl(mon.history["lr-SGD/pg2"], 4))
print("monitor keys", sorted(mon.history), len(mon.history["momentum-SGD"]))
print("hand state", sorted(hand.state_dict())[:4])

warmup, total = 3, 10


def lr_lambda(step):
    if step < warmup:
        return float(step + 1) / float(max(1, warmup))
    progress = float(step - warmup) / float(max(1, total - warmup))
    return max(0.0, 0.5 * (1.0 + math.cos(math.pi * progress)))


opt = make_opt()
sched = LambdaLR(opt, lr_lambda=[lr_lambda, lambda s: 0.95**s])
lrs = []
for step in range(total):
    lrs.append(sched.get_last_lr())
    opt.step()
    sched.step()
print("lambda pg1", rl(l[0] for l in lrs))
print("lambda pg2", rl((l[1] for l in lrs), 4))
sd = sched.state_dict()
print("lambda state", sorted(sd), sd["last_epoch"], sd["lr_lambdas"], rl(sd["base_lrs"]))

opt = make_opt()
s1 = LinearLR(opt, start_factor=0.1, end_factor=1.0, total_iters=3)
s2 = CosineAnnealingLR(opt, T_max=5, eta_min=0.001)
seq = SequentialLR(opt, schedulers=[s1, s2], milestones=[3])
out = []
for _ in range(9):
    out.append(opt.param_groups[0]["lr"])
    opt.step()
    seq.step()
print("sequential", rl(out))
ssd = seq.state_dict()
print("seq state", sorted(ssd), ssd["_milestones"], ssd["last_epoch"], len(ssd["_schedulers"]))
opt_b = make_opt()
seq_b = SequentialLR(opt_b, [LinearLR(opt_b, 0.1, total_iters=3), CosineAnnealingLR(opt_b, T_max=5, eta_min=0.001)],
                     milestones=[3])
seq_b.load_state_dict(ssd)
print("seq restored", seq_b.last_epoch, rl(seq_b.get_last_lr()), rl(seq.get_last_lr()))

opt = make_opt()
wr = CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.01)
iters = 4
vals = []
for epoch in range(5):
    for i in range(iters):
        wr.step(epoch + i / iters)
        vals.append(opt.param_groups[0]["lr"])
print("restarts", rl(vals[::3], 4), wr.T_i, wr.T_cur, wr.T_0)
try:
    CosineAnnealingWarmRestarts(opt, T_0=0)
except ValueError as e:
    print("ValueError", e)
try:
    CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=1.5)
except ValueError as e:
    print("ValueError", e)

opt = make_opt()
chain = ChainedScheduler([ExponentialLR(opt, gamma=0.9), MultiStepLR(opt, milestones=[2, 4], gamma=0.5)])
cv = []
for _ in range(6):
    opt.step()
    chain.step()
    cv.append(chain.get_last_lr()[0])
print("chained", rl(cv))

opt = make_opt(0.05)
oc = OneCycleLR(opt, max_lr=[0.1, 1.0], total_steps=8, pct_start=0.25, anneal_strategy="cos", div_factor=10)
ov, mv = [], []
for _ in range(8):
    ov.append(opt.param_groups[0]["lr"])
    mv.append(opt.param_groups[0]["momentum"])
    opt.step()
    oc.step()
print("onecycle", rl(ov), rl(mv, 4))
try:
    oc.step()
except ValueError as e:
    print("ValueError", str(e)[:60])

opt = make_opt()
plateau = ReduceLROnPlateau(opt, mode="max", factor=0.5, patience=1, threshold=0.01, min_lr=[0.02, 0.3])
for metric in [0.5, 0.6, 0.6, 0.6, 0.61, 0.6, 0.6, 0.6]:
    plateau.step(metric)
print("plateau", rl(plateau.get_last_lr()), plateau.num_bad_epochs, plateau.best, plateau.cooldown_counter)
print("plateau state", sorted(k for k in plateau.state_dict() if not k.startswith("_")))

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    opt = make_opt()
    s = ExponentialLR(opt, gamma=0.5)
    s.step()
    print("order warning", len(w), w[0].category.__name__ if w else None, rl(s.get_last_lr()))
try:
    LambdaLR(opt, lr_lambda=[lambda e: 1.0])
except ValueError as e:
    print("ValueError", e)
try:
    LinearLR(opt, start_factor=0)
except ValueError as e:
    print("ValueError", e)
try:
    SequentialLR(opt, schedulers=[ExponentialLR(opt, 0.9)], milestones=[2])
except ValueError as e:
    print("ValueError", e)
try:
    LambdaLR(torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1), lr_lambda=lambda e: 1.0, last_epoch=3)
except KeyError as e:
    print("KeyError", e)
fresh = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1)
print("initial_lr", "initial_lr" in fresh.param_groups[0])
CosineAnnealingLR(fresh, T_max=4)
print("initial_lr", fresh.param_groups[0]["initial_lr"], np.float32(fresh.param_groups[0]["lr"]))

import io  # noqa: E402

opt = make_opt()
mult = torch.optim.lr_scheduler.MultiplicativeLR(opt, lr_lambda=lambda e: 0.9)
poly = torch.optim.lr_scheduler.PolynomialLR(make_opt(), total_iters=4, power=2.0)
for _ in range(3):
    opt.step()
    mult.step()
    poly.step()
buf = io.BytesIO()
torch.save({"mult": mult.state_dict(), "poly": poly.state_dict()}, buf)
buf.seek(0)
saved = torch.load(buf)
print("mult", rl(mult.get_last_lr()), saved["mult"]["lr_lambdas"], rl(poly.get_last_lr()), saved["poly"]["power"])
cyc_opt = make_opt()
cyc = torch.optim.lr_scheduler.CyclicLR(cyc_opt, base_lr=0.01, max_lr=0.1, step_size_up=2, mode="triangular2")
cv = []
for _ in range(9):
    cyc_opt.step()
    cyc.step()
    cv.append((round(cyc_opt.param_groups[0]["lr"], 5), round(cyc_opt.param_groups[0]["momentum"], 4)))
print("cyclic", cv[:5], cv[-1])
try:
    torch.optim.lr_scheduler.CyclicLR(torch.optim.Adam([nn.Parameter(torch.zeros(1))]), 0.01, 0.1)
except ValueError as e:
    print("ValueError", e)
