"""VITS's training-time plumbing: random slices of latent sequences per utterance (rand_slice_segments with gather
and index arithmetic), the matching audio windows, the KL between the posterior and the flow-mapped prior under a
mask, stochastic duration noise, and the weight-normed WaveNet-style posterior encoder with a bias under weight_norm."""

import math

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(13)
torch.set_printoptions(precision=4, sci_mode=False)
HOP = 4


def slice_segments(x, ids_str, segment_size=4):
    ret = torch.zeros_like(x[:, :, :segment_size])
    for i in range(x.size(0)):
        idx_str = ids_str[i]
        ret[i] = x[i, :, idx_str : idx_str + segment_size]
    return ret


def rand_slice_segments(x, x_lengths=None, segment_size=4):
    b, d, t = x.size()
    if x_lengths is None:
        x_lengths = t
    ids_str_max = x_lengths - segment_size + 1
    ids_str = (torch.rand([b]).to(device=x.device) * ids_str_max).to(dtype=torch.long)
    return slice_segments(x, ids_str, segment_size), ids_str


def slice_by_gather(x, ids_str, segment_size=4):
    idx = ids_str[:, None] + torch.arange(segment_size)[None, :]
    return torch.gather(x, 2, idx[:, None, :].expand(-1, x.size(1), -1))


def kl_loss(z_p, logs_q, m_p, logs_p, z_mask):
    kl = logs_p - logs_q - 0.5
    kl += 0.5 * ((z_p - m_p) ** 2) * torch.exp(-2.0 * logs_p)
    kl = torch.sum(kl * z_mask)
    return kl / torch.sum(z_mask)


class PosteriorEncoder(nn.Module):
    def __init__(self, cin=5, hidden=6, cout=3):
        super().__init__()
        self.pre = nn.Conv1d(cin, hidden, 1)
        self.dil = nn.utils.weight_norm(nn.Conv1d(hidden, 2 * hidden, 3, padding=2, dilation=2), name="weight")
        self.dil = nn.utils.weight_norm(self.dil, name="bias")
        self.proj = nn.Conv1d(hidden, 2 * cout, 1)

    def forward(self, x, x_mask):
        h = self.pre(x) * x_mask
        a, b = self.dil(h).chunk(2, 1)
        h = h + torch.tanh(a) * torch.sigmoid(b)
        m, logs = torch.split(self.proj(h) * x_mask, 3, dim=1)
        z = (m + torch.randn_like(m) * torch.exp(logs)) * x_mask
        return z, m, logs


lengths = torch.tensor([10, 7])
x = torch.randn(2, 5, 10)
x_mask = torch.unsqueeze(torch.arange(10)[None] < lengths[:, None], 1).to(x.dtype)
enc = PosteriorEncoder()
print(sorted(n for n, _ in enc.dil.named_parameters()), enc.dil.bias_g.shape, enc.dil.weight_g.shape)
z, m_q, logs_q = enc(x, x_mask)
print(z.shape, (z[1, :, 7:] == 0).all().item(), z.grad_fn.name())
z_slice, ids = rand_slice_segments(z, lengths, 4)
print(ids, z_slice.shape, torch.equal(z_slice, slice_by_gather(z, ids)))
wav = torch.randn(2, 1, 10 * HOP)
wav_slice = slice_segments(wav, ids * HOP, 4 * HOP)
print(wav_slice.shape, torch.equal(wav_slice[0, 0], wav[0, 0, ids[0] * HOP : ids[0] * HOP + 16]))
print((ids + 4 <= lengths).all().item(), ids.dtype)
m_p, logs_p = torch.randn(2, 3, 10) * 0.1, torch.randn(2, 3, 10) * 0.1
loss = kl_loss(z, logs_q, m_p, logs_p, x_mask)
(loss + z_slice.pow(2).mean()).backward()
print(round(loss.item(), 4), round(enc.dil.bias_g.grad.norm().item(), 4), enc.dil.bias_v.grad.shape)
print(enc.pre.weight.grad.abs().sum() > 0, round(enc.dil.weight_v.grad.norm().item(), 4))
nn.utils.remove_weight_norm(enc.dil, name="bias")
nn.utils.remove_weight_norm(enc.dil)
print(sorted(n for n, _ in enc.dil.named_parameters()), enc.dil.bias.shape)

# Stochastic duration noise, log-determinants of an elementwise affine and the prior NLL over a mask.
e_q = torch.randn(2, 2, 10) * x_mask
logdet_q = torch.sum(-e_q, [1, 2])
nll = torch.sum(0.5 * (math.log(2 * math.pi) + (e_q**2)) * x_mask, [1, 2]) - logdet_q
print(nll.round(decimals=4), torch.sum(x_mask, [1, 2]))
u = torch.sigmoid(torch.randn(2, 1, 10)) * x_mask
logdet_u = torch.sum((F.logsigmoid(u) + F.logsigmoid(-u)) * x_mask, [1, 2])
print(logdet_u.round(decimals=4), F.logsigmoid(torch.tensor([-100.0, 0.0, 100.0])))
print(torch.split(torch.arange(6), [2, 4]), torch.split(torch.arange(5), 2))
try:
    torch.split(torch.arange(6), [2, 3])
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    slice_segments(z, torch.tensor([8, 0]), 4)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    slice_by_gather(z, torch.tensor([8, 0]), 4)
except RuntimeError as e:
    print(type(e).__name__, e)
print(torch.norm_except_dim(torch.tensor([3.0, -4.0]), 2, 0), torch.norm_except_dim(torch.ones(2, 3), 2, 1))
