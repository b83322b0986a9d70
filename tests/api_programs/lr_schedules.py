"""LR schedulers: values over steps."""

import torch
from torch import nn, optim
from torch.optim import lr_scheduler as S


def run(make, steps=12, metric=None, opt_kw=None):
    p = nn.Parameter(torch.zeros(2))
    o = optim.SGD([p], lr=0.1, momentum=0.9, **(opt_kw or {}))
    s = make(o)
    out = []
    for i in range(steps):
        o.step()
        if metric is not None:
            s.step(metric[i])
        else:
            s.step()
        out.append(round(o.param_groups[0]["lr"], 6))
    return out, s


print("step", run(lambda o: S.StepLR(o, 3, gamma=0.5))[0])
print("multistep", run(lambda o: S.MultiStepLR(o, milestones=[2, 5], gamma=0.1))[0])
print("exp", run(lambda o: S.ExponentialLR(o, 0.9))[0])
print("cos", run(lambda o: S.CosineAnnealingLR(o, T_max=5, eta_min=0.01))[0])
print("coswr", run(lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001))[0])
r, s = run(lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=12, pct_start=0.3))
print("onecycle", r[:-1])
print("onecycle_mom", round(s.optimizer.param_groups[0]["momentum"], 6))
print(
    "onecycle_lin",
    run(lambda o: S.OneCycleLR(o, max_lr=1.0, epochs=2, steps_per_epoch=6, anneal_strategy="linear", three_phase=True))[
        0
    ][:-1],
)
print("lambda", run(lambda o: S.LambdaLR(o, lr_lambda=lambda e: 1.0 / (e + 1)))[0])
print("mult", run(lambda o: S.MultiplicativeLR(o, lr_lambda=lambda e: 0.95))[0])
print("linear", run(lambda o: S.LinearLR(o, start_factor=0.25, total_iters=4))[0])
print("const", run(lambda o: S.ConstantLR(o, factor=0.5, total_iters=3))[0])
print("poly", run(lambda o: S.PolynomialLR(o, total_iters=6, power=2.0))[0])
print(
    "seq",
    run(lambda o: S.SequentialLR(o, [S.LinearLR(o, 0.1, total_iters=3), S.ExponentialLR(o, 0.8)], milestones=[3]))[0],
)
print("chain", run(lambda o: S.ChainedScheduler([S.ConstantLR(o, 0.5, total_iters=2), S.ExponentialLR(o, 0.9)]))[0])
print("cyclic", run(lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3, mode="triangular2"))[0])
metric = [1.0, 0.9, 0.9, 0.9, 0.9, 0.9, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8]
r, s = run(
    lambda o: S.ReduceLROnPlateau(o, mode="min", factor=0.5, patience=2, threshold=1e-3, cooldown=1), metric=metric
)
print("plateau", r, s.num_bad_epochs, round(s.best, 4))
print("plateau_lastlr", [round(x, 6) for x in s.get_last_lr()])
# state dict round-trip
p = nn.Parameter(torch.zeros(2))
o = optim.Adam([p], lr=0.1)
s = S.CosineAnnealingLR(o, T_max=10)
for _ in range(3):
    o.step()
    s.step()
sd = s.state_dict()
print("sd_keys", sorted(k for k in sd.keys()))
o2 = optim.Adam([nn.Parameter(torch.zeros(2))], lr=0.1)
s2 = S.CosineAnnealingLR(o2, T_max=10)
s2.load_state_dict(sd)
print("restored", s2.last_epoch, [round(x, 6) for x in s2.get_last_lr()])
print("initial_lr", o.param_groups[0]["initial_lr"])
print("OK")
