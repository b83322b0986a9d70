"""LR schedules composed the way training scripts build them: warmup then cosine through SequentialLR,
ChainedScheduler stacking multiplicative schedules, OneCycleLR with momentum/beta cycling and three phases,
CosineAnnealingWarmRestarts stepped with fractional epochs, PolynomialLR, per-group LambdaLR, resuming a
composed scheduler from its state dict, and the warnings and errors users hit."""

import io
import warnings

import torch
from torch import nn
from torch.optim import lr_scheduler as S

torch.manual_seed(0)


def params():
    return [nn.Parameter(torch.randn(2, 2)), nn.Parameter(torch.randn(2))]


def fmt(xs):
    return [round(x, 6) for x in xs]


# warmup (LinearLR) then cosine (SequentialLR)
opt = torch.optim.SGD(params(), lr=0.1, momentum=0.9)
warm = S.LinearLR(opt, start_factor=0.1, end_factor=1.0, total_iters=3)
cos = S.CosineAnnealingLR(opt, T_max=5, eta_min=0.001)
seq = S.SequentialLR(opt, schedulers=[warm, cos], milestones=[3])
print("seq", 0, fmt(seq.get_last_lr()))
for step in range(1, 10):
    opt.step()
    seq.step()
    print("seq", step, fmt(seq.get_last_lr()), seq.last_epoch)
print("seq state keys", sorted(seq.state_dict().keys()))

# ChainedScheduler: every scheduler steps each call, the factors multiply
opt = torch.optim.SGD(params(), lr=1.0)
chain = S.ChainedScheduler([S.ConstantLR(opt, factor=0.5, total_iters=2), S.ExponentialLR(opt, gamma=0.9)])
out = []
for _ in range(5):
    out.append(round(opt.param_groups[0]["lr"], 6))
    opt.step()
    chain.step()
print("chained", out, fmt(chain.get_last_lr()))

# OneCycleLR with Adam: lr up then down, beta1 the other way; three_phase and linear annealing
opt = torch.optim.Adam(params(), lr=0.01, betas=(0.95, 0.999))
one = S.OneCycleLR(opt, max_lr=0.1, total_steps=10, pct_start=0.3, anneal_strategy="linear", three_phase=True,
                   div_factor=10.0, final_div_factor=100.0, base_momentum=0.85, max_momentum=0.95)
for step in range(10):
    g = opt.param_groups[0]
    print("onecycle", step, round(g["lr"], 6), round(g["betas"][0], 6))
    opt.step()
    one.step()
try:
    one.step()
except ValueError as e:
    print("ValueError", e)

# OneCycleLR from epochs x steps_per_epoch with per-group max_lr and SGD momentum
opt = torch.optim.SGD([{"params": params()[:1]}, {"params": params()[1:]}], lr=0.01, momentum=0.9)
one = S.OneCycleLR(opt, max_lr=[0.2, 0.05], epochs=2, steps_per_epoch=3)
print("total_steps", one.total_steps, "initial", [round(g["initial_lr"], 6) for g in opt.param_groups],
      "min", [round(g["min_lr"], 9) for g in opt.param_groups])
for _ in range(6):
    opt.step()
    one.step()
    print("  ", fmt(one.get_last_lr()), round(opt.param_groups[0]["momentum"], 6))

# CosineAnnealingWarmRestarts stepped with fractional epochs inside each epoch
opt = torch.optim.SGD(params(), lr=0.1)
wr = S.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=0.01)
iters = 2
for epoch in range(6):
    row = []
    for i in range(iters):
        opt.step()
        wr.step(epoch + i / iters)
        row.append(round(wr.get_last_lr()[0], 6))
    print("restarts epoch", epoch, row, "T_i", wr.T_i, "T_cur", round(wr.T_cur, 4))

