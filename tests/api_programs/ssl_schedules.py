"""Pre-training schedules as SSL recipes configure them: linear warmup + cosine by LambdaLR with per-group
lambdas, SequentialLR(LinearLR, CosineAnnealingLR) with eta_min, the same resumed from a state_dict and with
last_epoch, CosineAnnealingWarmRestarts with fractional epochs, OneCycleLR with a cyclic momentum, weight-decay
and EMA-momentum schedules stepped alongside, the closed form of CosineAnnealingLR, and scheduler errors."""

import math

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def make_opt(lr=0.3):
    model = nn.Linear(4, 2)
    decay = [model.weight]
    no_decay = [model.bias]
    return torch.optim.SGD(
        [{"params": decay, "weight_decay": 1e-4}, {"params": no_decay, "weight_decay": 0.0}], lr=lr, momentum=0.9
    ), model


def warmup_cosine(warmup, total, floor=0.0):
    def f(step):
        if step < warmup:
            return float(step + 1) / warmup
        progress = (step - warmup) / max(1, total - warmup)
        return floor + (1 - floor) * 0.5 * (1.0 + math.cos(math.pi * progress))

    return f


opt, model = make_opt()
sched = torch.optim.lr_scheduler.LambdaLR(opt, [warmup_cosine(3, 10), warmup_cosine(2, 10, floor=0.1)])
lrs = []
for step in range(10):
    opt.step()
    sched.step()
    lrs.append([round(x, 5) for x in sched.get_last_lr()])
print("lambda", lrs[:4], lrs[-1], sched.last_epoch)
sd = sched.state_dict()
print(sorted(sd), sd["lr_lambdas"], sd["base_lrs"])

opt, model = make_opt(0.5)
warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.01, end_factor=1.0, total_iters=3)
cos = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6, eta_min=1e-3)
seq = torch.optim.lr_scheduler.SequentialLR(opt, schedulers=[warm, cos], milestones=[3])
trace = []
for step in range(9):
    opt.step()
    seq.step()
    trace.append(round(opt.param_groups[0]["lr"], 5))
print("sequential", trace, seq.last_epoch, [type(s).__name__ for s in seq._schedulers])
state = seq.state_dict()
print(sorted(state), state["_milestones"], len(state["_schedulers"]))
opt2, _ = make_opt(0.5)
warm2 = torch.optim.lr_scheduler.LinearLR(opt2, start_factor=0.01, total_iters=3)
cos2 = torch.optim.lr_scheduler.CosineAnnealingLR(opt2, T_max=6, eta_min=1e-3)
seq2 = torch.optim.lr_scheduler.SequentialLR(opt2, [warm2, cos2], milestones=[3])
seq2.load_state_dict(state)
opt2.param_groups[0]["lr"] = opt.param_groups[0]["lr"]
opt2.step()
seq2.step()
print("resumed", seq2.last_epoch, round(opt2.param_groups[0]["lr"], 5), cos2.last_epoch)

# closed form vs the recursive form
opt, model = make_opt(1.0)
cos = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5, eta_min=0.1)
rec = []
for e in range(7):
    rec.append(round(cos.get_last_lr()[0], 5))
    opt.step()
    cos.step()
closed = [round(0.1 + 0.9 * (1 + math.cos(math.pi * e / 5)) / 2, 5) for e in range(7)]
print("cosine", rec, closed)

opt, model = make_opt(0.1)
wr = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=0.001)
fr = []
for epoch in range(3):
    for i in range(2):
        opt.step()
        wr.step(epoch + i / 2)
        fr.append(round(wr.get_last_lr()[0], 5))
print("restarts", fr, wr.T_i, wr.T_cur)

opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
oc = torch.optim.lr_scheduler.OneCycleLR(
    opt, max_lr=1.0, total_steps=8, pct_start=0.25, div_factor=10, final_div_factor=100, three_phase=True
)
cyc = []
for _ in range(8):
    opt.step()
    cyc.append((round(opt.param_groups[0]["lr"], 4), round(opt.param_groups[0]["momentum"], 4)))
    if len(cyc) < 8:
        oc.step()
print("onecycle", cyc)

# weight decay and teacher momentum schedules stepped by hand alongside
opt, model = make_opt(0.1)
wd = [0.04 + 0.5 * (0.4 - 0.04) * (1 - math.cos(math.pi * i / 4)) for i in range(5)]
for i in range(5):
    opt.param_groups[0]["weight_decay"] = wd[i]
    loss = model(torch.ones(1, 4)).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
print("wd", [round(w, 4) for w in wd], model.weight.sum().round(decimals=4).item())

for fn in [
    lambda: torch.optim.lr_scheduler.SequentialLR(opt, [warm, cos], milestones=[3]),
    lambda: torch.optim.lr_scheduler.SequentialLR(opt, [torch.optim.lr_scheduler.ConstantLR(opt)], [1]),
    lambda: torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=0),
    lambda: torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=1.5),
    lambda: torch.optim.lr_scheduler.LambdaLR(opt, [lambda e: 1.0]),
    lambda: torch.optim.lr_scheduler.LinearLR(opt, start_factor=0),
    lambda: torch.optim.lr_scheduler.CosineAnnealingLR(make_opt()[0], T_max=3, last_epoch=4),
    lambda: torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0),
    lambda: torch.optim.lr_scheduler.LambdaLR(model, lambda e: 1.0),
]:
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, e)
