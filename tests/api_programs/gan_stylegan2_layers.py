"""StyleGAN2 layers as the official code writes them: equalized-lr linear and conv with runtime gains, a mapping
network with pixel norm and w_avg tracking, modulated/demodulated convolution as one grouped conv (groups=batch),
fused and unfused modulation agreeing, noise injection with a learned strength, minibatch stddev, toRGB skips."""

import math

import torch
import torch.nn as nn

F = torch.nn.functional
torch.manual_seed(0)


class EqualLinear(nn.Module):
    def __init__(self, cin, cout, bias_init=0.0, lr_mul=1.0, activation=False):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(cout, cin).div_(lr_mul))
        self.bias = nn.Parameter(torch.full([cout], float(bias_init)))
        self.scale = (1 / math.sqrt(cin)) * lr_mul
        self.lr_mul = lr_mul
        self.activation = activation

    def forward(self, x):
        if self.activation:
            out = F.linear(x, self.weight * self.scale)
            return F.leaky_relu(out + self.bias * self.lr_mul, 0.2) * math.sqrt(2)
        return torch.addmm(self.bias.unsqueeze(0) * self.lr_mul, x, (self.weight * self.scale).t())


def normalize_2nd_moment(x, dim=1, eps=1e-8):
    return x * (x.square().mean(dim=dim, keepdim=True) + eps).rsqrt()


class Mapping(nn.Module):
    def __init__(self, z_dim=8, w_dim=8, layers=3, w_avg_beta=0.995):
        super().__init__()
        self.net = nn.Sequential(
            *[EqualLinear(z_dim if i == 0 else w_dim, w_dim, lr_mul=0.01, activation=True) for i in range(layers)]
        )
        self.register_buffer("w_avg", torch.zeros([w_dim]))
        self.w_avg_beta = w_avg_beta

    def forward(self, z, truncation_psi=1.0, update_emas=False):
        w = self.net(normalize_2nd_moment(z))
        if update_emas:
            self.w_avg.copy_(w.detach().mean(dim=0).lerp(self.w_avg, self.w_avg_beta))
        if truncation_psi != 1:
            w = self.w_avg.lerp(w, truncation_psi)
        return w


def modulated_conv2d(x, weight, styles, demodulate=True, padding=1, fused=True):
    B, cin, H, W = x.shape
    cout, _, kh, kw = weight.shape
    w = weight.unsqueeze(0) * styles.reshape(B, 1, -1, 1, 1)
    if demodulate:
        dcoefs = (w.square().sum(dim=[2, 3, 4]) + 1e-8).rsqrt()
        w = w * dcoefs.reshape(B, -1, 1, 1, 1)
    if not fused:
        x = x * styles.reshape(B, -1, 1, 1)
        x = F.conv2d(x, weight, padding=padding)
        return x * dcoefs.reshape(B, -1, 1, 1) if demodulate else x
    x = x.reshape(1, -1, H, W)
    out = F.conv2d(x, w.reshape(-1, cin, kh, kw), padding=padding, groups=B)
    return out.reshape(B, cout, *out.shape[2:])


class SynthesisLayer(nn.Module):
    def __init__(self, cin, cout, w_dim, res):
        super().__init__()
        self.affine = EqualLinear(w_dim, cin, bias_init=1)
        self.weight = nn.Parameter(torch.randn(cout, cin, 3, 3))
        self.bias = nn.Parameter(torch.zeros(cout))
        self.register_buffer("noise_const", torch.randn(res, res))
        self.noise_strength = nn.Parameter(torch.zeros([]))

    def forward(self, x, w, noise_mode="const"):
        styles = self.affine(w) * (1 / math.sqrt(self.weight[0].numel()))
        x = modulated_conv2d(x, self.weight, styles)
        if noise_mode == "random":
            noise = torch.randn([x.shape[0], 1, x.shape[2], x.shape[3]]) * self.noise_strength
        else:
            noise = self.noise_const * self.noise_strength
        x = x.add_(noise)
        return F.leaky_relu(x + self.bias.reshape(1, -1, 1, 1), 0.2) * math.sqrt(2)


def minibatch_stddev(x, group_size=2, num_channels=1):
    N, C, H, W = x.shape
    G = min(group_size, N)
    F_ = num_channels
    c = C // F_
    y = x.reshape(G, -1, F_, c, H, W)
    y = y - y.mean(dim=0)
    y = y.square().mean(dim=0)
    y = (y + 1e-8).sqrt()
    y = y.mean(dim=[2, 3, 4])
    y = y.reshape(-1, F_, 1, 1)
    y = y.repeat(G, 1, H, W)
    return torch.cat([x, y], dim=1)


mapping = Mapping()
z = torch.randn(4, 8)
w = mapping(z, update_emas=True)
print("w", tuple(w.shape), round(w.std().item(), 4), "w_avg", mapping.w_avg.round(decimals=4).tolist())
wt = mapping(z, truncation_psi=0.5)
print("truncated", round((wt - mapping.w_avg).norm().item() / (w - mapping.w_avg).norm().item(), 4))
print("buffers", [(n, tuple(b.shape)) for n, b in mapping.named_buffers()])

layer = SynthesisLayer(4, 6, 8, res=8)
x = torch.randn(4, 4, 8, 8)
with torch.no_grad():
    layer.noise_strength.fill_(0.1)
y = layer(x, w)
print("synth", tuple(y.shape), y.grad_fn.name(), round(y.mean().item(), 4), round(y.std().item(), 4))
styles = layer.affine(w) / 6.0
a = modulated_conv2d(x, layer.weight, styles, fused=True)
b = modulated_conv2d(x, layer.weight, styles, fused=False)
print("fused == unfused", torch.allclose(a, b, atol=1e-5), round((a - b).abs().max().item(), 4))
nd = modulated_conv2d(x, layer.weight, styles, demodulate=False)
print("no demod", round(nd.std().item(), 4), "demod", round(a.std().item(), 4))
a.sum().backward()
print("grad weight", tuple(layer.weight.grad.shape), round(layer.weight.grad.abs().sum().item(), 4))
print("grad affine", round(layer.affine.weight.grad.norm().item(), 4))

mb = minibatch_stddev(torch.randn(4, 6, 4, 4), group_size=2, num_channels=2)
print("mbstd", tuple(mb.shape), mb[:, 6:, 0, 0].round(decimals=4).tolist())

# toRGB with a skip upsampled by interpolate; noise_mode random is only checked by shape.
rgb = nn.Conv2d(6, 3, 1)
img = F.interpolate(torch.randn(4, 3, 4, 4), scale_factor=2, mode="bilinear", align_corners=False) + rgb(y)
print("img", tuple(img.shape), tuple(layer(x, w, noise_mode="random").shape))
try:
    F.conv2d(x.reshape(1, -1, 8, 8), torch.randn(24, 3, 3, 3), groups=4)
except Exception as e:
    print(type(e).__name__, e)
try:
    minibatch_stddev(torch.randn(3, 6, 4, 4), group_size=2)
except Exception as e:
    print(type(e).__name__, e)
