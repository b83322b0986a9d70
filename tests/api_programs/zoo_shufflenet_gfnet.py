"""ShuffleNetV2, GFNet and ESPCN as their reference implementations write them: channel shuffle by view/transpose
next to nn.ChannelShuffle, chunked two-branch units, global filter layers through rfft2 / irfft2 with a complex
weight held as a real parameter (view_as_complex), PixelShuffle/PixelUnshuffle super-resolution with PReLU, and a
few training steps of each."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(9)


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


def fill(model, scale=0.3):
    with torch.no_grad():
        for name, p in model.named_parameters():
            base = 1.0 if (p.ndim == 1 and ("bn" in name or "norm" in name) and name.endswith("weight")) else 0.0
            p.copy_(torch.from_numpy((base + scale * rng.standard_normal(p.shape)).astype(np.float32)))


def channel_shuffle(x, groups):
    batchsize, num_channels, height, width = x.size()
    channels_per_group = num_channels // groups
    x = x.view(batchsize, groups, channels_per_group, height, width)
    x = torch.transpose(x, 1, 2).contiguous()
    return x.view(batchsize, num_channels, height, width)


class InvertedResidual(nn.Module):
    def __init__(self, inp, oup, stride):
        super().__init__()
        self.stride = stride
        branch_features = oup // 2
        if self.stride > 1:
            self.branch1 = nn.Sequential(
                nn.Conv2d(inp, inp, 3, stride, 1, groups=inp, bias=False), nn.BatchNorm2d(inp),
                nn.Conv2d(inp, branch_features, 1, bias=False), nn.BatchNorm2d(branch_features), nn.ReLU(inplace=True))
        else:
            self.branch1 = nn.Sequential()
        self.branch2 = nn.Sequential(
            nn.Conv2d(inp if stride > 1 else branch_features, branch_features, 1, bias=False),
            nn.BatchNorm2d(branch_features), nn.ReLU(inplace=True),
            nn.Conv2d(branch_features, branch_features, 3, stride, 1, groups=branch_features, bias=False),
            nn.BatchNorm2d(branch_features),
            nn.Conv2d(branch_features, branch_features, 1, bias=False), nn.BatchNorm2d(branch_features),
            nn.ReLU(inplace=True))

    def forward(self, x):
        if self.stride == 1:
            x1, x2 = x.chunk(2, dim=1)
            out = torch.cat((x1, self.branch2(x2)), dim=1)
        else:
            out = torch.cat((self.branch1(x), self.branch2(x)), dim=1)
        return channel_shuffle(out, 2)


x = torch.arange(2 * 6, dtype=torch.float32).view(2, 6, 1, 1)
print("shuffle", channel_shuffle(x, 2)[0, :, 0, 0].tolist(), nn.ChannelShuffle(3),
      nn.ChannelShuffle(3)(x)[1, :, 0, 0].tolist())
print("same as module", torch.equal(channel_shuffle(x, 3), nn.ChannelShuffle(3)(x)))
net = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
                    InvertedResidual(8, 16, 2), InvertedResidual(16, 16, 1), InvertedResidual(16, 16, 1),
                    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 3))
fill(net)
print("shufflenet params", sum(p.numel() for p in net.parameters()), "empty branch1", len(net[4].branch1))
imgs = torch.from_numpy(rng.standard_normal((4, 3, 16, 16)).astype(np.float32))
labels = torch.tensor([0, 1, 2, 0])
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=4e-5)
for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(net(imgs), labels)
    loss.backward()
    opt.step()
    print("shufflenet step", step, round(loss.item(), 4))
net.eval()
with torch.no_grad():
    print("eval", r(net(imgs), 6))


class GlobalFilter(nn.Module):
    def __init__(self, dim, h=4, w=3):
        super().__init__()
        self.complex_weight = nn.Parameter(torch.randn(h, w, dim, 2, dtype=torch.float32) * 0.02)
        self.w, self.h = w, h

    def forward(self, x, spatial_size=None):
        B, N, C = x.shape
        a = b = int(math.sqrt(N)) if spatial_size is None else spatial_size
        x = x.view(B, a, b, C).to(torch.float32)
        x = torch.fft.rfft2(x, dim=(1, 2), norm="ortho")
        weight = torch.view_as_complex(self.complex_weight)
        x = x * weight
        x = torch.fft.irfft2(x, s=(a, b), dim=(1, 2), norm="ortho")
        return x.reshape(B, N, C)


gf = GlobalFilter(4)
print("complex weight", tuple(gf.complex_weight.shape), torch.view_as_complex(gf.complex_weight).dtype)
with torch.no_grad():
    gf.complex_weight.copy_(torch.from_numpy(rng.standard_normal((4, 3, 4, 2)).astype(np.float32)))
    gf.complex_weight[..., 1] = 0.0
    gf.complex_weight[..., 0] = 1.0
tok = torch.from_numpy(rng.standard_normal((2, 16, 4)).astype(np.float32))
print("identity filter", torch.allclose(gf(tok), tok, atol=1e-5))
spec = torch.fft.rfft2(tok.view(2, 4, 4, 4), dim=(1, 2), norm="ortho")
print("rfft2", tuple(spec.shape), spec.dtype, r(spec[0, 1, 1].real, 4), r(spec[0, 1, 1].imag, 4))
print("parseval", round(spec.abs().pow(2)[:, :, 0].sum().item() + 2 * spec.abs().pow(2)[:, :, 1].sum().item()
                        + spec.abs().pow(2)[:, :, 2].sum().item(), 3), round(tok.pow(2).sum().item(), 3))
with torch.no_grad():
    gf.complex_weight.copy_(torch.from_numpy(0.5 * rng.standard_normal((4, 3, 4, 2)).astype(np.float32)))
block = nn.Sequential(nn.LayerNorm(4), gf, nn.LayerNorm(4), nn.Linear(4, 4))
with torch.no_grad():
    block[3].weight.copy_(torch.from_numpy(0.5 * rng.standard_normal((4, 4)).astype(np.float32)))
    block[3].bias.zero_()
out = block(tok)
loss = out.pow(2).mean()
loss.backward()
print("gfnet out", r(out, 4), "grad complex", tuple(gf.complex_weight.grad.shape),
      round(gf.complex_weight.grad.norm().item(), 4), r(gf.complex_weight.grad[0, 0, 0], 2))


class ESPCN(nn.Module):
    def __init__(self, scale=2, ch=1):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(ch, 8, 5, padding=2), nn.PReLU(8, init=0.2),
                                  nn.Conv2d(8, 4, 3, padding=1), nn.PReLU(),
                                  nn.Conv2d(4, ch * scale ** 2, 3, padding=1))
        self.up = nn.PixelShuffle(scale)

    def forward(self, x):
        return torch.sigmoid(self.up(self.body(x)))


sr = ESPCN()
print(sr.body[1], r(sr.body[1].weight, 8), sr.body[3].weight.tolist(), sr.up)
hr = torch.from_numpy(rng.uniform(0, 1, (2, 1, 8, 8)).astype(np.float32))
lr_img = F.interpolate(hr, scale_factor=0.5, mode="bicubic", align_corners=False, antialias=True)
print("lr", tuple(lr_img.shape), r(lr_img, 4), "unshuffle round trip",
      torch.equal(nn.PixelShuffle(2)(nn.PixelUnshuffle(2)(hr)), hr), tuple(nn.PixelUnshuffle(2)(hr).shape))
fill(sr)
opt = torch.optim.Adam(sr.parameters(), lr=1e-2)
for step in range(3):
    opt.zero_grad()
    pred = sr(lr_img)
    mse = F.mse_loss(pred, hr)
    mse.backward()
    opt.step()
    print("espcn step", step, round(mse.item(), 4), "psnr", round(10 * math.log10(1 / mse.item()), 3),
          "prelu grad", r(sr.body[3].weight.grad, 1))
