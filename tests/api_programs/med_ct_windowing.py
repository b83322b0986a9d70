"""CT/MRI intensity preprocessing: HU windowing with clamp and clip (tensor bounds too), per-volume min-max with
amin/amax over several dims, percentile clipping with quantile/nanquantile and its interpolation modes, z-score
over a foreground mask, histogram standardisation, and the dtype rules of int16 scanner data."""

import torch

torch.manual_seed(0)
raw = torch.randint(-1024, 3072, (2, 1, 6, 8, 8), dtype=torch.int16)
raw[0, 0, 0, 0, :4] = torch.tensor([-3024, -2000, 3071, 4000], dtype=torch.int16)
print("raw", raw.dtype, raw.min().item(), raw.max().item(), raw.float().mean().round(decimals=2).item())

# scanner rescale: HU = slope * stored + intercept
hu = raw.to(torch.float32) * 1.0 + (-0.0)
print("int16 * float", (raw * 1.5).dtype, (raw + 1).dtype, (raw // 7).dtype, (raw / 2).dtype)
print("int16 overflow wraps", (raw[0, 0, 0, 0, 3:4] * 10).tolist())


def window(x, level, width):
    lo, hi = level - width / 2, level + width / 2
    return (x.clamp(lo, hi) - lo) / (hi - lo)


for name, (lvl, wid) in {"brain": (40, 80), "lung": (-600, 1500), "bone": (400, 1800)}.items():
    w = window(hu, lvl, wid)
    print(name, round(w.mean().item(), 4), round(w.std().item(), 4), (w == 0).sum().item(), (w == 1).sum().item())

lo_t = torch.tensor([-1000.0, -160.0]).view(2, 1, 1, 1, 1)
hi_t = torch.tensor([1000.0, 240.0]).view(2, 1, 1, 1, 1)
multi = torch.clamp(hu, min=lo_t, max=hi_t)
print("tensor bounds", multi.amin(dim=(1, 2, 3, 4)).tolist(), multi.amax(dim=(1, 2, 3, 4)).tolist())
print("clip alias", torch.equal(torch.clip(hu, -1000, 1000), hu.clamp(-1000, 1000)))
print("clamp min only", hu.clamp(min=0).min().item(), "max only", hu.clamp(max=0).max().item())

vmin = hu.amin(dim=(2, 3, 4), keepdim=True)
vmax = hu.amax(dim=(2, 3, 4), keepdim=True)
mm = (hu - vmin) / (vmax - vmin + 1e-8)
print("minmax", tuple(vmin.shape), vmin.flatten().tolist(), round(mm.sum().item(), 2))
print("aminmax", torch.aminmax(hu[1]), hu.flatten(1).aminmax(dim=1))

flat = hu.flatten(start_dim=1)
q = torch.tensor([0.005, 0.5, 0.995])
for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
    print("quantile", interp, torch.quantile(flat, q, dim=1, interpolation=interp).round(decimals=3).tolist())
p_lo, p_hi = torch.quantile(flat, torch.tensor([0.01, 0.99]), dim=1, keepdim=True)
print("keepdim shapes", tuple(p_lo.shape))
clipped = torch.maximum(torch.minimum(flat, p_hi), p_lo)
print("percentile clip", clipped.min(1).values.tolist(), clipped.max(1).values.tolist())
print("scalar quantile", round(hu.quantile(0.25).item(), 3), round(torch.median(hu).item(), 3))

with_nan = hu.clone()
with_nan[0, 0, :2] = float("nan")
print(
    "quantile nan",
    torch.quantile(with_nan[0].flatten(), 0.5).item(),
    round(torch.nanquantile(with_nan[0].flatten(), 0.5).item(), 3),
)
print(
    "nanmean",
    round(torch.nanmean(with_nan[0]).item(), 3),
    round(with_nan[0].nansum().item(), 1),
    round(torch.nanmedian(with_nan[0]).item(), 1),
)

mask = hu > -500
fg = hu[mask]
print("fg voxels", mask.sum().item(), mask.dtype, fg.shape)
cnt = mask.sum(dim=(1, 2, 3, 4), keepdim=True).clamp_min(1)
mean = (hu * mask).sum(dim=(1, 2, 3, 4), keepdim=True) / cnt
var = (((hu - mean) * mask) ** 2).sum(dim=(1, 2, 3, 4), keepdim=True) / (cnt - 1)
z = torch.where(mask, (hu - mean) / var.sqrt(), torch.zeros(()))
print(
    "zscore", mean.flatten().round(decimals=2).tolist(), round(z[mask].mean().item(), 4), round(z[mask].std().item(), 4)
)
sd, mu = torch.std_mean(fg, correction=0)
print(
    "std_mean",
    round(sd.item(), 2),
    round(mu.item(), 2),
    torch.var_mean(hu, dim=(2, 3, 4), unbiased=False)[0].flatten().round(decimals=0).tolist(),
)

hist = torch.histc(hu[0], bins=8, min=-1024, max=3072)
print("histc", hist.tolist(), hist.dtype)
counts, edges = torch.histogram(hu[1].flatten(), bins=4, range=(-1024.0, 3072.0), density=True)
print("histogram density", (counts * 1e4).round(decimals=3).tolist(), edges.tolist())
landmarks = torch.quantile(fg, torch.linspace(0.1, 0.9, 5))
std_scale = torch.linspace(0, 100, 5)
idx = torch.bucketize(hu[1].flatten(), landmarks).clamp(1, 4)
lo_l, hi_l = landmarks[idx - 1], landmarks[idx]
mapped = std_scale[idx - 1] + (hu[1].flatten() - lo_l) / (hi_l - lo_l) * (std_scale[idx] - std_scale[idx - 1])
print("nyul map", round(mapped.mean().item(), 3), idx.bincount().tolist())

h16 = window(hu, 40, 80).half()
print("half window", h16.dtype, round(h16.float().sum().item(), 1), hu.half().isinf().sum().item())
try:
    torch.quantile(flat, 1.5)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.quantile(raw.flatten(), 0.5)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.quantile(flat, q, interpolation="cubic")
except Exception as e:
    print(type(e).__name__, e)
try:
    hu.clamp()
except Exception as e:
    print(type(e).__name__, e)
try:
    raw.amax(dim=())
    print("amax dim=() ok", raw.amax(dim=()).item())
except Exception as e:
    print(type(e).__name__, e)
