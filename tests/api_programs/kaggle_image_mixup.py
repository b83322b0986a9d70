"""A Kaggle image-classification notebook: mixup with a numpy Beta lambda and cutmix boxes, label smoothing,
gradient accumulation under torch.autocast('cpu', bfloat16) with a disabled GradScaler, warmup then
CosineAnnealingWarmRestarts, an EMA of weights through AveragedModel with a custom avg_fn, flip TTA and
pseudo-labels."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.swa_utils import AveragedModel

rng = np.random.default_rng(7)


def r(t, k=4):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


class SmallCNN(nn.Module):
    def __init__(self, n_cls=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 6, 3, padding=1, bias=False), nn.BatchNorm2d(6), nn.ReLU(inplace=True),
            nn.MaxPool2d(2), nn.Conv2d(6, 8, 3, padding=1), nn.GELU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(8, n_cls)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))


model = SmallCNN()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy((0.3 * rng.standard_normal(tuple(p.shape))).astype(np.float32)))
X = torch.from_numpy(rng.standard_normal((16, 3, 8, 8)).astype(np.float32))
y = torch.from_numpy(rng.integers(0, 4, 16))
Xu = torch.from_numpy(rng.standard_normal((8, 3, 8, 8)).astype(np.float32))


def mixup(x, y, alpha=0.4):
    lam = float(rng.beta(alpha, alpha))
    idx = torch.from_numpy(rng.permutation(x.size(0)))
    return lam * x + (1 - lam) * x[idx], y, y[idx], lam


def rand_bbox(size, lam):
    W, H = size[2], size[3]
    cut = math.sqrt(1.0 - lam)
    cw, ch = int(W * cut), int(H * cut)
    cx, cy = int(rng.integers(W)), int(rng.integers(H))
    x1, y1 = np.clip(cx - cw // 2, 0, W), np.clip(cy - ch // 2, 0, H)
    x2, y2 = np.clip(cx + cw // 2, 0, W), np.clip(cy + ch // 2, 0, H)
    return int(x1), int(y1), int(x2), int(y2)


def cutmix(x, y, alpha=1.0):
    lam = float(rng.beta(alpha, alpha))
    idx = torch.from_numpy(rng.permutation(x.size(0)))
    x1, y1, x2, y2 = rand_bbox(x.size(), lam)
    x = x.clone()
    x[:, :, x1:x2, y1:y2] = x[idx, :, x1:x2, y1:y2]
    lam = 1 - ((x2 - x1) * (y2 - y1) / (x.size(-1) * x.size(-2)))
    return x, y, y[idx], lam


crit = nn.CrossEntropyLoss(label_smoothing=0.1)
print(crit, crit.label_smoothing)
print("ls loss", round(crit(model(X), y).item(), 4), "plain", round(F.cross_entropy(model(X), y).item(), 4))

opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-4)
warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=3)
cos = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=4, T_mult=2, eta_min=1e-4)
sched = torch.optim.lr_scheduler.SequentialLR(opt, schedulers=[warm, cos], milestones=[3])
scaler = torch.amp.GradScaler("cpu", enabled=False)
print("scaler enabled", scaler.is_enabled(), "scale", scaler.get_scale())
ema = AveragedModel(model, avg_fn=lambda avg, cur, n: 0.9 * avg + 0.1 * cur, use_buffers=True)
print("ema n_averaged", ema.n_averaged, ema.n_averaged.dtype)

ACC = 2
lrs = []
for step in range(8):
    xb, yb = X[(step % 2) * 8:(step % 2) * 8 + 8], y[(step % 2) * 8:(step % 2) * 8 + 8]
    if step % 2 == 0:
        xb, ya, yb2, lam = mixup(xb, yb)
    else:
        xb, ya, yb2, lam = cutmix(xb, yb)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = model(xb)
        loss = lam * crit(out, ya) + (1 - lam) * crit(out, yb2)
    if step == 0:
        print("autocast out dtype", out.dtype, "loss dtype", loss.dtype, "enabled now", torch.is_autocast_enabled())
    scaler.scale(loss / ACC).backward()
    if (step + 1) % ACC == 0:
        scaler.unscale_(opt)
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        ema.update_parameters(model)
        print(f"step {step} lam {lam:.4f} loss {loss.item():.2f} grad_norm_finite {bool(torch.isfinite(gn))}")
    sched.step()
    lrs.append(round(sched.get_last_lr()[0], 5))
print("lrs", lrs)
print("ema n_averaged", ema.n_averaged.item())
print("grad dtype", model.head.weight.grad, "param dtype", model.head.weight.dtype)

model.eval()
ema.eval()
with torch.inference_mode():
    logits = model(X)
    tta = (logits.softmax(1) + model(torch.flip(X, dims=[3])).softmax(1) + model(X.flip(2)).softmax(1)) / 3
    e_logits = ema(X)
print("tta shape", tuple(tta.shape), "rows sum", r(tta.sum(1)), "inference tensor", tta.is_inference())
print("acc plain", round((logits.argmax(1) == y).float().mean().item(), 4),
      "tta", round((tta.argmax(1) == y).float().mean().item(), 4))
print("ema differs from model", not torch.allclose(e_logits, logits))
print("ema bn buffer", r(ema.module.features[1].running_mean), "model", r(model.features[1].running_mean))

with torch.no_grad():
    pu = torch.softmax(model(Xu), dim=1)
    conf, pl = pu.max(dim=1)
mask = conf > 0.289
print("pseudo conf", r(conf, 8), "kept", int(mask.sum()), "labels", pl[mask].tolist())
Xa = torch.cat([X, Xu[mask]])
ya = torch.cat([y, pl[mask]])
print("augmented set", tuple(Xa.shape), ya.dtype)
top2 = torch.topk(tta, k=2, dim=1)
print("top2 idx", top2.indices[:3].tolist(), "vals", r(top2.values, 4))
sub = "\n".join(["id,label"] + [f"img_{i},{int(c)}" for i, c in enumerate(tta.argmax(1))][:5])
print(sub)
try:
    crit(logits, y.float())
except RuntimeError as e:
    print("RuntimeError", str(e).split("\n")[0])
try:
    nn.CrossEntropyLoss(label_smoothing=1.5)(logits, y)
except RuntimeError as e:
    print("RuntimeError", e)
