"""Every closed-form LR scheduler stepped once per epoch over two param groups, printing get_last_lr() as a training
log does: StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR (eta_min, past T_max), LambdaLR with one lambda per
group, MultiplicativeLR, LinearLR, ConstantLR, PolynomialLR; then state_dict contents, load_state_dict into a fresh
scheduler that continues identically, last_epoch resumption, and the warnings and errors of misuse."""

import warnings

import torch
from torch import nn
from torch.optim import lr_scheduler as S

torch.manual_seed(0)


def fmt(lrs):
    return "[" + ", ".join(f"{v:.6f}" for v in lrs) + "]"


def make_opt():
    m = nn.Linear(3, 2)
    return torch.optim.SGD([{"params": [m.weight]}, {"params": [m.bias], "lr": 0.01}], lr=0.1, momentum=0.9)


CASES = {
    "StepLR": lambda o: S.StepLR(o, step_size=3, gamma=0.5),
    "MultiStepLR": lambda o: S.MultiStepLR(o, milestones=[2, 5, 5], gamma=0.1),
    "ExponentialLR": lambda o: S.ExponentialLR(o, gamma=0.8),
    "CosineAnnealingLR": lambda o: S.CosineAnnealingLR(o, T_max=5, eta_min=0.001),
    "LambdaLR": lambda o: S.LambdaLR(o, lr_lambda=[lambda e: 1 / (1 + e), lambda e: 0.9**e]),
    "MultiplicativeLR": lambda o: S.MultiplicativeLR(o, lr_lambda=lambda e: 0.95 if e < 4 else 0.5),
    "LinearLR": lambda o: S.LinearLR(o, start_factor=0.25, end_factor=1.0, total_iters=4),
    "ConstantLR": lambda o: S.ConstantLR(o, factor=0.3, total_iters=3),
    "PolynomialLR": lambda o: S.PolynomialLR(o, total_iters=6, power=2.0),
}

for name, make in CASES.items():
    opt = make_opt()
    sched = make(opt)
    log = [fmt(sched.get_last_lr())]
    for epoch in range(8):
        opt.step()
        sched.step()
        log.append(fmt(sched.get_last_lr()))
    print(f"== {name} last_epoch={sched.last_epoch}")
    for i in range(0, len(log), 3):
        print("  ", " ".join(log[i:i + 3]))
    sd = sched.state_dict()
    print("   keys:", sorted(k for k in sd))
    print("   base_lrs:", sd["base_lrs"], "initial_lr:", [g["initial_lr"] for g in opt.param_groups])

# state_dict round trip: a fresh scheduler on a fresh optimizer continues the schedule
opt = make_opt()
sched = S.CosineAnnealingLR(opt, T_max=10, eta_min=0.0)
for _ in range(4):
    opt.step()
    sched.step()
sd_opt, sd_sched = opt.state_dict(), sched.state_dict()
print("sched state:", {k: (round(v, 6) if isinstance(v, float) else v) for k, v in sorted(sd_sched.items())
                       if k != "_get_lr_called_within_step"})
opt2 = make_opt()
opt2.load_state_dict(sd_opt)
sched2 = S.CosineAnnealingLR(opt2, T_max=10, eta_min=0.0)
sched2.load_state_dict(sd_sched)
a, b = [], []
for _ in range(3):
    opt.step()
    sched.step()
    opt2.step()
    sched2.step()
    a.append(fmt(sched.get_last_lr()))
    b.append(fmt(sched2.get_last_lr()))
print("continued:", a)
print("identical:", a == b, "lr in group:", round(opt2.param_groups[0]["lr"], 6))

# LambdaLR's lambdas are not saved, only their names' state
opt = make_opt()
lam = S.LambdaLR(opt, lr_lambda=lambda e: 0.5**e)
print("LambdaLR state keys:", sorted(lam.state_dict()), lam.state_dict()["lr_lambdas"])

# resuming with last_epoch needs initial_lr in the groups
opt = make_opt()
try:
    S.StepLR(opt, step_size=2, last_epoch=3)
except KeyError as e:
    print("KeyError:", e)
for g in opt.param_groups:
    g["initial_lr"] = g["lr"]
resumed = S.StepLR(opt, step_size=2, gamma=0.5, last_epoch=3)
print("resumed at 3:", fmt(resumed.get_last_lr()), resumed.last_epoch)

# stepping the scheduler before the optimizer warns
opt = make_opt()
sched = S.ExponentialLR(opt, gamma=0.5)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    sched.step()
    print("warnings:", len(w), str(w[0].message).split(".")[0] if w else None)

for bad in (lambda o: S.LinearLR(o, start_factor=0.0), lambda o: S.ConstantLR(o, factor=1.5),
            lambda o: S.MultiStepLR(o, milestones=[1, 2], gamma=0.1, last_epoch=-2)):
    try:
        bad(make_opt())
        print("no error")
    except (ValueError, KeyError) as e:
        print(type(e).__name__ + ":", e)
try:
    S.StepLR("not an optimizer", step_size=1)
except TypeError as e:
    print("TypeError:", e)
try:
    S.LambdaLR(make_opt(), lr_lambda=[lambda e: 1.0])
except ValueError as e:
    print("ValueError:", e)
