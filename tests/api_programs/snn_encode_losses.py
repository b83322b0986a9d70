"""Spike encoders and spike-train losses: rate, latency and delta coding; count, rate, latency and van Rossum losses."""
import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
data = torch.tensor([[0.0, 0.25, 0.5, 1.0], [0.9, 0.1, 0.6, 0.3]])
T = 10

# rate coding: Bernoulli draws of the intensities
rate = torch.bernoulli(data.expand(T, -1, -1))
print("rate", rate.shape, rate.sum(0).tolist())

# latency coding: brighter fires earlier, t = tau * ln(x / (x - thr)), clipped to the window
thr, tau = 0.01, 5.0
x = data.clamp(min=thr + 1e-6)
t_spk = (tau * torch.log(x / (x - thr))).clamp(max=T - 1).round().long()
lat = F.one_hot(t_spk, T).permute(2, 0, 1).float()
print("latency times", t_spk.tolist(), lat.sum().item())
lin = torch.linspace(0, T - 1, steps=T).view(T, 1, 1)
print("linear latency", ((1 - data) * (T - 1)).round().long().tolist())

# delta coding of a signal: spikes where it changes more than a threshold, with sign
signal = torch.sin(torch.linspace(0, 6.28, 20)) * 2
d = torch.diff(signal, prepend=signal[:1])
on, off = (d > 0.3).float(), (d < -0.3).float()
print("delta", on.sum().item(), off.sum().item(), torch.nonzero(on).flatten().tolist())

# spike-train outputs of a toy readout
logits_t = torch.randn(T, 2, 3, requires_grad=True)
spk_out = torch.sigmoid(5 * logits_t)  # soft spikes stand in for the surrogate here
labels = torch.tensor([2, 0])

# count MSE: correct class should fire 80% of the time, others 20%
counts = spk_out.sum(0)
target_counts = torch.full_like(counts, 0.2 * T).scatter(1, labels.unsqueeze(1), 0.8 * T)
loss_count = F.mse_loss(counts, target_counts)
# rate cross-entropy: softmax of the per-step outputs, averaged over time
loss_rate = F.cross_entropy(spk_out.reshape(T * 2, 3), labels.repeat(T))
loss_rate_mean = torch.stack([F.cross_entropy(spk_out[t], labels) for t in range(T)]).mean()
# membrane max-over-time loss
loss_max = F.cross_entropy(logits_t.max(0).values, labels)
# first-spike latency: soft-argmin of spike times via a softmax over -t
times = torch.arange(T, dtype=torch.float32).view(T, 1, 1)
first = (torch.softmax(-times * spk_out * 3, dim=0) * times).sum(0)
loss_lat = F.mse_loss(first.gather(1, labels.unsqueeze(1)).squeeze(1), torch.zeros(2))
print("losses", [round(l.item(), 4) for l in (loss_count, loss_rate, loss_rate_mean, loss_max, loss_lat)])
total = loss_count + loss_rate + loss_max + loss_lat
(g,) = torch.autograd.grad(total, logits_t)
print("grad", g.abs().sum().round(decimals=4).item(), g[0].round(decimals=4).tolist())

# van Rossum distance: filter both trains with an exponential kernel, compare
def van_rossum(a, b, tau=2.0):
    k = torch.exp(-torch.arange(6, dtype=a.dtype) / tau).flip(0).view(1, 1, -1)
    fa = F.conv1d(F.pad(a.unsqueeze(1), (5, 0)), k)
    fb = F.conv1d(F.pad(b.unsqueeze(1), (5, 0)), k)
    return ((fa - fb) ** 2).sum(-1).squeeze(1) / tau


a = torch.zeros(3, 12)
b = torch.zeros(3, 12)
a[0, 2] = b[0, 3] = 1
a[1, [1, 5]] = 1
b[1, 5] = 1
a[2, 4] = b[2, 4] = 1
print("van Rossum", van_rossum(a, b).round(decimals=4).tolist())

# spike-count statistics
trains = torch.bernoulli(torch.full((50, 4), 0.3))
isi = [torch.diff(torch.nonzero(trains[:, n]).flatten()).float() for n in range(4)]
print("counts", trains.sum(0).tolist())
print("isi mean", [round(v.mean().item(), 4) for v in isi])
print("cv", [round((v.std() / v.mean()).item(), 4) for v in isi])
print("fano", (trains.view(10, 5, 4).sum(1).var(0) / trains.view(10, 5, 4).sum(1).mean(0)).round(decimals=4).tolist())
hist = torch.histc(torch.nonzero(trains)[:, 0].float(), bins=5, min=0, max=50)
print("psth", hist.tolist())
print("bucketize", torch.bucketize(torch.tensor([0.5, 2.0, 9.9]), torch.tensor([1.0, 5.0, 10.0])).tolist())
try:
    F.one_hot(torch.tensor([3, 10]), T)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.bernoulli(torch.tensor([0.5, 1.2]))
except Exception as e:
    print(type(e).__name__, e)
