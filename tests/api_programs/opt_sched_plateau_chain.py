"""Composed and metric-driven schedules: linear warmup then cosine through SequentialLR, ChainedScheduler stacking a
ConstantLR with an ExponentialLR, and ReduceLROnPlateau in min and max modes with rel/abs thresholds, patience,
cooldown, min_lr per group and eps, on a scripted validation curve; each prints the lr per step, num_bad_epochs and
the state_dict, and resumes from it."""

import torch
from torch import nn
from torch.optim import lr_scheduler as S

torch.manual_seed(0)
net = nn.Linear(3, 1)


def opt2(lr=0.1):
    return torch.optim.SGD([{"params": [net.weight]}, {"params": [net.bias], "lr": lr / 10}], lr=lr)


def lrs(o):
    return "[" + ", ".join(f"{g['lr']:.6f}" for g in o.param_groups) + "]"


# warmup + cosine, the transformer recipe
opt = opt2()
warm = S.LinearLR(opt, start_factor=0.1, total_iters=3)
cos = S.CosineAnnealingLR(opt, T_max=5, eta_min=1e-4)
seq = S.SequentialLR(opt, schedulers=[warm, cos], milestones=[3])
log = [lrs(opt)]
for _ in range(9):
    opt.step()
    seq.step()
    log.append(lrs(opt))
print("SequentialLR:")
for i in range(0, len(log), 5):
    print("  ", " ".join(log[i:i + 5]))
sd = seq.state_dict()
print("  keys:", sorted(sd), "last_epoch:", sd["last_epoch"], "milestones:", sd["_milestones"])
print("  inner:", [sorted(s) for s in sd["_schedulers"]][0][:4], [s["last_epoch"] for s in sd["_schedulers"]])
print("  get_last_lr:", [round(v, 6) for v in seq.get_last_lr()])

# resume the sequence into fresh objects
opt_b = opt2()
seq_b = S.SequentialLR(opt_b, [S.LinearLR(opt_b, start_factor=0.1, total_iters=3),
                               S.CosineAnnealingLR(opt_b, T_max=5, eta_min=1e-4)], milestones=[3])
seq_b.load_state_dict(sd)
for g_b, g in zip(opt_b.param_groups, opt.param_groups):
    g_b["lr"] = g["lr"]
opt.step()
seq.step()
opt_b.step()
seq_b.step()
print("  resumed next:", lrs(opt), lrs(opt_b))

try:
    S.SequentialLR(opt, schedulers=[warm, cos], milestones=[3, 5])
except ValueError as e:
    print("ValueError:", e)

# ChainedScheduler multiplies the effects each step
opt = opt2(0.2)
chain = S.ChainedScheduler([S.ConstantLR(opt, factor=0.5, total_iters=2), S.ExponentialLR(opt, gamma=0.9)])
log = [lrs(opt)]
for _ in range(5):
    opt.step()
    chain.step()
    log.append(lrs(opt))
print("ChainedScheduler:", " ".join(log))
print("  keys:", sorted(chain.state_dict()), [round(v, 6) for v in chain.get_last_lr()])

# ReduceLROnPlateau on a scripted validation loss
val = [1.0, 0.9, 0.85, 0.849, 0.85, 0.851, 0.86, 0.84, 0.8399, 0.845, 0.846, 0.847, 0.85, 0.851]
for kwargs in (
    {"mode": "min", "factor": 0.5, "patience": 1},
    {"mode": "min", "factor": 0.5, "patience": 1, "threshold": 0.05, "threshold_mode": "rel", "cooldown": 2},
    {"mode": "min", "factor": 0.1, "patience": 0, "threshold": 0.005, "threshold_mode": "abs",
     "min_lr": [1e-3, 1e-5]},
    {"mode": "min", "factor": 0.5, "patience": 2, "eps": 0.02},
):
    opt = opt2()
    plateau = S.ReduceLROnPlateau(opt, **kwargs)
    row = []
    for v in val:
        opt.step()
        plateau.step(v)
        row.append(f"{opt.param_groups[0]['lr']:.4f}:{plateau.num_bad_epochs}")
    print("Plateau", {k: v for k, v in kwargs.items() if k != "mode"})
    print("  ", " ".join(row))
    print("   best:", plateau.best, "cooldown_counter:", plateau.cooldown_counter,
          "last:", [round(v, 6) for v in plateau.get_last_lr()])

acc = [0.5, 0.6, 0.61, 0.605, 0.60, 0.62, 0.62, 0.619]
opt = opt2()
plateau = S.ReduceLROnPlateau(opt, mode="max", factor=0.2, patience=1, threshold=0.01)
print("Plateau max:", [(plateau.step(a), round(opt.param_groups[0]["lr"], 5), plateau.num_bad_epochs)[1:] for a in acc])
sd = plateau.state_dict()
print("  keys:", sorted(sd))
print("  mode/threshold:", sd["mode"], sd["threshold"], sd["threshold_mode"], "best:", sd["best"],
      "min_lrs:", sd["min_lrs"])
fresh = S.ReduceLROnPlateau(opt2(), mode="max")
fresh.load_state_dict(sd)
print("  loaded:", fresh.mode, fresh.factor, fresh.patience, fresh.best, fresh.last_epoch)
print("  improves:", fresh._is_better(0.63, 0.62), fresh._is_better(0.625, 0.62))

for bad in ({"factor": 1.0}, {"mode": "median"}, {"threshold_mode": "pct"}, {"min_lr": [0.1, 0.1, 0.1]}):
    try:
        S.ReduceLROnPlateau(opt2(), **bad)
    except ValueError as e:
        print("ValueError:", e)

# composed schedulers refuse plateau members and members of another optimizer
opt_a, opt_b = opt2(), opt2(0.3)
for members in ([S.StepLR(opt_a, 2), S.ReduceLROnPlateau(opt_a)], [S.StepLR(opt_a, 2), S.ExponentialLR(opt_b, 0.9)]):
    for make in (lambda ms: S.ChainedScheduler(ms), lambda ms: S.SequentialLR(opt_a, ms, milestones=[2])):
        try:
            make(members)
        except ValueError as e:
            print("ValueError:", str(e).replace("\n", " | "))
