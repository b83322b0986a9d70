"""StyleGAN-style modulated/demodulated convolution via grouped conv with equalized learning rate, a mapping
network, noise injection, PixelCNN masked convolutions (mask buffer, weight.data *= mask) and WGAN-GP."""

import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd

rng = np.random.default_rng(7)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


class EqualLinear(nn.Module):
    def __init__(self, in_dim, out_dim, bias_init=0.0, lr_mul=1.0, activation=False):
        super().__init__()
        self.weight = nn.Parameter(T(out_dim, in_dim).div_(lr_mul))
        self.bias = nn.Parameter(torch.zeros(out_dim).fill_(bias_init))
        self.scale = (1 / math.sqrt(in_dim)) * lr_mul
        self.lr_mul, self.activation = lr_mul, activation

    def forward(self, x):
        out = F.linear(x, self.weight * self.scale, bias=self.bias * self.lr_mul)
        return F.leaky_relu(out, 0.2) * math.sqrt(2) if self.activation else out

    def extra_repr(self):
        return f"{self.weight.shape[1]}, {self.weight.shape[0]}, lr_mul={self.lr_mul}"


class ModulatedConv2d(nn.Module):
    def __init__(self, cin, cout, k, style_dim, demodulate=True):
        super().__init__()
        self.eps, self.k, self.cin, self.cout = 1e-8, k, cin, cout
        self.scale = 1 / math.sqrt(cin * k ** 2)
        self.padding = k // 2
        self.weight = nn.Parameter(T(1, cout, cin, k, k))
        self.modulation = EqualLinear(style_dim, cin, bias_init=1.0)
        self.demodulate = demodulate

    def forward(self, x, style):
        b, c, h, w = x.shape
        style = self.modulation(style).view(b, 1, c, 1, 1)
        weight = self.scale * self.weight * style
        if self.demodulate:
            demod = torch.rsqrt(weight.pow(2).sum([2, 3, 4]) + 1e-8)
            weight = weight * demod.view(b, self.cout, 1, 1, 1)
        weight = weight.view(b * self.cout, c, self.k, self.k)
        out = F.conv2d(x.reshape(1, b * c, h, w), weight, padding=self.padding, groups=b)
        return out.view(b, self.cout, *out.shape[2:])


class NoiseInjection(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(1))

    def forward(self, image, noise=None):
        if noise is None:
            b, _, h, w = image.shape
            noise = image.new_empty(b, 1, h, w).normal_()
        return image + self.weight * noise


mapping = nn.Sequential(*[EqualLinear(8, 8, lr_mul=0.01, activation=True) for _ in range(3)])
print(mapping[0])
conv = ModulatedConv2d(3, 4, 3, 8)
noise = NoiseInjection()
with torch.no_grad():
    noise.weight.fill_(0.1)
z = T(2, 8)
w_lat = mapping(z / torch.sqrt(torch.mean(z ** 2, dim=1, keepdim=True) + 1e-8))
x = T(2, 3, 6, 6)
y = noise(conv(x, w_lat), T(2, 1, 6, 6))
print("mapped", r(w_lat), "modconv", tuple(y.shape), r(y))
print("random noise shape", noise(y).shape, NoiseInjection()(y).equal(y))
# demodulation normalises each output filter to unit norm per sample
style = conv.modulation(w_lat).view(2, 1, 3, 1, 1)
wt = conv.scale * conv.weight * style
wt = wt * torch.rsqrt(wt.pow(2).sum([2, 3, 4], keepdim=True) + 1e-8)
print("filter norms", r(wt.flatten(2).norm(dim=2)))
ref = torch.stack([F.conv2d(x[i:i + 1], wt[i], padding=1)[0] for i in range(2)])
print("grouped == loop", torch.allclose(ref, conv(x, w_lat), atol=1e-5))
y.square().mean().backward()
print("grads", r(conv.weight.grad), r(mapping[0].weight.grad), round(noise.weight.grad.item(), 4))
truncated = w_lat.mean(0, keepdim=True).lerp(w_lat, 0.7)
print("truncation", r(truncated))


class MaskedConv2d(nn.Conv2d):
    def __init__(self, mask_type, *args, **kwargs):
        super().__init__(*args, **kwargs)
        assert mask_type in {"A", "B"}
        self.register_buffer("mask", self.weight.data.clone())
        _, _, kH, kW = self.weight.size()
        self.mask.fill_(1)
        self.mask[:, :, kH // 2, kW // 2 + (mask_type == "B"):] = 0
        self.mask[:, :, kH // 2 + 1:] = 0

    def forward(self, x):
        self.weight.data *= self.mask
        return super().forward(x)


pix = nn.Sequential(MaskedConv2d("A", 1, 8, 5, 1, 2, bias=False), nn.BatchNorm2d(8), nn.ReLU(True),
                    MaskedConv2d("B", 8, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU(True),
                    nn.Conv2d(8, 4, 1))
with torch.no_grad():
    for p in pix.parameters():
        if p.dim() > 1:
            p.copy_(T(*p.shape) * 0.3)
    pix[6].bias.zero_()
print("mask A", pix[0].mask[0, 0].long().tolist())
print("mask B center row", pix[3].mask[0, 0, 1].tolist(), "buffers", [n for n, _ in pix.named_buffers()][:3])
img = torch.from_numpy(rng.integers(0, 4, (2, 1, 5, 5))).float() / 3
logits = pix(img)
loss = F.cross_entropy(logits, (img[:, 0] * 3).long())
loss.backward()
print("pixelcnn", round(loss.item(), 4), tuple(logits.shape), r(pix[0].weight.grad[0, 0, 2]))
# causality: output at pixel (2, 2) does not depend on inputs at or after it in raster order
pix.eval()
probe = img.clone().requires_grad_(True)
pix(probe)[0, :, 2, 2].sum().backward()
dep = probe.grad[0, 0] != 0
print("receptive field", dep.long().tolist())
print("masked weight zeros kept", bool((pix[0].weight[:, :, 2, 2:] == 0).all()), pix[0].weight.requires_grad)


def gradient_penalty(critic, real, fake):
    alpha = torch.from_numpy(rng.random((real.size(0), 1, 1, 1)).astype(np.float32)).expand_as(real)
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    d = critic(interp)
    grads = autograd.grad(outputs=d, inputs=interp, grad_outputs=torch.ones(d.size()), create_graph=True,
                          retain_graph=True, only_inputs=True)[0]
    grads = grads.view(grads.size(0), -1)
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()


critic = nn.Sequential(nn.Conv2d(1, 4, 3, 2, 1), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(4 * 3 * 3, 1))
with torch.no_grad():
    for p in critic.parameters():
        p.copy_(T(*p.shape) * 0.4)
opt_d = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.0, 0.9))
real, fake = T(3, 1, 5, 5), T(3, 1, 5, 5)
for it in range(3):
    gp = gradient_penalty(critic, real, fake)
    d_loss = critic(fake).mean() - critic(real).mean() + 10 * gp
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    print("critic", it, round(d_loss.item(), 4), round(gp.item(), 4))
for p in critic.parameters():
    p.data.clamp_(-0.01, 0.01)
print("clipped", r(critic[0].weight), critic[3].weight.abs().max().item() <= 0.01)
try:
    autograd.grad(critic(real).sum(), real)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    MaskedConv2d("C", 1, 1, 3)
except AssertionError:
    print("AssertionError")
