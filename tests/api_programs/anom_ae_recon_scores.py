"""Autoencoder anomaly scoring as in reconstruction-based detectors: per-sample MSE/L1/SSIM-free scores from
reduction='none' losses, flatten(1) means, channel-wise maxima, half/bfloat16 scoring and threshold by quantile."""

import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


class ConvAE(nn.Module):
    def __init__(self, c=1, h=8):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(c, h, 3, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(h, 2 * h, 3, 2, 1))
        self.dec = nn.Sequential(
            nn.ConvTranspose2d(2 * h, h, 4, 2, 1),
            nn.ReLU(inplace=True),
            nn.ConvTranspose2d(h, c, 4, 2, 1),
            nn.Sigmoid(),
        )

    def forward(self, x):
        return self.dec(self.enc(x))


model = ConvAE()
normal = torch.rand(16, 1, 8, 8) * 0.2 + 0.4
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(30):
    opt.zero_grad()
    loss = F.mse_loss(model(normal), normal)
    loss.backward()
    opt.step()
print("train loss", round(loss.item(), 4))

test = torch.cat([torch.rand(4, 1, 8, 8) * 0.2 + 0.4, torch.rand(4, 1, 8, 8)])
labels = torch.tensor([0, 0, 0, 0, 1, 1, 1, 1])
model.eval()
with torch.no_grad():
    rec = model(test)
err = F.mse_loss(rec, test, reduction="none")
print("err", err.shape, err.dtype, err.requires_grad)
s_mse = err.flatten(1).mean(1)
s_mse2 = err.mean(dim=(1, 2, 3))
s_mse3 = err.view(err.size(0), -1).mean(-1, keepdim=True)
print("same", torch.allclose(s_mse, s_mse2), s_mse3.shape)
s_l1 = F.l1_loss(rec, test, reduction="none").sum(dim=[1, 2, 3])
s_max = (rec - test).abs().amax(dim=(-2, -1)).squeeze(1)
print("mse", s_mse)
print("l1", s_l1)
print("max", s_max)
print("separable", (s_mse[labels == 1].min() > s_mse[labels == 0].max()).item())

# per-pixel anomaly map, smoothed and normalised to [0, 1]
amap = err.mean(1, keepdim=True)
amap = F.avg_pool2d(amap, 3, stride=1, padding=1, count_include_pad=False)
mn = amap.amin(dim=(2, 3), keepdim=True)
mx = amap.amax(dim=(2, 3), keepdim=True)
norm = (amap - mn) / (mx - mn + 1e-8)
print("map", norm.shape, norm.min().item(), norm.max().item() <= 1.0)
print("map row", norm[4, 0, 3])

# threshold by the 95th quantile of the normal scores; interpolation modes
val = s_mse[:4]
for mode in ["linear", "lower", "higher", "nearest", "midpoint"]:
    print(mode, torch.quantile(val, 0.95, interpolation=mode))
thr = torch.quantile(val, torch.tensor([0.5, 0.95]))
print("thr", thr, (s_mse > thr[1]).int())
pred = torch.where(s_mse > thr[1], 1, 0)
print("pred", pred, pred.dtype, (pred == labels).float().mean())

# scores in reduced precision (as under autocast inference)
for dt in [torch.float16, torch.bfloat16, torch.float64]:
    e = F.mse_loss(rec.to(dt), test.to(dt), reduction="none")
    s = e.flatten(1).mean(1)
    print(dt, s.dtype, s.float().round(decimals=3))
    print(" sum", e.sum(dim=(1, 2, 3), dtype=torch.float32).dtype, e.float().sum().round(decimals=2))

# typical mistakes
try:
    F.mse_loss(rec, test[:, :, :4], reduction="none")
except RuntimeError as e:
    print("RuntimeError", e)

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    bad = F.mse_loss(rec[:, 0, 0, 0], test[:1, 0, 0, 0])
    print("broadcast loss", round(bad.item(), 4), [str(x.message) for x in w])
try:
    torch.quantile(s_mse, 1.5)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.quantile(labels, 0.5)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.quantile(s_mse, 0.5, interpolation="cubic")
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.quantile(torch.tensor([]), 0.5)
except RuntimeError as e:
    print("RuntimeError", e)
print(torch.quantile(torch.tensor([1.0, float("nan")]), 0.5))
print(torch.nanquantile(torch.tensor([1.0, float("nan"), 3.0]), 0.5))
print(torch.quantile(torch.arange(12.0).view(3, 4), torch.tensor([0.25, 0.75]), dim=1, keepdim=True).shape)
