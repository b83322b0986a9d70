"""Autoformer and FEDformer pieces from their reference code: series decomposition by a moving average
(avg_pool1d over replicate-padded ends, permute round trips), multi-kernel decomposition with softmax weights,
AutoCorrelation via rfft/irfft of queries times conjugate keys, top-k delay selection with torch.topk, time-delay
aggregation with torch.roll and with gather over a doubled index, the seasonal layer norm, and a frequency-domain
block with complex weights (einsum over cfloat, irfft with n=)."""

import math

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


class moving_avg(nn.Module):
    def __init__(self, kernel_size, stride):
        super().__init__()
        self.kernel_size = kernel_size
        self.avg = nn.AvgPool1d(kernel_size=kernel_size, stride=stride, padding=0)

    def forward(self, x):
        front = x[:, 0:1, :].repeat(1, (self.kernel_size - 1) // 2, 1)
        end = x[:, -1:, :].repeat(1, (self.kernel_size - 1) // 2, 1)
        x = torch.cat([front, x, end], dim=1)
        x = self.avg(x.permute(0, 2, 1))
        return x.permute(0, 2, 1)


class series_decomp(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.moving_avg = moving_avg(kernel_size, stride=1)

    def forward(self, x):
        moving_mean = self.moving_avg(x)
        return x - moving_mean, moving_mean


class series_decomp_multi(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.moving_avg = [moving_avg(kernel, stride=1) for kernel in kernel_size]
        self.layer = nn.Linear(1, len(kernel_size))

    def forward(self, x):
        moving_mean = torch.cat([func(x).unsqueeze(-1) for func in self.moving_avg], dim=-1)
        weights = F.softmax(self.layer(x.unsqueeze(-1)), dim=-1)
        moving_mean = torch.sum(moving_mean * weights, dim=-1)
        return x - moving_mean, moving_mean


class my_Layernorm(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.layernorm = nn.LayerNorm(channels)

    def forward(self, x):
        x_hat = self.layernorm(x)
        bias = torch.mean(x_hat, dim=1).unsqueeze(1).repeat(1, x.shape[1], 1)
        return x_hat - bias


def time_delay_agg_training(values, corr, factor):
    head, channel, length = values.shape[1], values.shape[2], values.shape[3]
    top_k = int(factor * math.log(length))
    mean_value = torch.mean(torch.mean(corr, dim=1), dim=1)
    index = torch.topk(torch.mean(mean_value, dim=0), top_k, dim=-1)[1]
    weights = torch.stack([mean_value[:, index[i]] for i in range(top_k)], dim=-1)
    tmp_corr = torch.softmax(weights, dim=-1)
    delays_agg = torch.zeros_like(values).float()
    for i in range(top_k):
        pattern = torch.roll(values, -int(index[i]), -1)
        delays_agg = delays_agg + pattern * (tmp_corr[:, i].unsqueeze(1).unsqueeze(1).unsqueeze(1)
                                             .repeat(1, head, channel, length))
    return delays_agg, index


def time_delay_agg_inference(values, corr, factor):
    batch, head, channel, length = values.shape
    init_index = torch.arange(length).unsqueeze(0).unsqueeze(0).unsqueeze(0).repeat(batch, head, channel, 1)
    top_k = int(factor * math.log(length))
    mean_value = torch.mean(torch.mean(corr, dim=1), dim=1)
    weights, delay = torch.topk(mean_value, top_k, dim=-1)
    tmp_corr = torch.softmax(weights, dim=-1)
    tmp_values = values.repeat(1, 1, 1, 2)
    delays_agg = torch.zeros_like(values).float()
    for i in range(top_k):
        tmp_delay = init_index + delay[:, i].unsqueeze(1).unsqueeze(1).unsqueeze(1).repeat(1, head, channel, length)
        pattern = torch.gather(tmp_values, dim=-1, index=tmp_delay)
        delays_agg = delays_agg + pattern * (tmp_corr[:, i].unsqueeze(1).unsqueeze(1).unsqueeze(1)
                                             .repeat(1, head, channel, length))
    return delays_agg, delay


def auto_correlation(queries, keys, values, factor=1):
    B, L, H, E = queries.shape
    q_fft = torch.fft.rfft(queries.permute(0, 2, 3, 1).contiguous(), dim=-1)
    k_fft = torch.fft.rfft(keys.permute(0, 2, 3, 1).contiguous(), dim=-1)
    res = q_fft * torch.conj(k_fft)
    corr = torch.fft.irfft(res, n=L, dim=-1)
    return corr, values.permute(0, 2, 3, 1).contiguous()


L, D = 24, 4
t = torch.arange(L, dtype=torch.float32)
x = torch.stack([torch.sin(2 * math.pi * t / 6) + 0.1 * t, torch.cos(2 * math.pi * t / 8), 0.05 * t ** 1.5,
                 torch.sign(torch.sin(t / 2))], dim=-1).unsqueeze(0).repeat(2, 1, 1)
x[1] = x[1] * 2 - 1
decomp = series_decomp(5)
seasonal, trendc = decomp(x)
print("decomp", tuple(seasonal.shape), "reconstructs", torch.allclose(seasonal + trendc, x))
print("trend[0,:6,0]", trendc[0, :6, 0])
print("seasonal mean", seasonal.mean(dim=1))
ref = F.avg_pool1d(F.pad(x.transpose(1, 2), (2, 2), mode="replicate"), 5, stride=1).transpose(1, 2)
print("replicate pad equals repeat", torch.allclose(ref, trendc, atol=1e-6))
multi = series_decomp_multi([3, 7, 11])
with torch.no_grad():
    multi.layer.weight.copy_(torch.tensor([[0.5], [-0.2], [0.1]]))
    multi.layer.bias.zero_()
s2, t2 = multi(x)
print("multi", t2[1, 10:14, :2])
ln = my_Layernorm(D)
out = ln(seasonal)
print("seasonal ln mean over time", out.mean(dim=1).abs().max().item() < 1e-6, tuple(out.shape))

H, E = 2, 2
q = x.view(2, L, H, E)
k = torch.roll(q, shifts=3, dims=1)
corr, v = auto_correlation(q, k, q)
print("corr", tuple(corr.shape), corr.dtype)
direct = torch.stack([(q.permute(0, 2, 3, 1) * torch.roll(k.permute(0, 2, 3, 1), tau, -1)).sum(-1)
                      for tau in range(L)], -1)
print("corr equals circular sum", torch.allclose(corr, direct, atol=1e-4))
print("best delay per batch", corr.mean(dim=(1, 2)).argmax(dim=-1))
agg_train, idx = time_delay_agg_training(v, corr, 1)
agg_inf, delay = time_delay_agg_inference(v, corr, 1)
print("top_k", idx.tolist(), delay.tolist())
print("agg", tuple(agg_train.shape), agg_train[0, 0, 0, :5])
print("train==inference for shared delays", torch.allclose(agg_train[0], agg_inf[0], atol=1e-5))

# FEDformer-style frequency block with complex weights
modes = 5
index = list(range(modes))
w = torch.complex(torch.linspace(-0.5, 0.5, H * E * E * modes).view(H, E, E, modes),
                  torch.linspace(0.3, -0.3, H * E * E * modes).view(H, E, E, modes))
print("weights", w.dtype, w.is_complex(), tuple(w.shape))
xq = q.permute(0, 2, 3, 1)
x_ft = torch.fft.rfft(xq, dim=-1)
out_ft = torch.zeros(2, H, E, L // 2 + 1, device=xq.device, dtype=torch.cfloat)
for wi, i in enumerate(index):
    out_ft[:, :, :, wi] = torch.einsum("bhi,hio->bho", x_ft[:, :, :, i], w[:, :, :, wi])
y = torch.fft.irfft(out_ft, n=xq.size(-1))
print("fourier block", tuple(y.shape), y.dtype, y[0, 0, 0, :5])
print("x_ft dc", x_ft[0, :, :, 0])
print("energy", torch.linalg.vector_norm(y).item() > 0, round(out_ft.abs().pow(2).sum().item(), 2))
