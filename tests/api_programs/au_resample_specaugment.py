"""Resampling and augmentation as speech pipelines write them: F.interpolate(mode='linear') on (N, C, L) with
align_corners and scale_factor/size variants, nearest/area modes, windowed-sinc resampling through a strided
conv1d, speed perturbation, and SpecAugment's frequency/time masks and time warping drawn from seeded generators."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

x = torch.arange(6.0).pow(2).view(1, 1, 6)
for ac in (False, True):
    up = F.interpolate(x, size=11, mode="linear", align_corners=ac)
    print("linear size=11 align_corners", ac, [round(v, 4) for v in up.flatten().tolist()])
    dn = F.interpolate(x, scale_factor=0.5, mode="linear", align_corners=ac)
    print("  scale 0.5", dn.flatten().tolist())
print("scale 1.5", F.interpolate(x, scale_factor=1.5, mode="linear").flatten())
print("scale 1.7 recompute", F.interpolate(x, scale_factor=1.7, mode="linear", recompute_scale_factor=True).flatten())
print("scale 1.7 no recompute", F.interpolate(x, scale_factor=1.7, mode="linear").flatten())
print("nearest", F.interpolate(x, size=9, mode="nearest").flatten().tolist())
print("nearest-exact", F.interpolate(x, size=9, mode="nearest-exact").flatten().tolist())
print("area", F.interpolate(x, size=4, mode="area").flatten().tolist())
print("adaptive_avg_pool1d", F.adaptive_avg_pool1d(x, 4).flatten().tolist())

xg = torch.randn(2, 3, 10, requires_grad=True)
y = F.interpolate(xg, scale_factor=2.5, mode="linear", align_corners=False)
(y * torch.arange(25.0)).sum().backward()
print("grad", tuple(y.shape), xg.grad[0, 0, :5], round(xg.grad.sum().item(), 2))

SR_IN, SR_OUT = 16000, 12000
t = torch.arange(1600) / SR_IN
wave = torch.sin(2 * math.pi * 440 * t) + 0.5 * torch.sin(2 * math.pi * 5500 * t)
g = math.gcd(SR_IN, SR_OUT)
up_f, down_f = SR_OUT // g, SR_IN // g
print("ratio", up_f, down_f)
cutoff = 0.95 * min(1.0, up_f / down_f) / up_f
half = 24
n = torch.arange(-half, half + 1, dtype=torch.float64)
h = cutoff * torch.sinc(cutoff * n) * torch.kaiser_window(2 * half + 1, periodic=False, beta=8.0, dtype=torch.float64)
h = (h * up_f / h.sum()).float()
stuffed = torch.zeros(1, 1, wave.numel() * up_f)
stuffed[..., ::up_f] = wave
res = F.conv1d(F.pad(stuffed, (half, half)), h.view(1, 1, -1), stride=down_f)
print("sinc resample", tuple(res.shape), round(res.std().item(), 4))
spec = torch.fft.rfft(res[0, 0, 100:-100] * torch.hann_window(res.shape[-1] - 200))
freqs = torch.fft.rfftfreq(res.shape[-1] - 200, d=1 / SR_OUT)
keep = spec.abs() > 0.1 * spec.abs().max()
print("surviving bands Hz", sorted({int(round(v / 100) * 100) for v in freqs[keep].tolist()}))
lin = F.interpolate(wave.view(1, 1, -1), scale_factor=SR_OUT / SR_IN, mode="linear", align_corners=False)
print("linear resample", tuple(lin.shape), round((lin - res).abs().mean().item(), 4))

for speed in (0.9, 1.1):
    pert = F.interpolate(wave.view(1, 1, -1), size=int(wave.numel() / speed), mode="linear", align_corners=True)
    print("speed", speed, pert.shape[-1], round(pert[0, 0, 500].item(), 4))

gen = torch.Generator().manual_seed(1234)
spec = torch.randn(3, 20, 30, generator=gen).abs().add(1).log()
print("spec", tuple(spec.shape), round(spec.mean().item(), 4))


def freq_mask(s, F_max, n_masks, generator):
    s = s.clone()
    for b in range(s.shape[0]):
        for _ in range(n_masks):
            f = torch.randint(0, F_max + 1, (1,), generator=generator).item()
            f0 = torch.randint(0, s.shape[1] - f + 1, (1,), generator=generator).item()
            s[b, f0 : f0 + f, :] = 0.0
    return s


def time_mask_iid(s, T_max, generator, p=1.0):
    value = torch.rand(s.shape[0], 1, generator=generator) * min(T_max, int(p * s.shape[2]))
    start = torch.rand(s.shape[0], 1, generator=generator) * (s.shape[2] - value)
    idx = torch.arange(s.shape[2])
    m = (idx >= start.long()) & (idx < (start + value).long())
    return s.masked_fill(m[:, None, :], s.mean()), m


gen.manual_seed(7)
fm = freq_mask(spec, 5, 2, gen)
print("freq masked rows", [(fm[b].sum(1) == 0).nonzero().flatten().tolist() for b in range(3)])
tm, m = time_mask_iid(spec, 8, gen)
print("time mask spans", [r.nonzero().flatten().tolist() for r in m])
print("masked value", round(tm[0, 0, m[0]].unique().item() if m[0].any() else 0.0, 4))


def time_warp(s, W, generator):
    T = s.shape[-1]
    center = torch.randint(W, T - W, (1,), generator=generator).item()
    warped = torch.randint(center - W, center + W, (1,), generator=generator).item() + 1
    left = F.interpolate(s[..., :center], size=warped, mode="linear", align_corners=False)
    right = F.interpolate(s[..., center:], size=T - warped, mode="linear", align_corners=False)
    return torch.cat([left, right], -1), center, warped


tw, c, wpt = time_warp(spec, 4, gen)
print("time warp", tuple(tw.shape), c, wpt, round((tw - spec).abs().mean().item(), 4))

torch.manual_seed(5)
masks = torch.rand(4, 30) < 0.15
print("bernoulli-style frame drops", masks.sum(1).tolist())
drop = F.dropout1d(spec, p=0.5, training=True)
print("dropout1d zeroed channels", (drop.abs().sum(-1) == 0).sum(1).tolist())


def show(fn):
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, "|", str(e).split("\n")[0][:160])


show(lambda: F.interpolate(x, size=4, mode="bilinear"))
show(lambda: F.interpolate(x, size=4, mode="nearest", align_corners=True))
show(lambda: F.interpolate(x, size=4, scale_factor=2.0, mode="linear"))
show(lambda: F.interpolate(x.view(6), size=4, mode="linear"))
show(lambda: F.interpolate(x, mode="linear"))
