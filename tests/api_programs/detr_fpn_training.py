"""Detection training infrastructure: an FPN with nearest upsampling, a DETR-style query decoder, param groups with
no decay on norms/biases, warmup via SequentialLR, GradScaler/autocast off on CPU, DistributedSampler with an explicit
rank, a full resumable checkpoint (model/optimizer/scheduler/scaler/RNG) through io.BytesIO, frozen backbones."""

import io
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, DistributedSampler

rng = np.random.default_rng(4)
torch.manual_seed(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


class FPN(nn.Module):
    def __init__(self, chans=(4, 8, 16), out=8):
        super().__init__()
        self.lateral = nn.ModuleList(nn.Conv2d(c, out, 1) for c in chans)
        self.smooth = nn.ModuleList(nn.Conv2d(out, out, 3, padding=1) for _ in chans)

    def forward(self, feats):
        lat = [l(f) for l, f in zip(self.lateral, feats)]
        outs = [lat[-1]]
        for f in reversed(lat[:-1]):
            outs.insert(0, f + F.interpolate(outs[0], size=f.shape[-2:], mode="nearest"))
        return [s(o) for s, o in zip(self.smooth, outs)]


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Sequential(nn.Conv2d(3, 4, 3, 2, 1), nn.BatchNorm2d(4), nn.ReLU())
        self.c2 = nn.Sequential(nn.Conv2d(4, 8, 3, 2, 1), nn.BatchNorm2d(8), nn.ReLU())
        self.c3 = nn.Sequential(nn.Conv2d(8, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU())

    def forward(self, x):
        a = self.c1(x)
        b = self.c2(a)
        return [a, b, self.c3(b)]


class Detector(nn.Module):
    def __init__(self, nq=5, d=8, ncls=3):
        super().__init__()
        self.backbone = Backbone()
        self.fpn = FPN(out=d)
        self.query = nn.Embedding(nq, d)
        self.attn = nn.MultiheadAttention(d, 2, batch_first=True)
        self.norm = nn.LayerNorm(d)
        box = nn.Sequential(nn.Linear(d, d), nn.GELU(approximate="tanh"), nn.Linear(d, 4))
        self.heads = nn.ModuleDict({"cls": nn.Linear(d, ncls + 1), "box": box})

    def forward(self, x):
        p = self.fpn(self.backbone(x))
        mem = torch.cat([f.flatten(2).transpose(1, 2) for f in p], dim=1)
        q = self.query.weight.unsqueeze(0).expand(x.shape[0], -1, -1)
        h, w = self.attn(q, mem, mem, need_weights=True, average_attn_weights=True)
        h = self.norm(q + h)
        return self.heads["cls"](h), self.heads["box"](h).sigmoid(), w


model = Detector()
with torch.no_grad():
    for name, p in model.named_parameters():
        if name.endswith("bias"):
            p.zero_()
        elif p.dim() > 1:
            p.copy_(T(*p.shape) * 0.3)
nn.init.trunc_normal_(torch.empty(3, 3), std=0.02, a=-0.04, b=0.04)
print("mem tokens", sum(16 * 16 // 4 ** (i + 1) for i in range(3)), [k for k in model.heads.keys()])
decay, no_decay = [], []
for name, p in model.named_parameters():
    (no_decay if p.ndim <= 1 or name.endswith(".bias") or "norm" in name else decay).append(p)
groups = [{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}]
opt = torch.optim.AdamW(groups, lr=1e-3, betas=(0.9, 0.999))
print("groups", len(decay), len(no_decay), [g["weight_decay"] for g in opt.param_groups])
warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=2)
cos = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=1e-5)
sched = torch.optim.lr_scheduler.SequentialLR(opt, schedulers=[warm, cos], milestones=[2])
scaler = torch.amp.GradScaler("cuda", enabled=torch.cuda.is_available())
print("scaler", scaler.is_enabled(), scaler.get_scale() if scaler.is_enabled() else None)


class Boxes(Dataset):
    def __init__(self, n):
        self.x = T(n, 3, 16, 16)
        self.cls = torch.from_numpy(rng.integers(0, 3, (n, 5)))
        self.box = torch.from_numpy(rng.uniform(0.1, 0.9, (n, 5, 4)).astype(np.float32))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], {"labels": self.cls[i], "boxes": self.box[i]}


ds = Boxes(12)
sampler = DistributedSampler(ds, num_replicas=2, rank=1, shuffle=True, seed=0, drop_last=False)
print("sampler", len(sampler), sampler.num_samples, sampler.total_size)
idx = list(iter(sampler))
print("rank indices", len(idx), all(0 <= i < 12 for i in idx), len(set(idx)))
sub = torch.utils.data.Subset(ds, [0, 2, 4, 6, 8, 10])
loader = DataLoader(sub, batch_size=3, shuffle=False)
xb, tb = next(iter(loader))
print("collate", tuple(xb.shape), sorted(tb.keys()), tuple(tb["boxes"].shape), tb["labels"].dtype)


def criterion(logits, boxes, targets):
    ce = F.cross_entropy(logits.flatten(0, 1), targets["labels"].flatten(), label_smoothing=0.1)
    l1 = F.l1_loss(boxes, targets["boxes"])
    return ce + 5 * l1, {"ce": ce.detach(), "l1": l1.detach()}


for epoch in range(3):
    sampler.set_epoch(epoch)
    model.train()
    for step, (xb, tb) in enumerate(loader):
        with torch.autocast(device_type="cpu", enabled=False):
            logits, boxes, attn = model(xb)
            loss, parts = criterion(logits, boxes, tb)
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        scaler.step(opt)
        scaler.update()
    sched.step()
    print("epoch", epoch, round(loss.item(), 4), {k: round(v.item(), 4) for k, v in parts.items()},
          round(gn.item(), 4), [round(l, 6) for l in sched.get_last_lr()])
print("attn", tuple(attn.shape), r(attn.sum(-1)[0], 3))

buf = io.BytesIO()
torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict(),
            "scaler": scaler.state_dict(), "epoch": 3, "rng": torch.get_rng_state()}, buf)
