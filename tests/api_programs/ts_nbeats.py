"""N-BEATS as its reference code writes it: generic, trend (polynomial basis) and seasonality (Fourier basis)
blocks with backcast/forecast heads, doubly residual stacking, sMAPE/MASE/MAPE losses with divide-by-zero guards,
a few Adam steps with gradient clipping, and the interpretable decomposition of the forecast."""

import math

import numpy as np
import torch
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def init_det(module, scale=0.2):
    """Deterministic weights from a sine ramp, so the output does not depend on the RNG stream."""
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            n = p.numel()
            p.copy_((torch.sin(torch.arange(n, dtype=torch.float32) * 0.37 + i) * scale).view_as(p))
    return module


def divide_no_nan(a, b):
    result = a / b
    result[result != result] = 0.0
    result[result == float("inf")] = 0.0
    return result


def smape_loss(forecast, target, mask):
    return 200 * torch.mean(divide_no_nan(torch.abs(forecast - target),
                                          torch.abs(forecast.data) + torch.abs(target.data)) * mask)


def mape_loss(forecast, target, mask):
    weights = divide_no_nan(mask, target)
    return torch.mean(torch.abs((forecast - target) * weights))


def mase_loss(insample, freq, forecast, target, mask):
    masep = torch.mean(torch.abs(insample[:, freq:] - insample[:, :-freq]), dim=1)
    masked_masep_inv = divide_no_nan(mask, masep[:, None])
    return torch.mean(torch.abs(target - forecast) * masked_masep_inv)


class Block(nn.Module):
    def __init__(self, input_size, theta_size, basis, layers=2, layer_size=16):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(input_size, layer_size)] +
                                    [nn.Linear(layer_size, layer_size) for _ in range(layers - 1)])
        self.basis_parameters = nn.Linear(layer_size, theta_size)
        self.basis_function = basis

    def forward(self, x):
        block_input = x
        for layer in self.layers:
            block_input = torch.relu(layer(block_input))
        return self.basis_function(self.basis_parameters(block_input))


class GenericBasis(nn.Module):
    def __init__(self, backcast_size, forecast_size):
        super().__init__()
        self.backcast_size, self.forecast_size = backcast_size, forecast_size

    def forward(self, theta):
        return theta[:, :self.backcast_size], theta[:, -self.forecast_size:]


class TrendBasis(nn.Module):
    def __init__(self, degree, backcast_size, forecast_size):
        super().__init__()
        self.polynomial_size = degree + 1
        bt = np.concatenate([np.power(np.arange(backcast_size, dtype=float) / backcast_size, i)[None, :]
                             for i in range(self.polynomial_size)])
        ft = np.concatenate([np.power(np.arange(forecast_size, dtype=float) / forecast_size, i)[None, :]
                             for i in range(self.polynomial_size)])
        self.backcast_time = nn.Parameter(torch.tensor(bt, dtype=torch.float32), requires_grad=False)
        self.forecast_time = nn.Parameter(torch.tensor(ft, dtype=torch.float32), requires_grad=False)

    def forward(self, theta):
        backcast = torch.einsum("bp,pt->bt", theta[:, self.polynomial_size:], self.backcast_time)
        forecast = torch.einsum("bp,pt->bt", theta[:, :self.polynomial_size], self.forecast_time)
        return backcast, forecast


class SeasonalityBasis(nn.Module):
    def __init__(self, harmonics, backcast_size, forecast_size):
        super().__init__()
        freq = torch.cat([torch.zeros(1), torch.arange(harmonics, harmonics / 2 * forecast_size) / harmonics])[None]
        bgrid = 2 * math.pi * (torch.arange(backcast_size, dtype=torch.float32)[:, None] / forecast_size) * freq
        fgrid = 2 * math.pi * (torch.arange(forecast_size, dtype=torch.float32)[:, None] / forecast_size) * freq
        self.register_buffer("backcast_cos", torch.cos(bgrid).T)
        self.register_buffer("backcast_sin", torch.sin(bgrid).T)
        self.register_buffer("forecast_cos", torch.cos(fgrid).T)
        self.register_buffer("forecast_sin", torch.sin(fgrid).T)
        self.n = freq.shape[1]

    def forward(self, theta):
        n = self.n
        backcast = theta[:, 2 * n:3 * n] @ self.backcast_cos + theta[:, 3 * n:] @ self.backcast_sin
        forecast = theta[:, :n] @ self.forecast_cos + theta[:, n:2 * n] @ self.forecast_sin
        return backcast, forecast


class NBeats(nn.Module):
    def __init__(self, blocks):
        super().__init__()
        self.blocks = blocks

    def forward(self, x, input_mask):
        residuals = x.flip(dims=(1,))
        input_mask = input_mask.flip(dims=(1,))
        forecast = x[:, -1:]
        parts = []
        for block in self.blocks:
            backcast, block_forecast = block(residuals)
            residuals = (residuals - backcast) * input_mask
            forecast = forecast + block_forecast
            parts.append(block_forecast)
        return forecast, parts


L, H = 12, 4
trend = TrendBasis(2, L, H)
season = SeasonalityBasis(1, L, H)
print("trend basis", tuple(trend.backcast_time.shape), tuple(trend.forecast_time.shape),
      trend.backcast_time.requires_grad)
print("season freqs", season.n, tuple(season.backcast_cos.shape))
print(season.forecast_cos)
blocks = nn.ModuleList([Block(L, 2 * 3, trend), Block(L, 4 * season.n, season), Block(L, L + H, GenericBasis(L, H))])
model = init_det(NBeats(blocks), 0.15)
print("params", sum(p.numel() for p in model.parameters()),
      sum(p.numel() for p in model.parameters() if p.requires_grad))
print("buffers", [n for n, _ in model.named_buffers()])

t = torch.arange(0, 64, dtype=torch.float32)
series = 10 + 0.05 * t + torch.sin(2 * math.pi * t / 4) + 0.3 * torch.cos(t * 0.7)
windows = series.unfold(0, L + H, 3)
x, y = windows[:, :L], windows[:, L:]
mask = torch.ones_like(x)
mask[0, :2] = 0.0
print("windows", tuple(windows.shape), windows.stride(), windows.is_contiguous())

forecast, parts = model(x, mask)
print("forecast", tuple(forecast.shape))
print(forecast[:3])
print("parts", [round(p.abs().mean().item(), 4) for p in parts])
print("sum of parts", torch.allclose(x[:, -1:] + sum(parts), forecast))
ymask = torch.ones_like(y)
print("smape", round(smape_loss(forecast, y, ymask).item(), 4))
print("mape", round(mape_loss(forecast, y, ymask).item(), 4))
print("mase", round(mase_loss(x, 4, forecast, y, ymask).item(), 4))
z = torch.tensor([0.0, 1.0, 2.0])
print("divide_no_nan", divide_no_nan(z, torch.tensor([0.0, 0.0, 4.0])))

opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(6):
    opt.zero_grad()
    f, _ = model(x, mask)
    loss = smape_loss(f, y, ymask)
    loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if step % 2 == 0:
        print(f"step {step} loss {loss.item():.4f} grad_norm {norm.item():.4f}")
print("trend basis grad", trend.backcast_time.grad)
with torch.no_grad():
    f, parts = model(x, mask)
print("final", f[-1], "requires_grad", f.requires_grad)
print("state keys", list(model.state_dict().keys())[:4], len(model.state_dict()))
