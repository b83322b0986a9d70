"""Saving and resuming a diffusion training run: one checkpoint dict with model, EMA, optimizer, LR scheduler,
GradScaler-free step counter and RNG states written to BytesIO, torch.load with weights_only=True and map_location,
strict=False loading with missing/unexpected keys (a new class embedding), a stripped _orig_mod./module. prefix,
and a resumed run that continues exactly where the first stopped."""

import copy
import io

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self, n_cls=0):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.norm = nn.GroupNorm(2, 4)
        self.out = nn.Conv2d(4, 1, 3, padding=1)
        self.register_buffer("step_count", torch.zeros((), dtype=torch.long))
        self.register_buffer("cache", torch.zeros(3), persistent=False)
        if n_cls:
            self.cls = nn.Embedding(n_cls, 4)

    def forward(self, x):
        return self.out(F.silu(self.norm(self.conv(x))))


def make():
    torch.manual_seed(1)
    m = Net()
    ema = copy.deepcopy(m).requires_grad_(False)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-2, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=10)
    return m, ema, opt, sched


def train(m, ema, opt, sched, steps, g):
    losses = []
    for _ in range(steps):
        x0 = torch.randn(4, 1, 5, 5, generator=g)
        noise = torch.randn(x0.shape, generator=g)
        loss = F.mse_loss(m(x0 + noise), noise)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        m.step_count += 1
        with torch.no_grad():
            for pe, pm in zip(ema.parameters(), m.parameters()):
                pe.lerp_(pm, 0.1)
        losses.append(round(loss.item(), 4))
    return losses


m, ema, opt, sched = make()
g = torch.Generator().manual_seed(7)
first = train(m, ema, opt, sched, 4, g)
buf = io.BytesIO()
torch.save(
    {
        "model": m.state_dict(),
        "ema": ema.state_dict(),
        "opt": opt.state_dict(),
        "sched": sched.state_dict(),
        "gen": g.get_state(),
        "step": 4,
    },
    buf,
)
print("saved bytes > 0:", buf.tell() > 0, "first:", first)
rest = train(m, ema, opt, sched, 3, g)
print("continued:", rest)

buf.seek(0)
ck = torch.load(buf, weights_only=True, map_location="cpu")
print("keys:", sorted(ck), list(ck["model"]), ck["model"]["step_count"])
print(
    "opt groups:",
    [(k, v) for k, v in ck["opt"]["param_groups"][0].items() if k in ("lr", "initial_lr", "max_lr", "params")],
)
print("sched:", {k: ck["sched"][k] for k in ("last_epoch", "total_steps", "_step_count")})
m2, ema2, opt2, sched2 = make()
m2.load_state_dict(ck["model"])
ema2.load_state_dict(ck["ema"])
opt2.load_state_dict(ck["opt"])
sched2.load_state_dict(ck["sched"])
g2 = torch.Generator()
g2.set_state(ck["gen"])
resumed = train(m2, ema2, opt2, sched2, 3, g2)
print("resumed:", resumed, resumed == rest)
print(
    "same weights:",
    all(torch.equal(a, b) for a, b in zip(m.state_dict().values(), m2.state_dict().values())),
    "same ema:",
    all(torch.equal(a, b) for a, b in zip(ema.parameters(), ema2.parameters())),
)
print("lr:", round(sched.get_last_lr()[0], 6), round(sched2.get_last_lr()[0], 6), int(m2.step_count))

# load into a model with a new class embedding, and from a compiled/DDP checkpoint
bigger = Net(n_cls=3)
res = bigger.load_state_dict(ck["model"], strict=False)
print("strict=False:", type(res).__name__, res.missing_keys, res.unexpected_keys)
try:
    bigger.load_state_dict(ck["model"])
except RuntimeError as e:
    print("RuntimeError", str(e).splitlines()[0], "|", str(e).splitlines()[1].strip())
prefixed = {"_orig_mod." + k: v for k, v in ck["model"].items()}
try:
    Net().load_state_dict(prefixed)
except RuntimeError as e:
    print("prefixed:", str(e).splitlines()[1].strip()[:70])
nn.modules.utils.consume_prefix_in_state_dict_if_present(prefixed, "_orig_mod.")
print("stripped:", Net().load_state_dict(prefixed))
bad = dict(ck["model"])
bad["conv.weight"] = bad["conv.weight"][:2]
try:
    Net().load_state_dict(bad)
except RuntimeError as e:
    print("shape:", str(e).splitlines()[1].strip())
buf2 = io.BytesIO()
torch.save({"fn": print}, buf2)
buf2.seek(0)
try:
    torch.load(buf2, weights_only=True)
except Exception as e:
    print(type(e).__name__, "print" in str(e))
