"""Hand-written GPyTorch-like kernel modules: Matern 1/2, 3/2, 5/2, periodic, spectral mixture, scale/additive/product
kernels with softplus-constrained raw parameters, ARD lengthscales, diag mode, and their gradients."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(3)
torch.set_printoptions(precision=4, sci_mode=False)


class Positive(nn.Module):
    def forward(self, raw):
        return F.softplus(raw) + 1e-4

    def inverse(self, value):
        return (value - 1e-4).expm1().log()


class Kernel(nn.Module):
    def __init__(self, ard_dims=1):
        super().__init__()
        self.raw_lengthscale = nn.Parameter(torch.zeros(1, ard_dims))
        self.constraint = Positive()

    @property
    def lengthscale(self):
        return self.constraint(self.raw_lengthscale)

    @lengthscale.setter
    def lengthscale(self, v):
        with torch.no_grad():
            self.raw_lengthscale.copy_(self.constraint.inverse(torch.as_tensor(v).expand_as(self.raw_lengthscale)))

    def dist(self, a, b, diag=False, square=False):
        a, b = a / self.lengthscale, b / self.lengthscale
        if diag:
            d = (a - b).pow(2).sum(-1)
        else:
            d = (a.pow(2).sum(-1, keepdim=True) - 2 * a @ b.mT + b.pow(2).sum(-1).unsqueeze(-2)).clamp_min(1e-30)
        return d if square else d.sqrt()


class Matern(Kernel):
    def __init__(self, nu=2.5, ard_dims=1):
        super().__init__(ard_dims)
        if nu not in {0.5, 1.5, 2.5}:
            raise RuntimeError("nu expected to be 0.5, 1.5, or 2.5")
        self.nu = nu

    def forward(self, a, b, diag=False):
        d = self.dist(a, b, diag)
        e = torch.exp(-math.sqrt(self.nu * 2) * d)
        if self.nu == 0.5:
            c = 1
        elif self.nu == 1.5:
            c = 1 + math.sqrt(3) * d
        else:
            c = 1 + math.sqrt(5) * d + 5.0 / 3.0 * d**2
        return c * e

    def extra_repr(self):
        return f"nu={self.nu}"


class Periodic(Kernel):
    def __init__(self):
        super().__init__()
        self.raw_period_length = nn.Parameter(torch.tensor([[0.5]]))

    def forward(self, a, b, diag=False):
        p = F.softplus(self.raw_period_length)
        diff = (a.unsqueeze(-2) - b.unsqueeze(-3)).abs().sum(-1) if not diag else (a - b).abs().sum(-1)
        return torch.exp(-2 * torch.sin(math.pi * diff / p).pow(2) / self.lengthscale.squeeze())


class Scale(nn.Module):
    def __init__(self, base):
        super().__init__()
        self.base_kernel = base
        self.raw_outputscale = nn.Parameter(torch.tensor(0.0))

    def forward(self, a, b, diag=False):
        return F.softplus(self.raw_outputscale) * self.base_kernel(a, b, diag=diag)


class Additive(nn.ModuleList):
    def forward(self, a, b, diag=False):
        return sum(k(a, b, diag=diag) for k in self)


class Product(nn.ModuleList):
    def forward(self, a, b, diag=False):
        out = self[0](a, b, diag=diag)
        for k in self[1:]:
            out = out * k(a, b, diag=diag)
        return out


x = torch.rand(5, 2)
m52 = Matern(2.5, ard_dims=2)
m52.lengthscale = torch.tensor([0.3, 2.0])
print("lengthscale", m52.lengthscale.detach(), m52.raw_lengthscale.data)
for nu in (0.5, 1.5, 2.5):
    k = Matern(nu)
    K = k(x[:, :1], x[:, :1])
    print(
        nu, K[0].round(decimals=4), "diag ok", torch.allclose(k(x[:, :1], x[:, :1], diag=True), K.diagonal(), atol=1e-4)
    )
try:
    Matern(2.0)
except RuntimeError as e:
    print(type(e).__name__, e)
kern = Additive([Scale(m52), Product([Scale(Matern(0.5, 2)), Periodic()])])
print(kern)
K = kern(x, x)
print("K", tuple(K.shape), "sym", torch.allclose(K, K.mT), "eig>0", bool(torch.linalg.eigvalsh(K).min() > -1e-5))
print("diag", kern(x, x, diag=True).round(decimals=4))
K.sum().backward()
for n, p in kern.named_parameters():
    print(n, tuple(p.shape), p.grad.flatten().round(decimals=4).tolist())
print("num params", sum(p.numel() for p in kern.parameters()))
kern.zero_grad()
print("grads cleared", all(p.grad is None for p in kern.parameters()))


class SpectralMixture(nn.Module):
    def __init__(self, q=3):
        super().__init__()
        self.raw_weights = nn.Parameter(torch.randn(q))
        self.raw_means = nn.Parameter(torch.rand(q, 1, 1))
        self.raw_scales = nn.Parameter(torch.randn(q, 1, 1))

    def forward(self, a, b):
        tau = a.unsqueeze(-2) - b.unsqueeze(-3)  # n x m x 1
        w = F.softmax(self.raw_weights, -1)[:, None, None]
        mu, v = F.softplus(self.raw_means), F.softplus(self.raw_scales)
        e = torch.exp(-2 * math.pi**2 * tau.unsqueeze(0).pow(2) * v.unsqueeze(-1)).prod(-1)
        c = torch.cos(2 * math.pi * (tau.unsqueeze(0) * mu.unsqueeze(-1)).sum(-1))
        return (w * e * c).sum(0)


sm = SpectralMixture()
t = torch.linspace(0, 2, 7).unsqueeze(-1)
Ksm = sm(t, t)
print("SM row", Ksm[0].round(decimals=4), "k(0)=1", round(Ksm[0, 0].item(), 4))
Ksm.diagonal().sum().backward()
print("SM trace grad weights", sm.raw_weights.grad.round(decimals=4))
signal = torch.sin(2 * math.pi * 1.5 * torch.linspace(0, 4, 64)) + 0.1 * torch.randn(64)
psd = torch.fft.rfft(signal).abs().pow(2)
freqs = torch.fft.rfftfreq(64, d=4 / 64)
print("peak freq", freqs[psd[1:].argmax() + 1].item(), freqs.dtype, freqs.shape)
