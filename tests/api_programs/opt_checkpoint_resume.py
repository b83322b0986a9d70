"""Checkpoint and resume of a whole training state through torch.save/torch.load(weights_only=True) into io.BytesIO:
model, AdamW with two param groups, a warmup+cosine SequentialLR, the epoch and the RNG state; the resumed run's
losses and parameters equal the uninterrupted run's; the optimizer state_dict's structure (integer param ids,
param_groups with every option, 'step' tensors) printed as a debugging researcher prints it; loading into a model
whose groups differ raises PyTorch's errors."""

import io

import torch
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)
DATA = torch.randn(48, 6)
TARGET = DATA @ torch.randn(6, 2) + 0.05 * torch.randn(48, 2)


def build():
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(6, 16), nn.LayerNorm(16), nn.SiLU(), nn.Linear(16, 2))
    decay = [p for n, p in model.named_parameters() if p.dim() > 1]
    no_decay = [p for n, p in model.named_parameters() if p.dim() <= 1]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=3e-3, betas=(0.9, 0.95))
    warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.2, total_iters=3)
    cos = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=9, eta_min=1e-4)
    sched = torch.optim.lr_scheduler.SequentialLR(opt, [warm, cos], milestones=[3])
    return model, opt, sched


def train_epoch(model, opt, sched, g):
    perm = torch.randperm(len(DATA), generator=g)
    total = 0.0
    for idx in perm.split(16):
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.smooth_l1_loss(model(DATA[idx]), TARGET[idx])
        loss.backward()
        opt.step()
        total += loss.item()
    sched.step()
    return round(total / 3, 4)


# the uninterrupted run
model, opt, sched = build()
g = torch.Generator().manual_seed(123)
straight = [train_epoch(model, opt, sched, g) for _ in range(8)]
print("straight:", straight)
final_straight = [p.detach().clone() for p in model.parameters()]

# run 4 epochs, checkpoint into memory, resume in fresh objects
model, opt, sched = build()
g = torch.Generator().manual_seed(123)
first = [train_epoch(model, opt, sched, g) for _ in range(4)]
buf = io.BytesIO()
torch.save({"epoch": 4, "model": model.state_dict(), "optimizer": opt.state_dict(),
            "scheduler": sched.state_dict(), "rng": g.get_state()}, buf)
print("checkpoint bytes > 0:", buf.tell() > 0)

osd = opt.state_dict()
print("optimizer keys:", list(osd))
print("state ids:", list(osd["state"]), "groups' params:", [grp["params"] for grp in osd["param_groups"]])
print("group 0 options:", {k: v for k, v in osd["param_groups"][0].items() if k != "params"})
st0 = osd["state"][0]
print("state[0]:", {k: (str(v.dtype), tuple(v.shape)) for k, v in st0.items()}, "step =", st0["step"])
print("exp_avg[0,:4]:", st0["exp_avg"][0, :4])
ssd = sched.state_dict()
print("sched:", ssd["last_epoch"], [s["last_epoch"] for s in ssd["_schedulers"]],
      [round(v, 6) for v in ssd["_last_lr"]])

buf.seek(0)
ckpt = torch.load(buf, weights_only=True)
print("loaded types:", {k: type(v).__name__ for k, v in ckpt.items()})
model2, opt2, sched2 = build()
print("load model:", model2.load_state_dict(ckpt["model"]))
opt2.load_state_dict(ckpt["optimizer"])
sched2.load_state_dict(ckpt["scheduler"])
g2 = torch.Generator()
g2.set_state(ckpt["rng"])
print("lr after load:", [round(grp["lr"], 6) for grp in opt2.param_groups], "step kept:",
      opt2.state[next(model2.parameters())]["step"])
second = [train_epoch(model2, opt2, sched2, g2) for _ in range(4)]
print("resumed:", first + second)
print("same losses:", first + second == straight)
print("same params:", all(torch.allclose(a, b, atol=1e-6) for a, b in zip(final_straight, model2.parameters())))
print("head bias:", model2[3].bias.detach())

# mismatches
model3, opt3, _ = build()
bad = dict(osd)
bad["param_groups"] = osd["param_groups"][:1]
try:
    opt3.load_state_dict(bad)
except ValueError as e:
    print("ValueError:", e)
bad = {"state": osd["state"], "param_groups": [dict(osd["param_groups"][0], params=[0]), osd["param_groups"][1]]}
try:
    opt3.load_state_dict(bad)
except ValueError as e:
    print("ValueError:", e)
try:
    model3.load_state_dict({k: v for k, v in ckpt["model"].items() if "3." not in k})
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0])
print("strict=False:", model3.load_state_dict({k: v for k, v in ckpt["model"].items() if "3." not in k},
                                              strict=False))

# the state is a deep copy? the live optimizer's tensors are shared with state_dict()
live = opt2.state_dict()["state"][0]["exp_avg"]
print("shares storage with live state:", live.data_ptr() == opt2.state[next(model2.parameters())]["exp_avg"].data_ptr())
