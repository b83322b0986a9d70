"""Convolution variants from mobile and segmentation backbones: depthwise and grouped Conv2d (weight shapes,
parameter counts, a depthwise-separable block), dilated (atrous/ASPP) convolutions, padding='same' with even
kernels and padding_mode reflect/replicate/circular, ConvTranspose2d with output_padding and the output_size
argument, conv_transpose as the adjoint of conv, Conv1d/Conv3d shapes, gradients and the shape errors."""

import re

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def r(x):
    return round(x.item(), 4)


x = torch.randn(2, 8, 9, 9)
dw = nn.Conv2d(8, 8, 3, padding=1, groups=8, bias=False)
pw = nn.Conv2d(8, 16, 1)
grouped = nn.Conv2d(8, 12, 3, groups=4, padding=1)
mult = nn.Conv2d(8, 16, 3, groups=8)
for m in (dw, pw, grouped, mult):
    y = m(x)
    print(m, tuple(m.weight.shape), sum(p.numel() for p in m.parameters()), tuple(y.shape), r(y.sum()))

ref = torch.cat([F.conv2d(x[:, 2 * i:2 * i + 2], grouped.weight[3 * i:3 * i + 3], grouped.bias[3 * i:3 * i + 3],
                          padding=1) for i in range(4)], dim=1)
print("groups = split convs", torch.allclose(ref, grouped(x), atol=1e-5))
dw_ref = torch.stack([F.conv2d(x[:, c:c + 1], dw.weight[c:c + 1], padding=1)[:, 0] for c in range(8)], 1)
print("depthwise = per channel", torch.allclose(dw_ref, dw(x), atol=1e-5))

aspp = nn.ModuleList([nn.Conv2d(8, 4, 3, padding=d, dilation=d) for d in (1, 2, 3)])
feats = [m(x) for m in aspp]
print("aspp", [tuple(f.shape) for f in feats], [r(f.mean()) for f in feats])
print("dilated no pad", tuple(F.conv2d(x, aspp[2].weight, dilation=3).shape),
      "effective k", 3 + (3 - 1) * (3 - 1))

for k in (2, 3, 4, (2, 5)):
    for d in (1, 2):
        m = nn.Conv2d(8, 2, k, padding="same", dilation=d, bias=False)
        y = m(x)
        print("same", k, d, tuple(y.shape), r(y.abs().sum()))
for mode in ("zeros", "reflect", "replicate", "circular"):
    m = nn.Conv2d(8, 3, 3, padding=2, padding_mode=mode)
    print(mode, m, tuple(m(x).shape), r(m(x).sum()))
m = nn.Conv2d(8, 3, 4, padding="same", padding_mode="reflect")
print("same+reflect", tuple(m(x).shape), r(m(x).sum()))

small = torch.randn(1, 4, 3, 3)
for stride, pad, opad, dil in ((2, 0, 0, 1), (2, 0, 1, 1), (2, 1, 1, 1), (3, 1, 2, 1), (2, 1, 1, 2)):
    t = nn.ConvTranspose2d(4, 2, 3, stride=stride, padding=pad, output_padding=opad, dilation=dil)
    y = t(small)
    print("convT", stride, pad, opad, dil, tuple(y.shape), r(y.sum()), r(y[0, 1, -1, -1]))
print(nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1, groups=2, bias=False))

up = nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1)
for size in ((5, 5), (6, 6), (5, 6), [1, 2, 6, 5]):
    print("output_size", size, tuple(up(small, output_size=size).shape))
try:
    up(small, output_size=(8, 8))
except ValueError as e:
    print("ValueError", e)

wt = torch.randn(4, 2, 3, 3)
a = torch.randn(1, 4, 7, 7)
b = torch.randn(1, 2, 13, 13)
lhs = (F.conv_transpose2d(a, wt, stride=2, padding=1, output_padding=0) * b).sum()
rhs = (a * F.conv2d(b, wt, stride=2, padding=1)).sum()
print("adjoint", r(lhs), r(rhs), torch.allclose(lhs, rhs, rtol=1e-4))
gt = torch.randn(2, 3, 3, 3)
print("grouped convT", tuple(F.conv_transpose2d(torch.randn(1, 2, 4, 4), gt, groups=2).shape))

xin = torch.randn(1, 2, 6, 6, requires_grad=True)
conv = nn.Conv2d(2, 4, 3, stride=2, padding=1, dilation=1, groups=2)
tconv = nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1, groups=2)
out = tconv(F.relu(conv(xin)))
print("enc-dec", tuple(out.shape), type(out.grad_fn).__name__)
(out ** 2).mean().backward()
print("dx", [round(v, 4) for v in xin.grad[0, 1, 2].tolist()])
print("dW conv", [round(v, 4) for v in conv.weight.grad.flatten()[:6].tolist()], "db", r(conv.bias.grad.sum()))
print("dW tconv", tuple(tconv.weight.grad.shape), r(tconv.weight.grad.norm()))

c1 = nn.Conv1d(3, 6, 5, stride=2, padding=2, dilation=1, groups=3)
c3 = nn.Conv3d(2, 4, (1, 3, 3), padding=(0, 1, 1))
t1 = nn.ConvTranspose1d(6, 3, 4, stride=2, padding=1)
t3 = nn.ConvTranspose3d(4, 2, 2, stride=2)
s1 = torch.randn(2, 3, 11)
v = torch.randn(1, 2, 3, 4, 4)
print("conv1d", tuple(c1(s1).shape), tuple(t1(c1(s1)).shape), r(t1(c1(s1)).sum()))
print("conv3d", tuple(c3(v).shape), tuple(t3(c3(v)).shape), r(t3(c3(v)).mean()))
print("causal", tuple(F.conv1d(F.pad(s1, (4, 0)), torch.randn(2, 3, 3), dilation=2).shape))

for fn in (
    lambda: nn.Conv2d(8, 6, 3, groups=4),
    lambda: nn.Conv2d(6, 8, 3, groups=4),
    lambda: nn.Conv2d(8, 8, 3, stride=2, padding="same"),
    lambda: nn.Conv2d(8, 8, 3, padding="valid2"),
    lambda: F.conv2d(x, torch.randn(4, 3, 3, 3)),
    lambda: F.conv2d(torch.randn(1, 8, 2, 2), torch.randn(4, 8, 3, 3)),
    lambda: nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=2)(small),
    lambda: nn.ConvTranspose2d(4, 2, 3, padding="same"),
):
    try:
        fn()
        print("no error")
    except (RuntimeError, ValueError) as e:
        # PyTorch prints a set of the valid padding strings, whose order follows the process's hash seed: sorted here
        msg = re.sub(r"\{[^}]*\}", lambda m: "{" + ", ".join(sorted(m.group(0)[1:-1].split(", "))) + "}",
                     str(e).splitlines()[0])
        print(type(e).__name__, msg)
