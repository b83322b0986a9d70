"""Outlier Exposure (Hendrycks et al.) and CutPaste self-supervision: an in-distribution and an auxiliary outlier
dataset mixed by ConcatDataset, a WeightedRandomSampler and a seeded DataLoader, the OE cross-entropy-to-uniform
loss via logsumexp, CutPaste patches pasted with in-place slice assignment, and label-smoothed CE to uniform."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import ConcatDataset, DataLoader, Subset, TensorDataset, WeightedRandomSampler

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

x_in = torch.randn(24, 3, 8, 8)
y_in = torch.arange(24) % 3
x_out = torch.rand(12, 3, 8, 8) * 4 - 2
y_out = torch.full((12,), -1)
ds = ConcatDataset([TensorDataset(x_in, y_in), TensorDataset(x_out, y_out)])
print("concat", len(ds), ds.cumulative_sizes, ds[30][1], type(ds[0]).__name__)
weights = torch.cat([torch.full((24,), 1 / 24), torch.full((12,), 1 / 12)])
g = torch.Generator().manual_seed(3)
sampler = WeightedRandomSampler(weights, num_samples=16, replacement=True, generator=g)
idx = list(sampler)
print("sampler", len(sampler), sum(i >= 24 for i in idx), idx[:6])
loader = DataLoader(
    ds, batch_size=8, sampler=WeightedRandomSampler(weights, 16, generator=torch.Generator().manual_seed(3))
)
batches = [(xb.shape, (yb == -1).sum().item()) for xb, yb in loader]
print("batches", batches, len(loader))
sub = Subset(ds, [0, 25, 30])
print("subset", len(sub), [int(sub[i][1]) for i in range(3)])

net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.AdaptiveMaxPool2d(1), nn.Flatten(), nn.Linear(4, 3))
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=5e-4)
torch.manual_seed(1)
train = DataLoader(ds, batch_size=12, shuffle=True, drop_last=True)
for epoch in range(2):
    for xb, yb in train:
        logits = net(xb)
        ind = yb >= 0
        loss = F.cross_entropy(logits[ind], yb[ind]) if ind.any() else logits.sum() * 0
        oe = -(logits[~ind].mean(1) - torch.logsumexp(logits[~ind], dim=1)).mean()
        oe_alt = (
            F.cross_entropy(logits[~ind], torch.full((int((~ind).sum()), 1), 1.0 / 3).expand(-1, 3))
            if (~ind).any()
            else oe
        )
        total = loss + 0.5 * oe
        opt.zero_grad()
        total.backward()
        opt.step()
    print(epoch, round(loss.item(), 4), round(oe.item(), 4), torch.allclose(oe, oe_alt) if (~ind).any() else None)
print("empty oe", (-(torch.empty(0, 3).mean(1) - torch.logsumexp(torch.empty(0, 3), dim=1)).mean()))
print(
    "uniform target CE",
    F.cross_entropy(torch.tensor([[1.0, 2.0, 3.0]]), torch.full((1, 3), 1 / 3)),
    F.cross_entropy(torch.tensor([[1.0, 2.0, 3.0]]), torch.tensor([0]), label_smoothing=1.0),
)


def cutpaste(img, g, area=(0.02, 0.15), aspect=(0.3, 3.3)):
    _, h, w = img.shape
    a = torch.empty(1).uniform_(*area, generator=g).item() * h * w
    r = torch.empty(1).uniform_(*aspect, generator=g).item()
    ph = max(1, min(h - 1, int(round((a * r) ** 0.5))))
    pw = max(1, min(w - 1, int(round((a / r) ** 0.5))))
    y0 = int(torch.randint(0, h - ph + 1, (1,), generator=g))
    x0 = int(torch.randint(0, w - pw + 1, (1,), generator=g))
    y1 = int(torch.randint(0, h - ph + 1, (1,), generator=g))
    x1 = int(torch.randint(0, w - pw + 1, (1,), generator=g))
    out = img.clone()
    patch = img[:, y0 : y0 + ph, x0 : x0 + pw]
    out[:, y1 : y1 + ph, x1 : x1 + pw] = torch.flip(patch, dims=[-1]) * 1.1
    return out, (ph, pw, y1, x1)


g = torch.Generator().manual_seed(7)
img = torch.arange(3 * 8 * 8, dtype=torch.float32).view(3, 8, 8) / 192
aug, box = cutpaste(img, g)
print("cutpaste", box, (aug != img).any(0).sum().item(), aug.shape, img.data_ptr() != aug.data_ptr())
scar = img.clone()
scar[:, 2:4, 1:7] = torch.tensor([1.0, 0.0, 0.5]).view(3, 1, 1)
print("scar", scar[:, 2, :3])
rot = torch.rot90(img, 1, dims=(1, 2))
print("rot90", rot[0, 0, :3], torch.rot90(img, -1, (1, 2)).is_contiguous(), torch.rot90(img, 2, (1, 2))[0, 0, :2])
try:
    scar[:, 2:4, 1:7] = torch.ones(2, 2)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    DataLoader(ds, batch_size=4, shuffle=True, sampler=sampler)
except ValueError as e:
    print("ValueError", e)
try:
    WeightedRandomSampler(weights, num_samples=0)
except ValueError as e:
    print("ValueError", e)
try:
    ds[40]
except (IndexError, ValueError) as e:
    print(type(e).__name__, e)
