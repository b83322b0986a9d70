"""Per-iteration schedules as super-convergence and SGDR code uses them: CyclicLR in its three modes (triangular,
triangular2, exp_range), with momentum cycling and a custom scale_fn; OneCycleLR with cos and linear annealing,
three_phase and Adam's beta1 cycling; CosineAnnealingWarmRestarts with T_mult and fractional epochs; printing the lr
and momentum each iteration and their state_dicts."""

import math

import torch
from torch import nn
from torch.optim import lr_scheduler as S

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
X, y = torch.randn(16, 4), torch.randn(16, 1)


def sgd():
    return torch.optim.SGD([{"params": model[0].parameters()}, {"params": model[2].parameters(), "lr": 0.05}],
                           lr=0.1, momentum=0.9)


def trace(opt, sched, n, key="momentum"):
    rows = []
    for _ in range(n):
        opt.zero_grad()
        nn.functional.mse_loss(model(X), y).backward()
        opt.step()
        sched.step()
        g = opt.param_groups[0]
        mom = g[key][0] if key == "betas" else g.get(key)
        rows.append(f"{sched.get_last_lr()[0]:.5f}/{mom:.4f}" if mom is not None else f"{sched.get_last_lr()[0]:.5f}")
    return rows


def show(name, rows, width=6):
    print(f"== {name}")
    for i in range(0, len(rows), width):
        print("  ", " ".join(rows[i:i + width]))


for mode in ("triangular", "triangular2", "exp_range"):
    opt = sgd()
    sched = S.CyclicLR(opt, base_lr=[0.01, 0.005], max_lr=[0.1, 0.05], step_size_up=3, step_size_down=2,
                       mode=mode, gamma=0.9, base_momentum=0.8, max_momentum=0.95)
    show(f"CyclicLR {mode}", trace(opt, sched, 12))
    print("   group1:", [round(v, 5) for v in sched.get_last_lr()])

opt = sgd()
sched = S.CyclicLR(opt, base_lr=0.001, max_lr=0.01, step_size_up=2, scale_fn=lambda x: 1 / (2.0 ** (x - 1)),
                   scale_mode="cycle", cycle_momentum=False)
show("CyclicLR scale_fn", trace(opt, sched, 10))
sd = sched.state_dict()
print("   state keys:", sorted(sd))
print("   custom scale_fn saved:", sd["_scale_fn_custom"] is not None, sd["mode"], sd["scale_mode"])

adam = torch.optim.Adam(model.parameters(), lr=1e-3)
try:
    S.CyclicLR(adam, base_lr=1e-4, max_lr=1e-3)
except ValueError as e:
    print("ValueError:", e)

for strategy in ("cos", "linear"):
    opt = sgd()
    sched = S.OneCycleLR(opt, max_lr=[0.2, 0.1], total_steps=12, pct_start=0.25, anneal_strategy=strategy,
                         div_factor=10.0, final_div_factor=100.0)
    show(f"OneCycleLR {strategy}", trace(opt, sched, 11))
    print("   initial_lr/max_lr/min_lr:", [round(opt.param_groups[0][k], 6) for k in ("initial_lr", "max_lr",
                                                                                         "min_lr")])
opt = sgd()
sched = S.OneCycleLR(opt, max_lr=0.3, epochs=2, steps_per_epoch=5, three_phase=True)
show("OneCycleLR three_phase", trace(opt, sched, 9))
adam = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.99))
sched = S.OneCycleLR(adam, max_lr=0.01, total_steps=8, base_momentum=0.85, max_momentum=0.95)
show("OneCycleLR Adam betas", trace(adam, sched, 7, key="betas"))
print("   betas now:", adam.param_groups[0]["betas"][0] == sched.optimizer.param_groups[0]["betas"][0])
sd = sched.state_dict()
print("   state keys:", sorted(sd))
print("   phases:", [(p["end_step"], p["start_lr"], p["end_lr"]) for p in sd["_schedule_phases"]])
try:
    sched.step()
    sched.step()
except ValueError as e:
    print("ValueError:", str(e).split(" Total")[0])
try:
    S.OneCycleLR(sgd(), max_lr=0.1)
except ValueError as e:
    print("ValueError:", e)
try:
    S.OneCycleLR(sgd(), max_lr=0.1, total_steps=10, anneal_strategy="exp")
except ValueError as e:
    print("ValueError:", e)

# SGDR: restarts after 3, then 6 epochs; stepped with fractional epochs inside each epoch
opt = sgd()
sched = S.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.001)
rows = []
iters = 4
for epoch in range(10):
    for i in range(iters):
        sched.step(epoch + i / iters)
    rows.append(f"{epoch}:{sched.get_last_lr()[0]:.5f}:T_cur={sched.T_cur:.2f}:T_i={sched.T_i}")
show("CosineAnnealingWarmRestarts fractional", rows, width=3)
opt = sgd()
sched = S.CosineAnnealingWarmRestarts(opt, T_0=4, eta_min=0.0)
show("CosineAnnealingWarmRestarts plain", trace(opt, sched, 10, key="none"))
print("   state:", {k: v for k, v in sorted(sched.state_dict().items()) if k in ("T_0", "T_i", "T_cur", "T_mult")})
check = 0.001 + (0.1 - 0.001) * (1 + math.cos(math.pi * 1 / 3)) / 2
print("   closed form at T_cur=1 of T_i=3:", round(check, 5))
try:
    S.CosineAnnealingWarmRestarts(sgd(), T_0=0)
except ValueError as e:
    print("ValueError:", e)
try:
    S.CosineAnnealingWarmRestarts(sgd(), T_0=2, T_mult=1.5)
except ValueError as e:
    print("ValueError:", e)

# a Tensor lr (what capturable/compiled steps use) is filled in place; get_last_lr holds clones
for make in (lambda o: S.OneCycleLR(o, max_lr=0.1, total_steps=6),
             lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2),
             lambda o: S.CosineAnnealingWarmRestarts(o, T_0=2)):
    lr = torch.tensor(0.05)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    sched = make(opt)
    for _ in range(3):
        opt.step()
        sched.step()
    last = sched.get_last_lr()[0]
    print(type(sched).__name__, "same tensor:", opt.param_groups[0]["lr"] is lr, "lr:", round(lr.item(), 5),
          "last is a clone:", torch.is_tensor(last) and last is not lr)
