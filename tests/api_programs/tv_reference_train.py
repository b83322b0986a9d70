"""torchvision's classification reference script in miniature: weight-decay parameter groups without norms and biases,
label smoothing, warmup then cosine through LambdaLR, autocast and a disabled GradScaler, gradient clipping, an EMA
AveragedModel with a custom avg_fn, random_split with a collate_fn, a weights_only checkpoint in memory, top-k
accuracy and a confusion matrix with per-class precision and recall."""

import io
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.swa_utils import AveragedModel
from torch.utils.data import DataLoader, Subset, SubsetRandomSampler, TensorDataset, WeightedRandomSampler, random_split

rng = np.random.default_rng(7)
torch.manual_seed(0)
NUM_CLASSES = 4


def T(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


class SmallNet(nn.Module):
    def __init__(self, num_classes=NUM_CLASSES):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
            nn.Conv2d(8, 8, 3, stride=2, padding=1, bias=False), nn.GroupNorm(2, 8), nn.SiLU(inplace=True),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Sequential(nn.Flatten(), nn.LayerNorm(8), nn.Dropout(0.0), nn.Linear(8, num_classes))

    def forward(self, x):
        return self.head(self.pool(self.features(x)))


model = SmallNet()
with torch.no_grad():
    for n, p in model.named_parameters():
        p.copy_(T(*p.shape, scale=0.4) + (1.0 if p.dim() == 1 and "weight" in n else 0.0))
model = model.to(memory_format=torch.channels_last)
print(model)
n_params = sum(p.numel() for p in model.parameters())
n_train = sum(p.numel() for p in model.parameters() if p.requires_grad)
print("params", n_params, n_train, f"{n_params / 1e3:.2f}K")
for name, mod in model.named_children():
    print(" ", name, type(mod).__name__, sum(p.numel() for p in mod.parameters()))


def set_weight_decay(model, weight_decay, norm_weight_decay=0.0):
    norm_classes = (nn.modules.batchnorm._BatchNorm, nn.LayerNorm, nn.GroupNorm)
    params = {"other": [], "norm": []}
    names = {"other": [], "norm": []}
    for mname, module in model.named_modules():
        for pname, p in module.named_parameters(recurse=False):
            key = "norm" if isinstance(module, norm_classes) or pname == "bias" else "other"
            params[key].append(p)
            names[key].append(f"{mname}.{pname}")
    groups = [{"params": params["other"], "weight_decay": weight_decay},
              {"params": params["norm"], "weight_decay": norm_weight_decay}]
    return groups, names


groups, names = set_weight_decay(model, 1e-2)
print("decay", names["other"])
print("no decay", names["norm"])
opt = torch.optim.AdamW(groups, lr=3e-3, betas=(0.9, 0.99))
print("groups", [(len(g["params"]), g["weight_decay"], g["lr"]) for g in opt.param_groups])

X = T(40, 3, 8, 8)
Y = torch.from_numpy(rng.integers(0, NUM_CLASSES, 40))
full = TensorDataset(X, Y)
a, b = random_split(full, [0.75, 0.25], generator=torch.Generator().manual_seed(0))
print("split", len(a), len(b), type(a).__name__, sorted(a.indices + b.indices) == list(range(40)))
perm = rng.permutation(40).tolist()
train_ds, val_ds = Subset(full, perm[:30]), Subset(full, perm[30:])


def collate(batch):
    xs, ys = zip(*batch)
    return torch.stack(xs).contiguous(memory_format=torch.channels_last), torch.tensor(ys)


g = torch.Generator().manual_seed(0)
train_loader = DataLoader(train_ds, batch_size=8, shuffle=False, collate_fn=collate, drop_last=True)
val_loader = DataLoader(val_ds, batch_size=4, shuffle=False, collate_fn=collate)
xb, yb = next(iter(train_loader))
print("batch", tuple(xb.shape), xb.is_contiguous(memory_format=torch.channels_last), yb.dtype, len(train_loader))
h, layouts = xb, []
for m in model.features:
    h = m(h)
    layouts.append((type(m).__name__, h.is_contiguous(memory_format=torch.channels_last), type(h.grad_fn).__name__))
print("layouts", layouts, model.pool(h).stride())

sub = SubsetRandomSampler(list(range(0, 40, 3)), generator=g)
counts = torch.bincount(Y, minlength=NUM_CLASSES).double()
sample_w = (1.0 / counts)[Y]
wrs = WeightedRandomSampler(sample_w, num_samples=16, replacement=True, generator=g)
print("samplers", len(sub), sorted(sub), len(wrs), all(0 <= i < 40 for i in wrs), f"{sample_w.sum().item():.4f}")

epochs, warmup = 3, 2
steps = epochs * len(train_loader)


def lr_lambda(step):
    if step < warmup:
        return (step + 1) / warmup
    t = (step - warmup) / max(1, steps - warmup)
    return 0.5 * (1.0 + math.cos(math.pi * t))


sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)
scaler = torch.amp.GradScaler("cpu", enabled=False)
print("scaler", scaler.is_enabled(), scaler.get_scale())
ema_decay = 0.8
ema = AveragedModel(model, avg_fn=lambda avg, p, n: ema_decay * avg + (1 - ema_decay) * p, use_buffers=True)
crit = nn.CrossEntropyLoss(label_smoothing=0.1)
use_amp = False
for epoch in range(epochs):
    model.train()
    tot, norms = 0.0, []
    for i, (xb, yb) in enumerate(train_loader):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=use_amp):
            out = model(xb)
            loss = crit(out, yb)
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        norms.append(nn.utils.clip_grad_norm_(model.parameters(), 1.0).item())
        scaler.step(opt)
        scaler.update()
        sched.step()
        ema.update_parameters(model)
        tot += loss.item()
    print("epoch", epoch, round(tot / len(train_loader), 4), [round(n, 4) for n in norms],
          [round(g["lr"], 6) for g in opt.param_groups])