# PolynomialLR and per-group LambdaLR / MultiplicativeLR
opt = torch.optim.SGD(params(), lr=0.1)
poly = S.PolynomialLR(opt, total_iters=4, power=2.0)
out = []
for _ in range(6):
    opt.step()
    poly.step()
    out.append(round(poly.get_last_lr()[0], 6))
print("poly", out)
opt = torch.optim.SGD([{"params": params()[:1], "lr": 0.1}, {"params": params()[1:], "lr": 0.2}])
lam = S.LambdaLR(opt, lr_lambda=[lambda e: 0.5 ** e, lambda e: 1.0 / (1 + e)])
for _ in range(3):
    opt.step()
    lam.step()
    print("lambda", fmt(lam.get_last_lr()))
mult = S.MultiplicativeLR(opt, lr_lambda=lambda e: 0.9)
opt.step()
mult.step()
print("multiplicative", fmt(mult.get_last_lr()))
print("lambda state", sorted(lam.state_dict().keys()), lam.state_dict()["lr_lambdas"])

# resume a SequentialLR mid-warmup from a BytesIO checkpoint
def build(model_params):
    o = torch.optim.AdamW(model_params, lr=0.01, weight_decay=0.01)
    s = S.SequentialLR(o, [S.LinearLR(o, 0.2, total_iters=2), S.StepLR(o, step_size=2, gamma=0.5)], milestones=[2])
    return o, s


w = params()
opt, sch = build(w)
for _ in range(3):
    w[0].grad = torch.ones(2, 2)
    w[1].grad = torch.ones(2)
    opt.step()
    sch.step()
buf = io.BytesIO()
torch.save({"opt": opt.state_dict(), "sched": sch.state_dict()}, buf)
buf.seek(0)
ck = torch.load(buf, weights_only=True)
w2 = [nn.Parameter(p.detach().clone()) for p in w]
opt2, sch2 = build(w2)
opt2.load_state_dict(ck["opt"])
sch2.load_state_dict(ck["sched"])
print("resumed", sch2.last_epoch, fmt(sch2.get_last_lr()), fmt(sch.get_last_lr()))
for _ in range(3):
    for o, s, ps in ((opt, sch, w), (opt2, sch2, w2)):
        ps[0].grad = torch.ones(2, 2)
        ps[1].grad = torch.ones(2)
        o.step()
        s.step()
    print("  ", fmt(sch.get_last_lr()), fmt(sch2.get_last_lr()), torch.equal(w[0], w2[0]))

# warnings and errors
with warnings.catch_warnings(record=True) as rec:
    warnings.simplefilter("always")
    o = torch.optim.SGD(params(), lr=0.1)
    s = S.StepLR(o, step_size=1)
    s.step()
print("warned", [str(r.message)[:60] for r in rec])
try:
    o = torch.optim.SGD(params(), lr=0.1)
    S.SequentialLR(o, [S.ConstantLR(o), S.ExponentialLR(o, 0.9)], milestones=[1, 2])
except ValueError as e:
    print("ValueError", e)
try:
    S.LambdaLR(torch.optim.SGD(params(), lr=0.1), lr_lambda=[lambda e: 1.0, lambda e: 1.0])
except ValueError as e:
    print("ValueError", e)
try:
    S.OneCycleLR(torch.optim.SGD(params(), lr=0.1), max_lr=0.1)
except ValueError as e:
    print("ValueError", e)
try:
    S.CosineAnnealingWarmRestarts(torch.optim.SGD(params(), lr=0.1), T_0=2, eta_min=None)
except ValueError as e:
    print("ValueError", e)
with warnings.catch_warnings(record=True) as rec:
    warnings.simplefilter("always")
    o = torch.optim.SGD(params(), lr=0.1)
    s = S.ExponentialLR(o, gamma=0.5)
    o.step = lambda closure=None: None  # e.g. a wrapper installed after the scheduler
    o.step()
    s.step()
print("warned", [str(r.message)[:70] for r in rec])
