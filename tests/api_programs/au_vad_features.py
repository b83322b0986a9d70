"""Voice-activity detection as a signal-processing script writes it: frame energies and zero-crossing rates from
Tensor.unfold, cumsum moving averages, quantile thresholds, median smoothing over unfolded windows, hangover by
max_pool1d, segment boundaries from torch.diff and nonzero, bucketize/histc statistics, and a batched version with
lengths and masks."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
SR, WIN, HOP = 8000, 200, 80

t = torch.arange(SR) / SR
speech = torch.zeros(SR)
for start, end, f in [(0.10, 0.32, 180.0), (0.45, 0.60, 220.0), (0.78, 0.93, 150.0)]:
    seg = (t >= start) & (t < end)
    env = torch.sin(math.pi * (t[seg] - start) / (end - start))
    speech[seg] = env * sum(torch.sin(2 * math.pi * h * f * t[seg]) / h for h in (1, 2, 3))
noise = 0.02 * torch.randn(SR)
wave = speech + noise
print("wave", wave.shape, round(wave.abs().max().item(), 4), round(wave.pow(2).mean().sqrt().item(), 4))

frames = wave.unfold(0, WIN, HOP)
print("frames", tuple(frames.shape), "last frame starts at", (frames.shape[0] - 1) * HOP)
energy = frames.pow(2).mean(1)
log_e = 10 * torch.log10(energy + 1e-10)
signs = torch.sign(frames)
signs[signs == 0] = 1
zcr = (signs[:, 1:] != signs[:, :-1]).float().mean(1)
print("log energy dB", log_e[:6], "zcr", zcr[:6])
print("energy stats", round(log_e.min().item(), 3), round(log_e.max().item(), 3), round(log_e.median().item(), 3))

q = torch.quantile(log_e, torch.tensor([0.1, 0.5, 0.9]))
print("quantiles", q, torch.quantile(log_e, 0.25, interpolation="nearest").item() in log_e.tolist())
noise_floor = q[0]
thr = noise_floor + 0.5 * (q[2] - noise_floor)
raw = (log_e > thr) & (zcr < 0.5)
print("threshold", round(thr.item(), 4), "active", raw.sum().item(), "of", raw.numel())

padded = F.pad(raw.float().view(1, 1, -1), (2, 2), mode="replicate").view(-1)
med = padded.unfold(0, 5, 1).median(dim=1).values.bool()
print("median filtered changes", (med != raw).sum().item())
hang = F.max_pool1d(med.float().view(1, 1, -1), kernel_size=5, stride=1, padding=2).view(-1).bool()
print("hangover adds", (hang & ~med).sum().item())

edges = torch.diff(hang.int(), prepend=torch.tensor([0]), append=torch.tensor([0]))
starts = (edges == 1).nonzero().flatten()
ends = (edges == -1).nonzero().flatten()
segments = torch.stack([starts, ends], 1)
print("segments (frames)", segments.tolist())
sec = (segments * HOP + torch.tensor([0, WIN - HOP])).float() / SR
print("segments (s)", [[round(a, 3), round(b, 3)] for a, b in sec.tolist()])

cs = torch.cumsum(F.pad(energy, (1, 0)), 0)
k = 7
mov = (cs[k:] - cs[:-k]) / k
ref = energy.unfold(0, k, 1).mean(1)
print("moving average", tuple(mov.shape), torch.allclose(mov, ref, atol=1e-6), mov.argmax().item())
ema = torch.zeros_like(energy)
alpha = 0.9
ema[0] = energy[0]
for i in range(1, energy.numel()):
    ema[i] = alpha * ema[i - 1] + (1 - alpha) * energy[i]
w = alpha ** torch.arange(energy.numel() - 1, -1, -1, dtype=torch.float64)
closed = ((1 - alpha) * (w[1:] * energy[1:].double()).sum() + w[0] * energy[0].double()).item()
print("ema last", round(ema[-1].item(), 6), round(closed, 6))

bins = torch.tensor([-60.0, -40.0, -20.0, -10.0])
levels = torch.bucketize(log_e, bins)
print("level counts", torch.bincount(levels, minlength=5).tolist())
print("searchsorted right", torch.searchsorted(bins, torch.tensor([-40.0, -15.0]), right=True).tolist())
hist = torch.histc(log_e, bins=8, min=-50, max=0)
print("histc", hist.tolist())
vals, idx = torch.topk(energy, 3)
print("loudest frames", idx.tolist(), [round(v, 4) for v in vals.tolist()])
rank = energy.argsort(descending=True).argsort()
print("ranks of first frames", rank[:5].tolist())

batch = torch.stack([wave, wave.roll(2000), 0.1 * wave])
lengths = torch.tensor([SR, 6000, 4000])
valid = torch.arange(SR)[None, :] < lengths[:, None]
batch = batch * valid
bf = batch.unfold(-1, WIN, HOP)
n_frames = (lengths - WIN) // HOP + 1
fmask = torch.arange(bf.shape[1])[None, :] < n_frames[:, None]
be = 10 * torch.log10(bf.pow(2).mean(-1) + 1e-10)
mean_e = (be * fmask).sum(1) / fmask.sum(1)
print("batched frames", tuple(bf.shape), n_frames.tolist(), [round(v, 4) for v in mean_e.tolist()])
max_e = be.masked_fill(~fmask, float("-inf")).max(1)
print("max per utt", [round(v, 4) for v in max_e.values.tolist()], max_e.indices.tolist())
active = ((be > thr) & fmask).float()
print("active ratio", [round(v, 4) for v in (active.sum(1) / fmask.sum(1)).tolist()])
first = torch.where(active.any(1), active.argmax(1), torch.full((3,), -1))
print("first active frame", first.tolist())
