"""fast.ai-style training tricks in plain PyTorch: an LR range test, one-cycle with OneCycleLR (cos and linear,
three-phase, momentum cycling), discriminative learning rates through param groups, freezing and unfreezing with
requires_grad_, mixup and cutmix, label smoothing, progressive resizing with F.interpolate, and flip TTA."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(42)


def r(x, k=5):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def body():
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.AdaptiveAvgPool2d(2),
                         nn.Flatten())


model = nn.Sequential(body(), nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Dropout(0.0), nn.Linear(8, 3)))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy((0.4 * rng.standard_normal(tuple(p.shape))).astype(np.float32)))
X = torch.from_numpy(rng.standard_normal((12, 3, 8, 8)).astype(np.float32))
y = torch.from_numpy(rng.integers(0, 3, 12))


def snapshot():
    return {k: v.clone() for k, v in model.state_dict().items()}


init_state = snapshot()

# LR range test: exponentially growing LR, smoothed loss, stop when it diverges.
opt = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda i: 10 ** (i / 4))
avg, best, lrs, losses = 0.0, math.inf, [], []
for i in range(14):
    loss = F.cross_entropy(model(X), y)
    avg = 0.98 * avg + 0.02 * loss.item()
    smooth = avg / (1 - 0.98 ** (i + 1))
    if smooth > 4 * best or not math.isfinite(smooth):
        print("lr finder stop", i)
        break
    best = min(best, smooth)
    lrs.append(opt.param_groups[0]["lr"])
    losses.append(round(smooth, 4))
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
print("lr finder", [f"{v:.2e}" for v in lrs[::3]], losses[::3])
print("suggested", f"{lrs[int(np.argmin(losses))] / 10:.2e}")
model.load_state_dict(init_state)

# One-cycle: the shape of the LR and momentum curves.
for kw in ({}, {"anneal_strategy": "linear"}, {"three_phase": True, "pct_start": 0.25}):
    o = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    s = torch.optim.lr_scheduler.OneCycleLR(o, max_lr=0.5, total_steps=12, **kw)
    lr_curve, mom_curve = [], []
    for _ in range(12):
        lr_curve.append(round(s.get_last_lr()[0], 5))
        mom_curve.append(round(o.param_groups[0]["momentum"], 4))
        o.step()
        s.step()
    print("onecycle", kw, lr_curve[::2], mom_curve[::3])
print("onecycle keys", sorted(k for k in s.state_dict() if not k.startswith("_")))
o = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.95, 0.999))
s = torch.optim.lr_scheduler.OneCycleLR(o, max_lr=[0.01], epochs=2, steps_per_epoch=3, div_factor=10,
                                        final_div_factor=100)
print("onecycle adam", o.param_groups[0]["betas"], o.param_groups[0]["initial_lr"], o.param_groups[0]["min_lr"])
for _ in range(6):
    o.step()
    s.step()
try:
    s.step()
except ValueError as e:
    print("onecycle overrun", type(e).__name__, str(e).splitlines()[0])
try:
    torch.optim.lr_scheduler.OneCycleLR(o, max_lr=0.1)
except ValueError as e:
    print("onecycle no steps", type(e).__name__, e)

# Discriminative learning rates and freezing the body.
groups = [{"params": model[0].parameters(), "lr": 1e-3}, {"params": model[1].parameters()}]
opt = torch.optim.AdamW(groups, lr=1e-2, weight_decay=0.01)
print("groups", [g["lr"] for g in opt.param_groups], [len(g["params"]) for g in opt.param_groups],
      opt.param_groups[0]["weight_decay"])


def set_trainable(module, flag):
    for p in module.parameters():
        p.requires_grad_(flag)
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.train(flag)  # fastai keeps BN layers of a frozen body in train mode only when unfrozen


set_trainable(model[0], False)
for bad in (0, np.bool_(True)):  # a flag read from a config file or a numpy comparison
    try:
        model[0][0].weight.requires_grad_(bad)
    except TypeError as e:
        print("requires_grad_", type(e).__name__, e)
try:
    model[0][0].bias.requires_grad = 1
except RuntimeError as e:
    print("requires_grad =", type(e).__name__, e)
print("trainable", sum(p.numel() for p in model.parameters() if p.requires_grad),
      sum(p.numel() for p in model.parameters()))
before = model[0][0].weight.clone()
rm_before = model[0][1].running_mean.clone()
for _ in range(3):
    opt.zero_grad()
    F.cross_entropy(model(X), y).backward()
    opt.step()
print("frozen body unchanged", torch.equal(before, model[0][0].weight), model[0][0].weight.grad is None,
      torch.equal(rm_before, model[0][1].running_mean))
set_trainable(model[0], True)
model.train()
opt.zero_grad()
loss = F.cross_entropy(model(X), y)
loss.backward()
opt.step()
print("unfrozen", round(loss.item(), 4), not torch.equal(before, model[0][0].weight),
      model[0][1].num_batches_tracked.item())
model.load_state_dict(init_state)

# Mixup and cutmix with numpy-drawn mixing coefficients.
lam = float(rng.beta(0.4, 0.4))
perm = torch.from_numpy(rng.permutation(12))
xm = lam * X + (1 - lam) * X[perm]
logits = model(xm)
loss_mix = lam * F.cross_entropy(logits, y) + (1 - lam) * F.cross_entropy(logits, y[perm])
soft = lam * F.one_hot(y, 3).float() + (1 - lam) * F.one_hot(y[perm], 3).float()
print("mixup", round(lam, 4), round(loss_mix.item(), 4), round(F.cross_entropy(logits, soft).item(), 4))
try:
    F.cross_entropy(logits, soft, ignore_index=0)
except RuntimeError as e:
    print("soft targets with ignore_index", type(e).__name__, e)
cut = math.sqrt(1 - lam)
ch, cw = int(8 * cut), int(8 * cut)
cy, cx = 3, 5
y1, y2 = np.clip(cy - ch // 2, 0, 8), np.clip(cy + ch // 2, 0, 8)
x1, x2 = np.clip(cx - cw // 2, 0, 8), np.clip(cx + cw // 2, 0, 8)
xc = X.clone()
xc[:, :, y1:y2, x1:x2] = X[perm][:, :, y1:y2, x1:x2]
lam_adj = 1 - (y2 - y1) * (x2 - x1) / 64
print("cutmix box", [int(v) for v in (y1, y2, x1, x2)], round(float(lam_adj), 4), type(lam_adj).__name__,
      round((xc != X).float().mean().item(), 4))

# Label smoothing: the built-in against the hand formula, with ignore_index and weights.
logits = torch.from_numpy(rng.standard_normal((6, 4)).astype(np.float32))
t = torch.tensor([0, 1, 2, 3, -100, 1])
for eps in (0.0, 0.1, 0.3):
    crit = nn.CrossEntropyLoss(label_smoothing=eps)
    keep = t != -100
    lp = F.log_softmax(logits[keep], -1)
    manual = ((1 - eps) * -lp.gather(1, t[keep, None]).squeeze(1) - eps * lp.mean(-1)).mean()
    print("smoothing", eps, round(crit(logits, t).item(), 4), round(manual.item(), 4))
w = torch.tensor([1.0, 2.0, 0.5, 1.0])
print("smoothing weighted", round(F.cross_entropy(logits, t, weight=w, label_smoothing=0.2).item(), 4),
      r(F.cross_entropy(logits, t, label_smoothing=0.2, reduction="none"), 6))
print("smoothing soft targets", round(F.cross_entropy(logits, F.softmax(logits * 2, 1), label_smoothing=0.1).item(), 4))
print(nn.CrossEntropyLoss(label_smoothing=0.1))
try:
    F.cross_entropy(logits, t, label_smoothing=1.5)
except RuntimeError as e:
    print("bad smoothing", type(e).__name__, e)

# Progressive resizing and test-time augmentation.
for size in (4, 8, 16):
    xs = F.interpolate(X[:2], size=(size, size), mode="bilinear", align_corners=False)
    print("resize", size, tuple(xs.shape), tuple(model(xs).shape), r(xs, 2))
print("antialias", r(F.interpolate(X[:1], scale_factor=0.5, mode="bilinear", antialias=True), 3),
      r(F.interpolate(X[:1], scale_factor=0.5, mode="area"), 3))
print("nearest-exact", r(F.interpolate(X[:1], size=5, mode="nearest-exact"), 4),
      r(F.interpolate(X[:1], size=5, mode="nearest"), 4))
model.eval()
with torch.no_grad():
    preds = torch.stack([F.softmax(model(X), 1), F.softmax(model(X.flip(3)), 1),
                         F.softmax(model(torch.flip(X, dims=[2])), 1)])
tta = preds.mean(0)
print("tta", tuple(preds.shape), r(tta), (tta.argmax(1) == y).float().mean().item(), r(tta.sum(1), 3))
try:
    F.interpolate(X, size=4, scale_factor=2.0)
except ValueError as e:
    print("interpolate both", type(e).__name__, e)
