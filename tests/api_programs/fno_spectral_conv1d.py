"""A 1-D Fourier neural operator as the reference code writes it: SpectralConv1d with cfloat weights, rfft/irfft(n=),
mode truncation, einsum on complex tensors, a grid channel, LpLoss and a few Adam steps with StepLR."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SpectralConv1d(nn.Module):
    def __init__(self, in_channels, out_channels, modes):
        super().__init__()
        self.in_channels, self.out_channels, self.modes = in_channels, out_channels, modes
        self.scale = 1 / (in_channels * out_channels)
        self.weights = nn.Parameter(self.scale * torch.rand(in_channels, out_channels, modes, dtype=torch.cfloat))

    def compl_mul1d(self, a, b):
        return torch.einsum("bix,iox->box", a, b)

    def forward(self, x):
        b, n = x.shape[0], x.size(-1)
        x_ft = torch.fft.rfft(x)
        out_ft = torch.zeros(b, self.out_channels, n // 2 + 1, device=x.device, dtype=torch.cfloat)
        out_ft[:, :, :self.modes] = self.compl_mul1d(x_ft[:, :, :self.modes], self.weights)
        return torch.fft.irfft(out_ft, n=n)


class FNO1d(nn.Module):
    def __init__(self, modes, width):
        super().__init__()
        self.fc0 = nn.Linear(2, width)
        self.convs = nn.ModuleList([SpectralConv1d(width, width, modes) for _ in range(2)])
        self.ws = nn.ModuleList([nn.Conv1d(width, width, 1) for _ in range(2)])
        self.fc1 = nn.Linear(width, 16)
        self.fc2 = nn.Linear(16, 1)

    def forward(self, x):
        grid = torch.linspace(0, 1, x.shape[1]).reshape(1, -1, 1).repeat(x.shape[0], 1, 1)
        x = torch.cat((x, grid), dim=-1)
        x = self.fc0(x).permute(0, 2, 1)
        for i, (conv, w) in enumerate(zip(self.convs, self.ws)):
            x = conv(x) + w(x)
            if i < len(self.convs) - 1:
                x = F.gelu(x)
        x = x.permute(0, 2, 1)
        return self.fc2(F.gelu(self.fc1(x)))


class LpLoss:
    def __init__(self, p=2):
        self.p = p

    def __call__(self, x, y):
        n = x.size(0)
        diff = torch.norm(x.reshape(n, -1) - y.reshape(n, -1), self.p, 1)
        ynorm = torch.norm(y.reshape(n, -1), self.p, 1)
        return torch.sum(diff / ynorm)


model = FNO1d(modes=6, width=8)
print(model.convs[0])
print("weights", model.convs[0].weights.dtype, tuple(model.convs[0].weights.shape), model.convs[0].weights.is_complex())
print("view_as_real", tuple(torch.view_as_real(model.convs[0].weights).shape))
n_params = sum(p.numel() for p in model.parameters())
n_real = sum(p.numel() * (2 if p.is_complex() else 1) for p in model.parameters())
print("params", n_params, n_real)

xs = torch.linspace(0, 2 * math.pi, 33)[:-1]
a = torch.stack([torch.sin(k * xs) + 0.3 * torch.cos((k + 1) * xs) for k in range(1, 5)]).unsqueeze(-1)
u = torch.stack([torch.cos(k * xs) * k / 4 for k in range(1, 5)]).unsqueeze(-1)
print("data", tuple(a.shape), round(a.sum().item(), 4), round(u.abs().sum().item(), 4))

opt = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=1e-4)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
lp = LpLoss()
for step in range(6):
    opt.zero_grad()
    pred = model(a)
    loss = lp(pred, u)
    loss.backward()
    g = model.convs[0].weights.grad
    opt.step()
    sched.step()
    print("step", step, round(loss.item(), 4), g.dtype, round(g.abs().sum().item(), 4), sched.get_last_lr())

with torch.no_grad():
    pred = model(a)
    print("pred", tuple(pred.shape), pred.dtype, pred[0, :4, 0].round(decimals=4).tolist())
    hi = F.interpolate(a.permute(0, 2, 1), size=64, mode="linear", align_corners=False).permute(0, 2, 1)
    print("superres", tuple(model(hi).shape))

state = model.state_dict()
print("state", [(k, v.dtype) for k, v in state.items() if v.is_complex()])
print("grad_fn", model(a).grad_fn.name())
x_ft = torch.fft.rfft(a.squeeze(-1))
print("rfft", tuple(x_ft.shape), x_ft.dtype, x_ft.abs()[0, :4].round(decimals=4).tolist())
print("irfft odd", tuple(torch.fft.irfft(x_ft, n=31).shape), tuple(torch.fft.irfft(x_ft).shape))
try:
    torch.einsum("bix,iox->box", x_ft.unsqueeze(1), torch.rand(2, 1, 17))
except Exception as e:
    print(type(e).__name__, e)