print("ema", ema.n_averaged.item(), round(ema.module.head[3].bias.sum().item(), 4),
      round(ema.module.features[1].running_mean.sum().item(), 4))

with torch.autocast("cpu", dtype=torch.bfloat16):
    model.eval()
    a = model(X[:4])
    lin = model.head[3](torch.ones(2, 8))
print("autocast", a.dtype, lin.dtype, torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
with torch.no_grad():
    print("amp close", (a.float() - model(X[:4])).abs().max().item() < 0.1)

buf = io.BytesIO()
torch.save({"model": model.state_dict(), "model_ema": ema.state_dict(), "optimizer": opt.state_dict(),
            "lr_scheduler": sched.state_dict(), "scaler": scaler.state_dict(), "epoch": epochs - 1}, buf)
buf.seek(0)
ck = torch.load(buf, map_location="cpu", weights_only=True)
print("ckpt", sorted(ck), ck["epoch"], ck["lr_scheduler"]["last_epoch"], ck["scaler"], list(ck["model_ema"])[:2])
fresh = SmallNet()
print("load", fresh.load_state_dict(ck["model"]))
fresh.eval()


def accuracy(output, target, topk=(1,)):
    with torch.inference_mode():
        maxk = max(topk)
        _, pred = output.topk(maxk, 1, True, True)
        correct = pred.t().eq(target[None])
        return [correct[:k].flatten().sum(dtype=torch.float32).item() * 100.0 / target.size(0) for k in topk]


conf = torch.zeros(NUM_CLASSES, NUM_CLASSES, dtype=torch.int64)
accs = []
with torch.inference_mode():
    for xb, yb in val_loader:
        out = fresh(xb)
        accs.append(accuracy(out, yb, topk=(1, 3)))
        conf += torch.bincount(yb * NUM_CLASSES + out.argmax(1), minlength=NUM_CLASSES ** 2).view(NUM_CLASSES, -1)
print("acc", [[round(v, 2) for v in a] for a in accs])
print("confusion", conf.tolist())
tp = conf.diag().double()
precision = tp / conf.sum(0).clamp(min=1)
recall = tp / conf.sum(1).clamp(min=1)
f1 = 2 * precision * recall / (precision + recall).clamp(min=1e-12)
print("precision", np.round(precision.numpy(), 4).tolist(), "recall", np.round(recall.numpy(), 4).tolist())
print("f1", np.round(f1.numpy(), 4).tolist(), "macro", round(f1.mean().item(), 4))
print("overall acc", (tp.sum() / conf.sum()).item())
print("probs", np.round(F.softmax(out, 1)[0].numpy(), 4).tolist())
