"""A complex-valued CNN as MRI-reconstruction and radar code writes it: k-space from fft2 with fftshift/ifftshift,
complex Conv2d/Conv1d/ConvTranspose2d layers (dtype=torch.cfloat), modReLU and CReLU activations, a data-consistency
step, magnitude losses, and the gradients reaching complex weights (PyTorch's conjugate-Wirtinger convention)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def c(t, k=6):
    t = t.detach().resolve_conj()
    if t.is_complex():
        t = torch.view_as_real(t)
    return t.double().flatten()[:k].round(decimals=4).tolist()


class ModReLU(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.b = nn.Parameter(torch.full((1, channels, 1, 1), -0.1))

    def forward(self, z):
        mag = z.abs()
        return F.relu(mag + self.b) * z / (mag + 1e-6)


def crelu(z):
    return torch.complex(F.relu(z.real), F.relu(z.imag))


class ComplexNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1, dtype=torch.cfloat)
        self.act = ModReLU(4)
        self.down = nn.Conv2d(4, 4, 2, stride=2, dtype=torch.cfloat, bias=False)
        self.up = nn.ConvTranspose2d(4, 4, 2, stride=2, dtype=torch.cfloat)
        self.out = nn.Conv2d(4, 1, 1, dtype=torch.cfloat)

    def forward(self, z):
        h = self.act(self.conv1(z))
        h = crelu(self.up(self.down(h))) + h
        return self.out(h) + z


H = W = 8
yy, xx = torch.meshgrid(torch.arange(H, dtype=torch.float32), torch.arange(W, dtype=torch.float32), indexing="ij")
img = ((xx - 3.5) ** 2 + (yy - 3.5) ** 2 < 9).float() + 0.2 * torch.sin(xx)
kspace = torch.fft.fftshift(torch.fft.fft2(torch.fft.ifftshift(img), norm="ortho"))
print("kspace", kspace.dtype, c(kspace), round(kspace.abs().max().item(), 4))
mask = torch.zeros(H, W)
mask[:, ::2] = 1
mask[:, 3:5] = 1
under = kspace * mask
zf = torch.fft.fftshift(torch.fft.ifft2(torch.fft.ifftshift(under), norm="ortho"))
print("zero-filled", round((zf.abs() - img).abs().mean().item(), 4), zf.dtype)

net = ComplexNet()
print(net.conv1, net.up)
print("param dtypes", sorted({str(p.dtype) for p in net.parameters()}))
with torch.no_grad():
    for p in net.parameters():
        if p.is_complex():
            p.copy_(
                torch.complex(torch.linspace(-0.3, 0.3, p.numel()), torch.linspace(0.2, -0.2, p.numel())).view_as(p)
            )
x = zf[None, None]
out = net(x)
print("out", tuple(out.shape), out.dtype, c(out), out.grad_fn.name())


def data_consistency(pred, k0, m):
    kp = torch.fft.fft2(pred, norm="ortho")
    k0u = torch.fft.ifftshift(k0)
    mu = torch.fft.ifftshift(m)
    return torch.fft.ifft2(mu * k0u + (1 - mu) * kp, norm="ortho")


opt = torch.optim.SGD(net.parameters(), lr=0.5, momentum=0.9)
target = torch.fft.ifftshift(img)[None, None]
for step in range(4):
    opt.zero_grad()
    pred = net(torch.fft.ifftshift(zf)[None, None])
    rec = data_consistency(pred, under, mask)
    loss = F.l1_loss(rec.abs(), target)
    loss.backward()
    print(
        "step",
        step,
        round(loss.item(), 4),
        c(net.conv1.weight.grad, 4),
        c(net.up.weight.grad, 2),
        c(net.act.b.grad.flatten(), 2),
    )
    opt.step()

sig = torch.exp(1j * torch.linspace(0, 4 * math.pi, 32)).to(torch.cfloat).view(1, 1, 32)
conv1d = nn.Conv1d(1, 2, 5, padding=2, dtype=torch.cfloat, bias=False)
with torch.no_grad():
    conv1d.weight.copy_(torch.complex(torch.arange(10.0), -torch.arange(10.0)).view(2, 1, 5) / 10)
sig.requires_grad_(True)
y = conv1d(sig)
y.abs().pow(2).sum().backward()
print("conv1d", c(y), c(sig.grad), c(conv1d.weight.grad))
w = torch.randn(2, 1, 3, dtype=torch.cdouble, requires_grad=True)
xi = torch.randn(1, 1, 7, dtype=torch.cdouble, requires_grad=True)
print("gradcheck conv1d", torch.autograd.gradcheck(lambda a, b: F.conv1d(a, b, stride=2), (xi, w)))
print("gradcheck convT", torch.autograd.gradcheck(lambda a, b: F.conv_transpose1d(a, b.transpose(0, 1)), (xi, w)))
print("gradcheck cumprod", torch.autograd.gradcheck(lambda a: torch.cumprod(a, -1), (xi,)))
phases = torch.exp(1j * torch.tensor([0.3, -0.2, 0.5, 0.1], dtype=torch.float64)).requires_grad_(True)
chain = torch.cumprod(phases, 0)
(chain.real.sum()).backward()
print("cumprod phases", c(chain), c(phases.grad, 8))
try:
    net.conv1(torch.ones(1, 1, 4, 4))
except Exception as e:
    print(type(e).__name__, e)
