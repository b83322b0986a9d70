"""FastSpeech 2's variance adaptor: pitch and energy quantised into bins by torch.bucketize over linear or log-spaced
boundaries, embedded and added to the hidden sequence, with the phoneme-level averaging of frame pitch, the
normalisation statistics, and bucketize/searchsorted's options, dtypes and errors."""

import math

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(11)
torch.set_printoptions(precision=4, sci_mode=False)
N_BINS, D = 8, 6


class VarianceEmbedding(nn.Module):
    def __init__(self, vmin, vmax, log_scale=False):
        super().__init__()
        if log_scale:
            bins = torch.exp(torch.linspace(math.log(vmin), math.log(vmax), N_BINS - 1))
        else:
            bins = torch.linspace(vmin, vmax, N_BINS - 1)
        self.bins = nn.Parameter(bins, requires_grad=False)
        self.embedding = nn.Embedding(N_BINS, D)

    def forward(self, x, control=1.0):
        idx = torch.bucketize(x * control, self.bins)
        return self.embedding(idx), idx


pitch_emb = VarianceEmbedding(80.0, 400.0, log_scale=True)
energy_emb = VarianceEmbedding(-1.5, 2.0)
print(pitch_emb.bins.round(decimals=2), pitch_emb.bins.requires_grad)
frame_pitch = torch.tensor([[0.0, 95.0, 120.0, 121.0, 250.0, 399.0, 410.0, 80.0], [150.0, 150.0, 0.0, 0.0, 0, 0, 0, 0]])
emb, idx = pitch_emb(frame_pitch)
print(idx, idx.dtype, emb.shape)
print(torch.bucketize(frame_pitch, pitch_emb.bins, right=True)[0], pitch_emb(frame_pitch, control=1.2)[1][0])
energy = torch.randn(2, 8)
e, eidx = energy_emb(energy)
hidden = torch.randn(2, 8, D, requires_grad=True)
out = hidden + emb + e
out.sum().backward()
print(eidx, round(energy_emb.embedding.weight.grad.sum().item(), 4), energy_emb.embedding.weight.grad.sum(1))
print(pitch_emb.bins.grad, [n for n, p in pitch_emb.named_parameters() if p.requires_grad])

# Phoneme-level averages of frame pitch, ignoring unvoiced (zero) frames, from durations.
durations = torch.tensor([[1, 3, 2, 2], [2, 2, 0, 0]])
ends = torch.cumsum(F.pad(durations, (1, 0)), dim=1)
voiced = (frame_pitch > 0).float()
cum_p = F.pad(torch.cumsum(frame_pitch, 1), (1, 0))
cum_v = F.pad(torch.cumsum(voiced, 1), (1, 0))
s = torch.gather(cum_p, 1, ends[:, 1:]) - torch.gather(cum_p, 1, ends[:, :-1])
n = torch.gather(cum_v, 1, ends[:, 1:]) - torch.gather(cum_v, 1, ends[:, :-1])
phone_pitch = torch.where(n > 0, s / n.clamp(min=1), torch.zeros_like(s))
print(phone_pitch)
nz = phone_pitch[phone_pitch > 0]
mean, std = nz.mean(), nz.std()
print(round(mean.item(), 3), round(std.item(), 3), ((phone_pitch - mean) / std).masked_fill(phone_pitch == 0, 0.0))
print(torch.std_mean(nz, unbiased=False), torch.var(nz, correction=0).sqrt())

# bucketize/searchsorted: dtypes, out_int32, right/side, sorter, 0-dim, NaN.
b = torch.tensor([1.0, 2.0, 2.0, 3.0])
v = torch.tensor([[2.0, 0.5], [float("nan"), 3.0]])
print(torch.bucketize(v, b), torch.bucketize(v, b, right=True), torch.bucketize(v, b, out_int32=True).dtype)
print(torch.searchsorted(b, v, side="right"), torch.searchsorted(b, torch.tensor(2.0)))
print(torch.bucketize(torch.tensor(2.5), b), torch.bucketize(3, b), torch.bucketize(torch.tensor([1, 2, 5]), b))
unsorted = torch.tensor([3.0, 1.0, 2.0])
print(torch.searchsorted(unsorted, torch.tensor([1.5, 2.5]), sorter=torch.argsort(unsorted)))
print(torch.searchsorted(torch.tensor([[1, 3, 5], [2, 4, 6]]), torch.tensor([[3], [3]])))
print(torch.bucketize(torch.tensor([1.5], dtype=torch.float64), b), torch.bucketize(torch.tensor([1.5]).half(), b))
for call in (
    lambda: torch.bucketize(v, b.view(2, 2)),
    lambda: torch.searchsorted(b, v, side="middle"),
    lambda: torch.searchsorted(b, v, right=False, side="right"),
    lambda: torch.searchsorted(torch.ones(2, 3), torch.ones(3, 1)),
    lambda: torch.searchsorted(b, v, sorter=torch.tensor([0, 1])),
):
    try:
        call()
    except (RuntimeError, TypeError) as e:
        print(type(e).__name__, e)
