"""LR schedulers written by hand as research repos do: an LRScheduler subclass for linear warmup + cosine decay with
get_lr and _get_closed_form_lr, a per-group inverse-sqrt (Noam) LambdaLR, a scheduler driven by fractional epochs,
a weight-decay schedule alongside the lr, stepping with an explicit epoch (the deprecation warning), get_lr's
warning outside step, and a scheduler's state surviving torch.save/torch.load."""

import io
import math
import warnings

import torch
from torch import nn
from torch.optim.lr_scheduler import LambdaLR, LRScheduler, StepLR

torch.manual_seed(0)


class WarmupCosine(LRScheduler):
    def __init__(self, optimizer, warmup, total, min_ratio=0.1, last_epoch=-1):
        self.warmup, self.total, self.min_ratio = warmup, total, min_ratio
        super().__init__(optimizer, last_epoch)

    def _factor(self, step):
        if step < self.warmup:
            return (step + 1) / self.warmup
        progress = min(1.0, (step - self.warmup) / max(1, self.total - self.warmup))
        return self.min_ratio + (1 - self.min_ratio) * 0.5 * (1 + math.cos(math.pi * progress))

    def get_lr(self):
        return [base * self._factor(self.last_epoch) for base in self.base_lrs]

    def _get_closed_form_lr(self):
        return self.get_lr()


model = nn.Linear(8, 4)
opt = torch.optim.AdamW([{"params": [model.weight], "weight_decay": 0.1},
                         {"params": [model.bias], "weight_decay": 0.0, "lr": 5e-4}], lr=1e-3)
sched = WarmupCosine(opt, warmup=3, total=10)
print("initial:", [f"{v:.6f}" for v in sched.get_last_lr()], "last_epoch:", sched.last_epoch,
      "_step_count:", sched._step_count)
rows = []
for step in range(12):
    opt.step()
    sched.step()
    rows.append(f"{sched.last_epoch}:{sched.get_last_lr()[0]:.6f}/{sched.get_last_lr()[1]:.6f}")
for i in range(0, 12, 4):
    print("  ", " ".join(rows[i:i + 4]))
print("base_lrs:", sched.base_lrs, "initial_lr:", [g["initial_lr"] for g in opt.param_groups])
sd = sched.state_dict()
print("state keys:", sorted(sd))
print("custom attrs saved:", sd["warmup"], sd["total"], sd["min_ratio"])

# get_lr outside step warns
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    sched.get_lr()
    print("get_lr warning:", [str(x.message)[:60] for x in w])

# stepping with an explicit epoch uses the closed form and warns about deprecation
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    sched.step(5)
    print("epoch=5:", [f"{v:.6f}" for v in sched.get_last_lr()], "warned:", [x.category.__name__ for x in w])
    StepLR_opt = torch.optim.SGD(model.parameters(), lr=0.1)
    st = StepLR(StepLR_opt, step_size=2, gamma=0.5)
    StepLR_opt.step()
    st.step(7)
    print("StepLR epoch=7:", st.get_last_lr(), st.last_epoch)

# Noam: d_model^-0.5 * min(step^-0.5, step * warmup^-1.5), one lambda per group
d_model, warm = 64, 4
noam = lambda s: d_model ** -0.5 * min((s + 1) ** -0.5, (s + 1) * warm ** -1.5)  # noqa: E731
opt2 = torch.optim.Adam([{"params": [model.weight]}, {"params": [model.bias]}], lr=1.0, betas=(0.9, 0.98), eps=1e-9)
lam = LambdaLR(opt2, lr_lambda=[noam, lambda s: 0.5 * noam(s)])
vals = []
for _ in range(8):
    opt2.step()
    lam.step()
    vals.append(tuple(round(v, 6) for v in lam.get_last_lr()))
print("noam:", vals)

# weight decay scheduled by hand next to the lr
opt3 = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.0)
wd_sched = [0.04 + 0.5 * (0.4 - 0.04) * (1 - math.cos(math.pi * i / 5)) for i in range(6)]
seen = []
for i, wd in enumerate(wd_sched):
    for g in opt3.param_groups:
        g["weight_decay"] = wd
    opt3.step()
    seen.append(round(opt3.param_groups[0]["weight_decay"], 4))
print("wd schedule:", seen)

# resume through torch.save / torch.load(weights_only=True)
buf = io.BytesIO()
torch.save({"sched": sched.state_dict(), "opt": opt.state_dict()}, buf)
buf.seek(0)
ck = torch.load(buf, weights_only=True)
opt_r = torch.optim.AdamW([{"params": [model.weight], "weight_decay": 0.1},
                           {"params": [model.bias], "weight_decay": 0.0, "lr": 5e-4}], lr=1e-3)
opt_r.load_state_dict(ck["opt"])
sched_r = WarmupCosine(opt_r, warmup=100, total=1000)
sched_r.load_state_dict(ck["sched"])
print("resumed attrs:", sched_r.warmup, sched_r.total, sched_r.last_epoch)
opt.step()
sched.step()
opt_r.step()
sched_r.step()
print("resumed next:", [f"{v:.6f}" for v in sched_r.get_last_lr()], sched_r.get_last_lr() == sched.get_last_lr())

# a scheduler needs an Optimizer
try:
    WarmupCosine(model, warmup=1, total=2)
except TypeError as e:
    print("TypeError:", e)
