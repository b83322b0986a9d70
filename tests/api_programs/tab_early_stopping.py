"""Training with early stopping: best-weights copies, ReduceLROnPlateau, checkpoints in memory, and restores."""

import copy
import io

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
X = torch.randn(80, 6)
w_true = torch.tensor([1.0, -2.0, 0.0, 0.5, 0.0, 3.0])
y = X @ w_true + 0.3 * torch.randn(80)
Xtr, ytr, Xva, yva = X[:60], y[:60], X[60:], y[60:]

model = nn.Sequential(nn.Linear(6, 16), nn.SiLU(), nn.Dropout(0.1), nn.Linear(16, 1))
opt = torch.optim.AdamW(model.parameters(), lr=0.05, weight_decay=0.01, amsgrad=True)
sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=2, threshold=1e-3)


class EarlyStopping:
    def __init__(self, patience=4, min_delta=1e-3):
        self.patience, self.min_delta = patience, min_delta
        self.best, self.bad, self.best_state, self.best_epoch = float("inf"), 0, None, -1

    def step(self, metric, model, epoch):
        if metric < self.best - self.min_delta:
            self.best, self.bad, self.best_epoch = metric, 0, epoch
            self.best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
            return False
        self.bad += 1
        return self.bad >= self.patience


stopper = EarlyStopping()
snap_deep = None
lrs = []
for epoch in range(60):
    model.train()
    for i in range(0, 60, 20):
        opt.zero_grad(set_to_none=True)
        loss = F.mse_loss(model(Xtr[i : i + 20]).squeeze(-1), ytr[i : i + 20])
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        val = F.mse_loss(model(Xva).squeeze(-1), yva).item()
    sched.step(val)
    lrs.append(opt.param_groups[0]["lr"])
    if epoch == 3:
        snap_deep = copy.deepcopy(model.state_dict())
        alias = model.state_dict()
    if stopper.step(val, model, epoch):
        print("stopped at", epoch, "best", stopper.best_epoch, round(stopper.best, 4))
        break
    if epoch % 5 == 0:
        print(epoch, round(loss.item(), 4), round(val, 4))
print("lr changes", sorted(set(lrs), reverse=True)[:4], sched.num_bad_epochs, round(sched.best, 4))
print(
    "alias follows",
    torch.equal(alias["0.weight"], model[0].weight),
    "deep copy frozen",
    torch.equal(snap_deep["0.weight"], model[0].weight),
)

model.load_state_dict(stopper.best_state)
with torch.no_grad():
    print("restored val", round(F.mse_loss(model(Xva).squeeze(-1), yva).item(), 4) == round(stopper.best, 4))

# a full checkpoint round trip through bytes
buf = io.BytesIO()
torch.save(
    {
        "epoch": stopper.best_epoch,
        "model": model.state_dict(),
        "optim": opt.state_dict(),
        "sched": sched.state_dict(),
        "rng": torch.get_rng_state(),
    },
    buf,
)
buf.seek(0)
ck = torch.load(buf, weights_only=True)
print("checkpoint keys", sorted(ck), ck["epoch"], ck["rng"].dtype, tuple(ck["rng"].shape))
print("optim state", sorted(ck["optim"]["state"][0].keys()), ck["optim"]["param_groups"][0]["amsgrad"])
print(
    "sched state",
    ck["sched"]["mode"],
    ck["sched"]["patience"],
    ck["sched"]["factor"],
    ck["sched"]["_last_lr"] == sched.get_last_lr(),
)
model2 = nn.Sequential(nn.Linear(6, 16), nn.SiLU(), nn.Dropout(0.1), nn.Linear(16, 1))
opt2 = torch.optim.AdamW(model2.parameters(), lr=1.0)
print("load", model2.load_state_dict(ck["model"]))
opt2.load_state_dict(ck["optim"])
print(
    "opt2 lr",
    opt2.param_groups[0]["lr"] == opt.param_groups[0]["lr"],
    torch.equal(opt2.state[model2[0].weight]["max_exp_avg_sq"], opt.state[model[0].weight]["max_exp_avg_sq"]),
)
sched2 = torch.optim.lr_scheduler.ReduceLROnPlateau(opt2)
sched2.load_state_dict(ck["sched"])
print("sched2", sched2.patience, sched2.best == sched.best)

# partial restore into a wider head and strict=False reporting
wider = nn.Sequential(nn.Linear(6, 16), nn.SiLU(), nn.Dropout(0.1), nn.Linear(16, 2))
head_free = {k: v for k, v in ck["model"].items() if not k.startswith("3.")}
res = wider.load_state_dict(head_free, strict=False)
print("missing", res.missing_keys, "unexpected", res.unexpected_keys)
for name, fn in [
    ("strict missing", lambda: wider.load_state_dict(head_free)),
    ("size mismatch", lambda: wider.load_state_dict(ck["model"])),
    (
        "optim groups",
        lambda: torch.optim.AdamW(
            [{"params": model2[0].parameters()}, {"params": model2[3].parameters()}]
        ).load_state_dict(ck["optim"]),
    ),
    ("plateau mode", lambda: torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="best")),
    ("plateau threshold mode", lambda: torch.optim.lr_scheduler.ReduceLROnPlateau(opt, threshold_mode="pct")),
]:
    try:
        fn()
        print(name, "ok")
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