buf.seek(0)
ckpt = torch.load(buf, map_location="cpu", weights_only=False)
print("ckpt", sorted(ckpt), ckpt["epoch"], ckpt["rng"].dtype, sorted(ckpt["optimizer"].keys()))
print("opt state", len(ckpt["optimizer"]["state"]), sorted(ckpt["optimizer"]["state"][0].keys()),
      ckpt["optimizer"]["param_groups"][1]["weight_decay"], sorted(ckpt["scheduler"].keys())[:4])
m2 = Detector()
m2.load_state_dict(ckpt["model"])
o2 = torch.optim.AdamW(m2.parameters(), lr=1e-3)
try:
    o2.load_state_dict(ckpt["optimizer"])
except ValueError as e:
    print("ValueError", e)
d2 = [p for n, p in m2.named_parameters() if not (p.ndim <= 1 or n.endswith(".bias") or "norm" in n)]
nd2 = [p for n, p in m2.named_parameters() if p.ndim <= 1 or n.endswith(".bias") or "norm" in n]
o2 = torch.optim.AdamW([{"params": d2}, {"params": nd2}], lr=1e-3)
o2.load_state_dict(ckpt["optimizer"])
print("resumed", o2.param_groups[0]["lr"] == opt.param_groups[0]["lr"], o2.state[d2[0]]["step"].item())
torch.set_rng_state(ckpt["rng"])

model.backbone.requires_grad_(False)
model.backbone.eval()
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print("frozen", trainable, sum(p.numel() for p in model.parameters()), model.backbone.training, model.training)
with torch.no_grad():
    logits, boxes, _ = model(xb)
prob = logits.softmax(-1)[..., :-1]
scores, labels = prob.max(-1)
print("scores", r(scores[0]), labels[0].tolist(), r(boxes[0, 0]))
keep = scores > 0.3
print("kept", keep.sum().item(), torch.nan_to_num(torch.tensor([math.nan, math.inf, 1.0]), posinf=9.0).tolist())
