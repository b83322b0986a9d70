"""channels_last training as timm and torchvision reference scripts do it: TF-"same" padding via F.pad
(Conv2dSame, MaxPool2dSame), depthwise-separable blocks with SE, average/max pooling, a transposed-conv decoder,
model.to(memory_format=...), the layouts every stage answers in, gradient layouts, and the rank errors of
channels_last on tensors that are not 4-D."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(17)


def npt(*shape, scale=1.0):
    return torch.from_numpy((rng.standard_normal(shape) * scale).astype(np.float32))


def r(t, n=5):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


def fmt(t):
    if t.is_contiguous(memory_format=torch.channels_last) and not t.is_contiguous():
        return "NHWC"
    return "NCHW" if t.is_contiguous() else "strided"


def get_same_padding(x, k, s, d):
    return max((math.ceil(x / s) - 1) * s + (k - 1) * d + 1 - x, 0)


def pad_same(x, kernel_size, stride, dilation=(1, 1), value=0.0):
    ih, iw = x.size()[-2:]
    pad_h = get_same_padding(ih, kernel_size[0], stride[0], dilation[0])
    pad_w = get_same_padding(iw, kernel_size[1], stride[1], dilation[1])
    return F.pad(x, (pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2), value=value)


class Conv2dSame(nn.Conv2d):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, padding=0, **kwargs)

    def forward(self, x):
        x = pad_same(x, self.kernel_size, self.stride, self.dilation)
        return F.conv2d(x, self.weight, self.bias, self.stride, (0, 0), self.dilation, self.groups)


class MaxPool2dSame(nn.MaxPool2d):
    def forward(self, x):
        x = pad_same(x, (self.kernel_size,) * 2, (self.stride,) * 2, value=-float("inf"))
        return F.max_pool2d(x, self.kernel_size, self.stride, 0, self.dilation, self.ceil_mode)


class SE(nn.Module):
    def __init__(self, c, rd=4):
        super().__init__()
        self.reduce = nn.Conv2d(c, rd, 1)
        self.expand = nn.Conv2d(rd, c, 1)

    def forward(self, x):
        s = F.adaptive_avg_pool2d(x, 1)
        return x * torch.sigmoid(self.expand(F.silu(self.reduce(s))))


class DSBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.dw = Conv2dSame(cin, cin, 3, stride=stride, groups=cin, bias=False)
        self.bn1 = nn.BatchNorm2d(cin)
        self.se = SE(cin)
        self.pw = nn.Conv2d(cin, cout, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)

    def forward(self, x):
        x = F.silu(self.bn1(self.dw(x)))
        return self.bn2(self.pw(self.se(x)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = Conv2dSame(3, 8, 3, stride=2)
        self.pool = MaxPool2dSame(3, 2)
        self.block = DSBlock(8, 12, 1)
        self.down = nn.AvgPool2d(2, ceil_mode=True, count_include_pad=False)
        self.up = nn.ConvTranspose2d(12, 6, 2, stride=2)
        self.head = nn.Sequential(nn.AdaptiveMaxPool2d(1), nn.Flatten(), nn.Linear(6, 4))

    def forward(self, x, trace=None):
        for name in ("stem", "pool", "block", "down", "up"):
            x = getattr(self, name)(x)
            if trace is not None:
                trace.append(f"{name}:{tuple(x.shape)}:{fmt(x)}")
        return self.head(x)


print("same pads", [get_same_padding(n, 3, 2, 1) for n in (7, 8, 9)], get_same_padding(10, 5, 1, 2))
net = Net()
with torch.no_grad():
    for p in net.parameters():
        p.copy_(npt(*p.shape, scale=0.4))
x = npt(2, 3, 11, 9)
net.eval()
trace = []
ref = net(x, trace)
print("nchw", trace)
net = net.to(memory_format=torch.channels_last)
print("weights", fmt(net.stem.weight), net.block.dw.weight.stride(), net.up.weight.stride(),
      net.head[2].weight.stride())
xc = x.to(memory_format=torch.channels_last)
trace = []
out = net(xc, trace)
print("nhwc", trace)
print("same values", torch.allclose(out, ref, atol=1e-5), r(out))

padded = F.pad(xc, (1, 2, 0, 1), value=-1.0)
print("pad", padded.shape, fmt(padded), r(padded[0, 0, 0]), fmt(F.pad(xc, (1, 1, 1, 1), mode="reflect")))
print("pad circular", fmt(F.pad(xc, (1, 1, 1, 1), mode="circular")), fmt(F.pad(xc, (0, 0, -1, 0))))
pooled, idx = F.max_pool2d(xc, 2, return_indices=True)
print("pool idx", fmt(pooled), fmt(idx), idx.dtype, idx[0, 0].tolist())
print("avg", fmt(F.avg_pool2d(xc, 3, 2, 1)), r(F.avg_pool2d(xc, 3, 2, 1, count_include_pad=False)[0, 1]))
print("adaptive max", fmt(F.adaptive_max_pool2d(xc, (2, 3))), fmt(F.adaptive_max_pool2d(xc, 2, True)[1]))

net.train()
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
y = torch.from_numpy(rng.integers(0, 4, 2))
for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(net(xc), y)
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4), net.stem.weight.grad.stride(), fmt(net.up.weight.grad))
buf = opt.state_dict()["state"][0]["momentum_buffer"]
print("momentum layout", buf.shape, buf.stride())
xg = xc.clone().requires_grad_()
net.eval()
net(xg).sum().backward()
print("input grad", fmt(xg.grad), r(xg.grad))
sd = net.state_dict()
print("state layout", sd["stem.weight"].stride(), sd["stem.weight"].is_contiguous())
fresh = Net()
fresh.load_state_dict(sd)
print("loaded", fresh.stem.weight.stride(), torch.equal(fresh.stem.weight, net.stem.weight))
print("contiguous again", fresh.stem.weight.contiguous(memory_format=torch.contiguous_format).stride())
vid = npt(1, 2, 3, 4, 4)
print("3d", vid.to(memory_format=torch.channels_last_3d).stride(), nn.Conv3d(2, 2, 1).to(
    memory_format=torch.channels_last_3d).weight.stride())
for bad in (lambda: x[0].contiguous(memory_format=torch.channels_last),
            lambda: vid.to(memory_format=torch.channels_last),
            lambda: torch.empty(2, 3, memory_format=torch.channels_last),
            lambda: nn.Conv3d(2, 2, 1).to(memory_format=torch.channels_last)):
    try:
        bad()
    except RuntimeError as e:
        print("RuntimeError", e)
print("formats", torch.channels_last, torch.preserve_format, torch.contiguous_format == torch.contiguous_format)
print("empty_like", torch.empty_like(xc).stride(), torch.empty_like(xc, memory_format=torch.contiguous_format).stride())

video_stem = nn.Sequential(nn.BatchNorm3d(2), nn.ReLU(), nn.MaxPool3d(2), nn.Upsample(scale_factor=2, mode="trilinear"),
                           nn.ConstantPad3d((1, 0, 0, 0, 0, 1), 0.5), nn.GroupNorm(2, 2))
with torch.no_grad():
    for p in video_stem.parameters():
        p.copy_(npt(*p.shape, scale=0.5))
clip = npt(2, 2, 4, 4, 4).to(memory_format=torch.channels_last_3d)
video_stem = video_stem.to(memory_format=torch.channels_last_3d)
layouts = []
h = clip
for m in video_stem:
    h = m(h)
    layouts.append(f"{type(m).__name__}:{'NDHWC' if not h.is_contiguous() else 'NCDHW'}")
print("video", layouts, h.shape)
print("video values", r(h), r(video_stem(clip.contiguous())))
upsampler = nn.Sequential(nn.Conv2d(3, 12, 3, padding=1), nn.PixelShuffle(2), nn.PixelUnshuffle(2))
with torch.no_grad():
    for p in upsampler.parameters():
        p.copy_(npt(*p.shape, scale=0.3))
upsampler = upsampler.to(memory_format=torch.channels_last)
sr = upsampler[1](upsampler[0](xc))
print("pixel shuffle", sr.shape, sr.stride(), fmt(upsampler(xc)), r(sr))
