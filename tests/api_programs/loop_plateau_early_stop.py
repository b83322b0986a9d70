"""Validation-driven training loops: ReduceLROnPlateau in min and max modes with relative and absolute thresholds,
cooldown, per-group min_lr and eps, its counters and state dict; an EarlyStopping helper with min_delta and
patience; the best checkpoint kept in memory (deepcopy and BytesIO) and restored at the end."""

import copy
import io

import torch
from torch import nn
from torch.optim.lr_scheduler import ReduceLROnPlateau

torch.manual_seed(31)
torch.set_printoptions(precision=4)


def opt_for(lr=0.1, groups=1):
    ps = [nn.Parameter(torch.zeros(1)) for _ in range(groups)]
    return torch.optim.SGD([{"params": [p]} for p in ps], lr=lr)


# a scripted metric sequence through each configuration
metrics = [1.0, 0.9, 0.899, 0.898, 0.95, 0.897, 0.80, 0.81, 0.82, 0.83, 0.84, 0.79, 0.79, 0.79]
configs = [
    dict(mode="min", factor=0.5, patience=1, threshold=1e-2, threshold_mode="rel"),
    dict(mode="min", factor=0.5, patience=1, threshold=1e-2, threshold_mode="abs", cooldown=2),
    dict(mode="min", factor=0.1, patience=0, min_lr=[0.01, 0.05], eps=1e-3),
]
for cfg in configs:
    groups = 2 if isinstance(cfg.get("min_lr"), list) else 1
    opt = opt_for(groups=groups)
    sch = ReduceLROnPlateau(opt, **cfg)
    trace = []
    for m in metrics:
        opt.step()
        sch.step(m)
        trace.append((round(sch.get_last_lr()[0], 5), sch.num_bad_epochs, sch.cooldown_counter))
    print({k: v for k, v in cfg.items() if k not in ("mode",)})
    print("  ", trace)
    print("   best", sch.best, "last lrs", [round(x, 5) for x in sch.get_last_lr()])

# max mode on an accuracy, with a plain float and a 0-dim tensor metric
opt = opt_for(lr=1.0)
sch = ReduceLROnPlateau(opt, mode="max", factor=0.2, patience=2, threshold=0.0)
for acc in [0.5, 0.6, torch.tensor(0.6), 0.55, 0.58, 0.7, 0.69, 0.69, 0.69]:
    opt.step()
    sch.step(acc)
    print("acc", float(acc), round(opt.param_groups[0]["lr"], 5), sch.num_bad_epochs, round(float(sch.best), 4))
sd = sch.state_dict()
print(sorted(sd))
print("mode", sd["mode"], "mode_worse", sd["mode_worse"], "last_epoch", sd["last_epoch"])
sch2 = ReduceLROnPlateau(opt_for(lr=1.0), mode="max")
sch2.load_state_dict(sd)
print("restored", sch2.patience, sch2.factor, sch2.best, sch2.num_bad_epochs)
for bad in [dict(factor=1.0), dict(mode="up"), dict(threshold_mode="pct"), dict(min_lr=[0.1, 0.2])]:
    try:
        ReduceLROnPlateau(opt_for(), **bad)
    except ValueError as e:
        print("ValueError", e)


class EarlyStopping:
    def __init__(self, patience=3, min_delta=0.0):
        self.patience, self.min_delta = patience, min_delta
        self.best, self.count, self.stop = float("inf"), 0, False

    def __call__(self, loss):
        if loss < self.best - self.min_delta:
            self.best, self.count = loss, 0
            return True
        self.count += 1
        self.stop = self.count >= self.patience
        return False


# a small regression with a noisy validation set; keep the best weights
X = torch.randn(64, 3)
Y = X @ torch.tensor([[0.5], [-1.0], [2.0]]) + 0.5 * torch.randn(64, 1)
Xv, Yv = X[48:], Y[48:]
X, Y = X[:48], Y[:48]
model = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
sched = ReduceLROnPlateau(opt, factor=0.5, patience=1)
stopper = EarlyStopping(patience=4, min_delta=1e-3)
best_state, best_epoch, best_bytes = None, -1, io.BytesIO()
for epoch in range(60):
    model.train()
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(X), Y)
    loss.backward()
    opt.step()
    model.eval()
    with torch.no_grad():
        val = nn.functional.mse_loss(model(Xv), Yv).item()
    sched.step(val)
    improved = stopper(val)
    if improved:
        best_state, best_epoch = copy.deepcopy(model.state_dict()), epoch
        best_bytes.seek(0)
        best_bytes.truncate()
        torch.save({"epoch": epoch, "model": model.state_dict(), "opt": opt.state_dict(), "val": val}, best_bytes)
    if epoch % 5 == 0 or stopper.stop:
        print(f"epoch {epoch:2d} train {loss.item():.4f} val {val:.4f} lr {opt.param_groups[0]['lr']:.5f}"
              f" bad {stopper.count}{' *' if improved else ''}")
    if stopper.stop:
        print("early stop at", epoch, "best epoch", best_epoch, "best val", round(stopper.best, 4))
        break

last_val = val
model.load_state_dict(best_state)
with torch.no_grad():
    restored_val = nn.functional.mse_loss(model(Xv), Yv).item()
print("restored best", round(restored_val, 4), restored_val == stopper.best, restored_val <= last_val)
best_bytes.seek(0)
ck = torch.load(best_bytes, weights_only=True)
print("checkpoint epoch", ck["epoch"], round(ck["val"], 4), sorted(ck), sorted(ck["opt"]))
fresh = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))
fresh.load_state_dict(ck["model"])
print("same as deepcopy", all(torch.equal(a, b) for a, b in zip(fresh.state_dict().values(), best_state.values())))
print("deepcopy is detached", best_state["0.weight"].requires_grad, best_state["0.weight"].data_ptr() !=
      model[0].weight.data_ptr())
