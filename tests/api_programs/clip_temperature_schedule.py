"""Training-loop machinery around CLIP's temperature: a learnable logit_scale clamped in place after each step,
a fixed temperature annealed by a cosine schedule, warmup-cosine LambdaLR on param groups, OneCycleLR and
SequentialLR, the effect of temperature on softmax entropy, and gradient clipping with its returned norm."""

import math

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

img = F.normalize(torch.randn(8, 6), dim=-1)
txt = F.normalize(img + 0.8 * torch.randn(8, 6), dim=-1)
labels = torch.arange(8)
sim = img @ txt.T

for tau in [1.0, 0.5, 0.1, 0.07, 0.01]:
    p = (sim / tau).softmax(-1)
    ent = -(p * p.clamp_min(1e-30).log()).sum(-1).mean()
    loss = F.cross_entropy(sim / tau, labels)
    print(f"tau={tau}", round(ent.item(), 4), round(loss.item(), 4), round(p.max(-1).values.mean().item(), 4))


def cosine_temperature(step, total, t_start=0.2, t_end=0.05):
    return t_end + 0.5 * (t_start - t_end) * (1 + math.cos(math.pi * step / total))


print("annealed", [round(cosine_temperature(s, 10), 4) for s in range(0, 11, 2)])

proj = nn.Linear(6, 6, bias=False)
logit_scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))
opt = torch.optim.AdamW(
    [
        {"params": proj.parameters(), "lr": 0.05, "weight_decay": 0.1},
        {"params": [logit_scale], "lr": 0.5, "weight_decay": 0.0},
    ]
)
warmup, total = 3, 10


def lr_lambda(step):
    if step < warmup:
        return (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return 0.5 * (1 + math.cos(math.pi * progress))


sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)
print("initial lrs", [round(x, 4) for x in sched.get_last_lr()])
for step in range(total):
    opt.zero_grad(set_to_none=True)
    logits = logit_scale.exp() * F.normalize(proj(img), dim=-1) @ txt.T
    loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(list(proj.parameters()) + [logit_scale], max_norm=1.0)
    opt.step()
    sched.step()
    with torch.no_grad():
        logit_scale.clamp_(0, math.log(100))
    if step % 3 == 0 or step == total - 1:
        print(
            step,
            round(loss.item(), 4),
            round(norm.item(), 4),
            round(logit_scale.item(), 4),
            [round(x, 5) for x in sched.get_last_lr()],
        )
print("state_dict", sched.state_dict()["last_epoch"], sched.state_dict()["base_lrs"], sched.state_dict()["_step_count"])

# OneCycle and a SequentialLR of warmup + cosine
opt2 = torch.optim.SGD([nn.Parameter(torch.zeros(2))], lr=0.1, momentum=0.9)
oc = torch.optim.lr_scheduler.OneCycleLR(opt2, max_lr=1.0, total_steps=8, pct_start=0.25)
lrs, moms = [], []
for _ in range(8):
    lrs.append(round(oc.get_last_lr()[0], 4))
    moms.append(round(opt2.param_groups[0]["momentum"], 4))
    opt2.step()
    oc.step()
print("onecycle lr", lrs)
print("onecycle momentum", moms)

opt3 = torch.optim.SGD([nn.Parameter(torch.zeros(2))], lr=1.0)
s1 = torch.optim.lr_scheduler.LinearLR(opt3, start_factor=0.1, total_iters=3)
s2 = torch.optim.lr_scheduler.CosineAnnealingLR(opt3, T_max=5, eta_min=0.01)
seq = torch.optim.lr_scheduler.SequentialLR(opt3, schedulers=[s1, s2], milestones=[3])
out = []
for _ in range(9):
    out.append(round(opt3.param_groups[0]["lr"], 4))
    opt3.step()
    seq.step()
print("sequential", out)

# clip_grad_norm_ corner cases
p = nn.Parameter(torch.ones(3))
p.grad = torch.tensor([3.0, 4.0, 0.0])
print("clip", round(torch.nn.utils.clip_grad_norm_([p], 1.0).item(), 4), p.grad.round(decimals=4).tolist())
p.grad = torch.tensor([3.0, 4.0, 0.0])
print("inf norm", torch.nn.utils.clip_grad_norm_([p], 2.0, norm_type="inf").item(), p.grad.tolist())
p.grad = torch.tensor([1.0, float("nan"), 0.0])
try:
    torch.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
except Exception as e:
    print(type(e).__name__, e)
p.grad = torch.tensor([3.0, -5.0, 0.5])
torch.nn.utils.clip_grad_value_([p], 1.0)
print("clip value", p.grad.tolist())
try:
    torch.optim.lr_scheduler.LambdaLR(opt, [lr_lambda])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.optim.lr_scheduler.OneCycleLR(opt2, max_lr=1.0)
except Exception as e:
    print(type(e).__name__, e)
