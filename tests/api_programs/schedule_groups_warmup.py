"""Schedules wired to real training runs as in a fine-tuning recipe: linear warmup into cosine decay via
SequentialLR on AdamW with a decay/no-decay group split, per-group LambdaLR lambdas, OneCycleLR cycling Adam's
beta1, CyclicLR on Adam without momentum cycling, ChainedScheduler built with its optimizer, a ReduceLROnPlateau
driven by a validation loss, the scheduler warnings and errors people hit, and gradient accumulation checked
against the big-batch gradient."""

import warnings

import numpy as np
import torch
from torch import nn, optim
from torch.optim import lr_scheduler as S

rng = np.random.default_rng(23)
X = torch.from_numpy(rng.standard_normal((48, 6)).astype(np.float32))
Y = torch.from_numpy(rng.standard_normal((48, 2)).astype(np.float32))
Xv = torch.from_numpy(rng.standard_normal((16, 6)).astype(np.float32))
Yv = torch.from_numpy(rng.standard_normal((16, 2)).astype(np.float32))
W1 = rng.standard_normal((8, 6)).astype(np.float32) * 0.4
W2 = rng.standard_normal((2, 8)).astype(np.float32) * 0.4


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.norm, self.fc2 = nn.Linear(6, 8), nn.LayerNorm(8), nn.Linear(8, 2)
        with torch.no_grad():
            self.fc1.weight.copy_(torch.from_numpy(W1))
            self.fc2.weight.copy_(torch.from_numpy(W2))
            self.fc1.bias.fill_(0.05)
            self.fc2.bias.zero_()

    def forward(self, x):
        return self.fc2(torch.tanh(self.norm(self.fc1(x))))


def split_groups(model, wd):
    decay = [p for n, p in model.named_parameters() if p.ndim >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.ndim < 2]
    return [{"params": decay, "weight_decay": wd}, {"params": no_decay, "weight_decay": 0.0}]


def lrs(opt):
    return [round(float(g["lr"]), 6) for g in opt.param_groups]


def epoch(model, opt, bs=12):
    tot = 0.0
    for i in range(0, 48, bs):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(X[i : i + bs]), Y[i : i + bs])
        loss.backward()
        opt.step()
        tot += loss.item()
    return tot / (48 // bs)


# warmup + cosine on AdamW with a no-decay group
model = Net()
opt = optim.AdamW(split_groups(model, 0.05), lr=3e-2)
sched = S.SequentialLR(
    opt, [S.LinearLR(opt, start_factor=0.1, total_iters=3), S.CosineAnnealingLR(opt, T_max=5)], milestones=[3]
)
hist = []
for ep in range(8):
    loss = epoch(model, opt)
    sched.step()
    hist.append((round(loss, 4), lrs(opt)[0]))
print("warmup_cos", hist)
print("groups", [(len(g["params"]), g["weight_decay"], g["initial_lr"]) for g in opt.param_groups])
print("fc1", np.round(model.fc1.weight[0].detach().double().numpy(), 4).tolist())

# per-group lambdas (a discriminative fine-tuning rate)
model = Net()
opt = optim.SGD(
    [
        {"params": model.fc1.parameters(), "lr": 0.01},
        {"params": model.norm.parameters()},
        {"params": model.fc2.parameters(), "lr": 0.1},
    ],
    lr=0.05,
    momentum=0.9,
)
sched = S.LambdaLR(opt, [lambda e: 0.5**e, lambda e: 1.0, lambda e: 1 / (1 + e)])
seq = []
for ep in range(4):
    epoch(model, opt, bs=24)
    sched.step()
    seq.append(lrs(opt))
print("lambdas", seq, sched.state_dict()["lr_lambdas"], sched.last_epoch)

# OneCycleLR cycles Adam's beta1; CyclicLR on Adam needs cycle_momentum=False
model = Net()
opt = optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.99))
sched = S.OneCycleLR(opt, max_lr=0.05, total_steps=10, pct_start=0.3, base_momentum=0.8, max_momentum=0.95)
trace = []
for _ in range(9):
    epoch(model, opt, bs=48)
    sched.step()
    trace.append((round(opt.param_groups[0]["lr"], 5), round(opt.param_groups[0]["betas"][0], 4)))
print("onecycle_adam", trace, opt.param_groups[0]["betas"][1], sched.use_beta1)
opt = optim.Adam(Net().parameters(), lr=1e-3)
try:
    S.CyclicLR(opt, base_lr=1e-3, max_lr=1e-2)
except ValueError as e:
    print("cyclic_err", e)
sched = S.CyclicLR(opt, base_lr=1e-3, max_lr=1e-2, step_size_up=2, mode="triangular2", cycle_momentum=False)
cl = []
for _ in range(9):
    opt.step()
    sched.step()
    cl.append(lrs(opt)[0])
print("cyclic_adam", cl, "momentum" in opt.param_groups[0])

# ChainedScheduler given its optimizer
opt = optim.RMSprop(Net().parameters(), lr=0.1)
chain = S.ChainedScheduler([S.LinearLR(opt, 0.5, total_iters=2), S.ExponentialLR(opt, gamma=0.8)], optimizer=opt)
cs = []
for _ in range(4):
    opt.step()
    chain.step()
    cs.append([round(v, 6) for v in chain.get_last_lr()])
print("chained", cs, chain.optimizer is opt, sorted(chain.state_dict()))

# validation-driven plateau
model = Net()
opt = optim.Adam(model.parameters(), lr=0.05)
plateau = S.ReduceLROnPlateau(opt, mode="min", factor=0.2, patience=1, threshold=0.05, threshold_mode="rel")
pl = []
for ep in range(8):
    epoch(model, opt)
    with torch.no_grad():
        val = nn.functional.mse_loss(model(Xv), Yv).item()
    plateau.step(val)
    pl.append((round(val, 4), lrs(opt)[0]))
print("plateau", pl, round(plateau.best, 4), plateau.num_bad_epochs)

# warnings and errors people hit
opt = optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1)
sched = S.StepLR(opt, 1, gamma=0.5)
with warnings.catch_warnings(record=True) as rec:
    warnings.simplefilter("always")
    sched.step()
    sched.get_lr()
print("warns", [str(w.message)[:70] for w in rec], [w.category.__name__ for w in rec])
try:
    S.StepLR(optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1), 2, last_epoch=3)
except KeyError as e:
    print("resume_err", type(e).__name__, e)
for bad in (
    lambda: S.LambdaLR(opt, [lambda e: 1.0, lambda e: 1.0]),
    lambda: S.StepLR(object(), 2),
    lambda: S.LinearLR(opt, start_factor=0.0),
    lambda: S.SequentialLR(opt, [S.StepLR(opt, 2)], milestones=[1]),
    lambda: S.ReduceLROnPlateau(opt, mode="avg"),
):
    try:
        bad()
    except (ValueError, TypeError) as e:
        print("sched_err", type(e).__name__, e)

# gradient accumulation equals the big-batch gradient
model = Net()
model.zero_grad()
for i in range(4):
    (nn.functional.mse_loss(model(X[i * 12 : (i + 1) * 12]), Y[i * 12 : (i + 1) * 12]) / 4).backward()
acc = model.fc1.weight.grad.clone()
model.zero_grad()
nn.functional.mse_loss(model(X), Y).backward()
print("accum", torch.allclose(acc, model.fc1.weight.grad, atol=1e-6), np.round(acc[0].double().numpy(), 4).tolist())
print("OK")
