"""Progressive GAN as rosinality's code writes it: equalized learning rate by a forward pre-hook that deletes the
parameter and re-creates weight from weight_orig, PixelNorm, fade-in with alpha between upsampled toRGB outputs,
avg_pool2d/F.interpolate resolution changes, minibatch-stddev concat, deepcopy and state_dict of hooked modules,
the epsilon drift term, and hook removal."""

import copy
import math

import torch
import torch.nn as nn

F = torch.nn.functional
torch.manual_seed(0)


class EqualLR:
    def __init__(self, name):
        self.name = name

    def compute_weight(self, module):
        weight = getattr(module, self.name + "_orig")
        fan_in = weight.data.size(1) * weight.data[0][0].numel()
        return weight * math.sqrt(2 / fan_in)

    @staticmethod
    def apply(module, name):
        fn = EqualLR(name)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_orig", nn.Parameter(weight.data))
        module.register_forward_pre_hook(fn)
        return fn

    def __call__(self, module, input):
        setattr(module, self.name, self.compute_weight(module))


def equal_lr(module, name="weight"):
    EqualLR.apply(module, name)
    return module


class EqualConv2d(nn.Module):
    def __init__(self, *args, **kwargs):
        super().__init__()
        conv = nn.Conv2d(*args, **kwargs)
        conv.weight.data.normal_()
        conv.bias.data.zero_()
        self.conv = equal_lr(conv)

    def forward(self, x):
        return self.conv(x)


class PixelNorm(nn.Module):
    def forward(self, x):
        return x / torch.sqrt(torch.mean(x**2, dim=1, keepdim=True) + 1e-8)


c = EqualConv2d(3, 4, 3, padding=1)
print("params", [n for n, _ in c.named_parameters()])
print("state keys", list(c.state_dict().keys()))
x = torch.randn(2, 3, 8, 8)
y = c(x)
print(
    "weight attr",
    type(c.conv.weight).__name__,
    c.conv.weight.grad_fn.name(),
    "is param",
    isinstance(c.conv.weight, nn.Parameter),
)
print("y", tuple(y.shape), round(y.std().item(), 4))
print(
    "hooks",
    len(c.conv._forward_pre_hooks),
    "scale",
    round(c.conv.weight.abs().sum().item() / c.conv.weight_orig.abs().sum().item(), 6),
)
y.sum().backward()
print("grad on orig", c.conv.weight_orig.grad is not None, round(c.conv.weight_orig.grad.abs().sum().item(), 4))
try:
    copy.deepcopy(c)
except Exception as e:
    print(type(e).__name__, str(e)[:100])
del c.conv.weight
c2 = copy.deepcopy(c)
print("deepcopy after del", torch.allclose(c2(x), c(x)), len(c2.conv._forward_pre_hooks), hasattr(c2.conv, "weight"))
print("state keys after forward", list(c.state_dict().keys()))
print("pixelnorm", round(PixelNorm()(torch.randn(2, 6, 3, 3)).square().mean(1).mean().item(), 4))


class Gen(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([EqualConv2d(4, 4, 3, padding=1) for _ in range(3)])
        self.to_rgb = nn.ModuleList([EqualConv2d(4, 3, 1) for _ in range(3)])
        self.pn = PixelNorm()

    def forward(self, x, step, alpha):
        out = prev = x
        for i, (conv, rgb) in enumerate(zip(self.blocks, self.to_rgb)):
            if i > 0:
                upsample = F.interpolate(out, scale_factor=2, mode="nearest")
                out = self.pn(F.leaky_relu(conv(upsample), 0.2))
            else:
                out = self.pn(F.leaky_relu(conv(out), 0.2))
            if i == step:
                rgb_out = rgb(out)
                if i > 0 and 0 <= alpha < 1:
                    skip_rgb = self.to_rgb[i - 1](prev)
                    skip_rgb = F.interpolate(skip_rgb, scale_factor=2, mode="nearest")
                    rgb_out = (1 - alpha) * skip_rgb + alpha * rgb_out
                return rgb_out
            prev = out


G = Gen()
x0 = torch.randn(2, 4, 4, 4)
for step, alpha in [(0, 1.0), (1, 0.0), (1, 0.5), (2, 0.25), (2, 1.0)]:
    img = G(x0, step, alpha)
    print("G", step, alpha, tuple(img.shape), round(img.mean().item(), 4))

# Discriminator side: fade the downsampled input against the new fromRGB path.
img = G(x0, 2, 0.5)
from_rgb_new, from_rgb_old = EqualConv2d(3, 4, 1), EqualConv2d(3, 4, 1)
h_new = F.avg_pool2d(from_rgb_new(img), 2)
h_old = from_rgb_old(F.avg_pool2d(img, 2))
h = 0.5 * h_new + 0.5 * h_old
std = torch.sqrt(h.var(0, unbiased=False) + 1e-8).mean().expand(h.size(0), 1, h.size(2), h.size(3))
hd = torch.cat([h, std], 1)
print("D fade", tuple(hd.shape), round(std[0, 0, 0, 0].item(), 4))
print(
    "area resize",
    tuple(F.interpolate(img, size=(5, 5), mode="area").shape),
    torch.allclose(F.interpolate(img, scale_factor=0.5, mode="area"), F.avg_pool2d(img, 2)),
)
print("adaptive", tuple(F.adaptive_avg_pool2d(img, 3).shape))
d_real = torch.randn(2, 1)
eps_drift = 0.001 * (d_real**2).mean()
print("drift", round(eps_drift.item(), 6))

# Hook removal via the handle.
lin = nn.Linear(2, 2)
h = lin.register_forward_pre_hook(lambda m, inp: (inp[0] * 0,))
print("hooked", lin(torch.ones(1, 2)).tolist() == lin.bias.unsqueeze(0).tolist())
h.remove()
print("removed", len(lin._forward_pre_hooks))
try:
    EqualLR.apply(nn.Linear(2, 2), "kernel")
except Exception as e:
    print(type(e).__name__, e)
try:
    c.conv.register_parameter("weight_orig", nn.Parameter(torch.zeros(1)))
except Exception as e:
    print(type(e).__name__, e)
try:
    c.conv.register_parameter("bad.name", nn.Parameter(torch.zeros(1)))
except Exception as e:
    print(type(e).__name__, e)
try:
    c.conv.weight_orig = torch.zeros(4, 3, 3, 3)
except Exception as e:
    print(type(e).__name__, e)
