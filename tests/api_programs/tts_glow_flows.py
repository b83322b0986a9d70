"""Glow-TTS's decoder flow in miniature: data-dependent ActNorm initialisation, an invertible 1x1 conv over channel
groups with its log-determinant by slogdet (and the LU-parameterised variant), an affine coupling layer with a
zero-initialised end, squeeze/unsqueeze of mel frames, and exact inversion checks in float64."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(12)
torch.set_printoptions(precision=4, sci_mode=False)


class ActNorm(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.logs = nn.Parameter(torch.zeros(1, channels, 1))
        self.bias = nn.Parameter(torch.zeros(1, channels, 1))
        self.initialized = False

    def forward(self, x, x_mask, reverse=False):
        if not self.initialized:
            with torch.no_grad():
                denom = torch.sum(x_mask, [0, 2])
                m = torch.sum(x * x_mask, [0, 2]) / denom
                v = torch.sum(x * x * x_mask, [0, 2]) / denom - m**2
                logs = 0.5 * torch.log(torch.clamp_min(v, 1e-6))
                self.bias.data.copy_((-m * torch.exp(-logs)).view(*self.bias.shape))
                self.logs.data.copy_((-logs).view(*self.logs.shape))
            self.initialized = True
        if reverse:
            return (x - self.bias) * torch.exp(-self.logs) * x_mask, None
        z = (self.bias + torch.exp(self.logs) * x) * x_mask
        return z, torch.sum(self.logs) * torch.sum(x_mask, [1, 2])


class InvConvNear(nn.Module):
    def __init__(self, channels, n_split=4):
        super().__init__()
        self.channels, self.n_split = channels, n_split
        w_init = torch.linalg.qr(torch.randn(n_split, n_split, dtype=torch.float64))[0]
        if torch.det(w_init) < 0:
            w_init[:, 0] = -1 * w_init[:, 0]
        self.weight = nn.Parameter(w_init)

    def forward(self, x, x_mask, reverse=False):
        b, c, t = x.size()
        x_len = torch.sum(x_mask, [1, 2])
        x = x.view(b, 2, c // self.n_split, self.n_split // 2, t)
        x = x.permute(0, 1, 3, 2, 4).contiguous().view(b, self.n_split, c // self.n_split, t)
        if reverse:
            weight, logdet = torch.inverse(self.weight), None
        else:
            weight = self.weight
            logdet = torch.logdet(self.weight) * (c / self.n_split) * x_len
        weight = weight.view(self.n_split, self.n_split, 1, 1)
        z = F.conv2d(x, weight)
        z = z.view(b, 2, self.n_split // 2, c // self.n_split, t).permute(0, 1, 3, 2, 4).contiguous().view(b, c, t)
        return z * x_mask, logdet


class Coupling(nn.Module):
    def __init__(self, channels, hidden=8):
        super().__init__()
        self.start = nn.utils.parametrizations.weight_norm(nn.Conv1d(channels // 2, hidden, 1))
        self.end = nn.Conv1d(hidden, channels, 1)
        self.end.weight.data.zero_()
        self.end.bias.data.zero_()

    def forward(self, x, x_mask, reverse=False):
        x0, x1 = x.chunk(2, dim=1)
        out = self.end(torch.relu(self.start(x0) * x_mask))
        m, logs = out.chunk(2, dim=1)
        if reverse:
            return torch.cat([x0, (x1 - m) * torch.exp(-logs) * x_mask], 1), None
        z1 = (m + torch.exp(logs) * x1) * x_mask
        return torch.cat([x0, z1], 1), torch.sum(logs * x_mask, [1, 2])


def squeeze(x, x_mask, n_sqz=2):
    b, c, t = x.size()
    t = (t // n_sqz) * n_sqz
    x = x[:, :, :t]
    x_sqz = x.view(b, c, t // n_sqz, n_sqz).permute(0, 3, 1, 2).contiguous().view(b, c * n_sqz, t // n_sqz)
    return x_sqz * x_mask[:, :, n_sqz - 1 :: n_sqz], x_mask[:, :, n_sqz - 1 :: n_sqz]


def unsqueeze(x, x_mask, n_sqz=2):
    b, c, t = x.size()
    x_unsqz = x.view(b, n_sqz, c // n_sqz, t).permute(0, 2, 3, 1).contiguous().view(b, c // n_sqz, t * n_sqz)
    return x_unsqz * x_mask.unsqueeze(-1).repeat(1, 1, 1, n_sqz).view(b, 1, t * n_sqz), None


lengths = torch.tensor([8, 6])
x = torch.randn(2, 4, 9, dtype=torch.float64)
mask = (torch.arange(9)[None, :] < lengths[:, None]).unsqueeze(1).to(x.dtype)
xs, ms = squeeze(x, mask)
print(xs.shape, ms.shape, ms.squeeze(1))
flows = nn.ModuleList([ActNorm(8), InvConvNear(8), Coupling(8)]).double()
z, total = xs, 0
for f in flows:
    z, ld = f(z, ms)
    total = total + ld
print(z.shape, total, flows[0].initialized)
print("actnorm stats", (flows[0](xs, ms)[0].sum([0, 2]) / ms.sum()).abs().max().item() < 1e-12)
back = z
for f in reversed(flows):
    back, _ = f(back, ms, reverse=True)
print("inverse", torch.allclose(back, xs, atol=1e-10), torch.allclose(unsqueeze(back, ms)[0], (x * mask)[:, :, :8]))
sign, logabs = torch.linalg.slogdet(flows[1].weight)
print(sign.item(), round(logabs.item(), 10), round(torch.det(flows[1].weight).item(), 6))
nll = 0.5 * torch.sum(z**2) - total.sum()
nll.backward()
print(round(nll.item(), 4), flows[1].weight.grad.shape, flows[2].end.weight.grad.abs().sum() > 0)
print(flows[2].start.parametrizations.weight.original0.grad.shape, flows[0].logs.grad.flatten()[:4])

# LU-parameterised weight as in Glow: P L (U + diag(s)).
w = torch.linalg.qr(torch.randn(3, 3, dtype=torch.float64))[0]
P, L, U = torch.linalg.lu(w)
s = torch.diagonal(U)
U = torch.triu(U, 1)
mask_l = torch.tril(torch.ones(3, 3, dtype=torch.float64), -1)
w2 = P @ (L * mask_l + torch.eye(3, dtype=torch.float64)) @ (U + torch.diag(s))
print(
    torch.allclose(w, w2), round(torch.sum(torch.log(torch.abs(s))).item(), 8), round(torch.logdet(w @ w.T).item(), 8)
)
LU, piv = torch.linalg.lu_factor(w)
print(piv.dtype, torch.allclose(torch.linalg.lu_solve(LU, piv, torch.eye(3, dtype=torch.float64)), torch.inverse(w)))
print(torch.logdet(torch.tensor([[1.0, 0.0], [0.0, -1.0]])), torch.logdet(torch.zeros(2, 2)))
try:
    torch.inverse(torch.zeros(2, 2))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    flows[1](torch.randn(2, 6, 4, dtype=torch.float64), torch.ones(2, 1, 4, dtype=torch.float64))
except RuntimeError as e:
    print(type(e).__name__, e)
