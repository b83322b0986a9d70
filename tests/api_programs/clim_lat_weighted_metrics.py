"""WeatherBench-style scoring: cos(latitude) area weights, latitude-weighted RMSE/MAE/bias and anomaly correlation
(ACC) against a climatology, per-variable and per-lead-time tables, NaN-masked land/sea points, and metric errors."""

import math

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)
nlat, nlon = 7, 12
lat = torch.linspace(-90, 90, nlat)
lat64 = torch.linspace(-90, 90, nlat, dtype=torch.float64)
print("lat", lat, lat.dtype)
w = torch.cos(torch.deg2rad(lat))
print("cos", w, torch.deg2rad(lat64)[-1].item() == math.pi / 2)
w = w / w.mean()
print("weights", w, round(w.sum().item(), 4))
w_clamped = torch.cos(torch.deg2rad(lat)).clamp(min=0)
print("clamped", w_clamped.min().item() >= 0, w_clamped.argmax().item())
# half-cell centered grid (no pole points)
lat_c = torch.arange(-90 + 180 / nlat / 2, 90, 180 / nlat)
print("centers", lat_c, lat_c.dtype, lat_c.shape)

T, V = 4, 3
pred = torch.randn(T, V, nlat, nlon)
truth = pred + 0.3 * torch.randn(T, V, nlat, nlon)
clim = truth.mean(dim=0, keepdim=True)
wb = w.view(1, 1, -1, 1)
err2 = (pred - truth) ** 2
rmse = torch.sqrt((err2 * wb).mean(dim=(-2, -1)))
print("rmse", rmse.shape, rmse[0])
rmse2 = (err2 * wb).mean((-1, -2)).sqrt()
print("same", torch.allclose(rmse, rmse2), torch.equal(rmse.amax(0), rmse.max(0).values))
mae = ((pred - truth).abs() * wb).mean(dim=(-2, -1))
bias = ((pred - truth) * wb).mean(dim=(-2, -1))
print("mae", mae.mean(0), "bias", bias.mean(0))

fa = pred - clim
oa = truth - clim
fa = fa - (fa * wb).mean((-2, -1), keepdim=True)
oa = oa - (oa * wb).mean((-2, -1), keepdim=True)
acc = (wb * fa * oa).sum((-2, -1)) / torch.sqrt((wb * fa**2).sum((-2, -1)) * (wb * oa**2).sum((-2, -1)))
print("acc", acc.shape, acc.mean(0), bool((acc <= 1).all()))

# weighted by broadcasting a (lat,) vector along lon with expand
w2d = w[:, None].expand(nlat, nlon)
print("expand", w2d.stride(), w2d.is_contiguous(), w2d.contiguous().stride())
print("wmean", round((truth[0, 0] * w2d).sum().item() / w2d.sum().item(), 4))

# masked land points as NaN
mask = torch.rand(nlat, nlon) < 0.2
t = truth[0, 0].clone()
t[mask] = float("nan")
print("nan count", torch.isnan(t).sum().item(), t.nanmean().isnan().item())
valid = ~torch.isnan(t)
wm = torch.where(valid, w2d, torch.zeros(()))
num = torch.nansum((t - pred[0, 0]) ** 2 * wm)
print("masked rmse", round(torch.sqrt(num / wm.sum()).item(), 4))
print("nanmean dims", torch.nanmean(t, dim=1).shape, t.nansum(dim=0).isnan().any().item())
print("nanmedian", t.nanmedian(dim=1).values.isnan().sum().item(), round(t.nanmedian().item(), 4))
print("nanquantile", t.flatten().nanquantile(torch.tensor([0.1, 0.9])))

# per-lead-time table in float64
table = torch.stack([rmse.mean(1), acc.mean(1)], dim=1).double()
for lt, (r, a) in enumerate(table.tolist()):
    print(f"lead {6 * (lt + 1):3d}h rmse={r:.4f} acc={a:.4f}")
print(table.dtype, table.round(decimals=3))
skill = 1 - rmse / rmse.max(dim=0, keepdim=True).values
print("skill", skill.amin().item() >= 0, skill.argmin(dim=0).tolist())

# errors
try:
    (err2 * w.view(1, 1, 1, -1)).mean()
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.cos(torch.deg2rad(torch.arange(0, 90, 30)))
except RuntimeError as e:
    print(type(e).__name__, e)
print("int deg2rad", torch.deg2rad(torch.arange(0, 90, 30)).dtype)
try:
    torch.nanmean(torch.arange(4))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    rmse.mean(dim=(0, 0))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.sqrt(err2.mean(dim=(-2, -1)), out=torch.empty(2, dtype=torch.int64))
except RuntimeError as e:
    print(type(e).__name__, e)
