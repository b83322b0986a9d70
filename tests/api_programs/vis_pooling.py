"""Pooling as vision code uses it: max_pool2d with padding, dilation, ceil_mode and return_indices, max_unpool2d
(SegNet decoders) with output_size, adaptive max/avg pooling to sizes that do not divide the input, avg_pool2d
count_include_pad and divisor_override, lp_pool2d, global pooling variants, 1-D/3-D pools, ties in the max's
gradient, channels_last outputs and indices, CenterNet heatmap NMS by max-pool equality with topk decoding."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False, linewidth=120)


def rl(t, n=8):
    return [round(v, 4) for v in t.flatten()[:n].tolist()]


x = torch.randn(1, 2, 7, 9)
for kw in ({"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
           {"kernel_size": 3, "stride": 2, "ceil_mode": True}, {"kernel_size": 2, "dilation": 2},
           {"kernel_size": (2, 3), "stride": (2, 1), "padding": (1, 1), "ceil_mode": True}):
    y, idx = F.max_pool2d(x, return_indices=True, **kw)
    print("max_pool", kw, tuple(y.shape), rl(y[0, 1, 0], 4), idx[0, 1, 0].tolist()[:4], idx.dtype)

pool = nn.MaxPool2d(2, stride=2, return_indices=True)
unpool = nn.MaxUnpool2d(2, stride=2)
print(pool, unpool)
inp = torch.arange(1.0, 26.0).view(1, 1, 5, 5)
out, ind = pool(inp)
print("pooled", out.tolist(), ind.tolist())
print("unpool", unpool(out, ind, output_size=inp.size())[0, 0].tolist())
for size in (None, (7, 7)):
    try:
        unpool(out, ind, output_size=size)
    except (ValueError, RuntimeError) as e:
        print(type(e).__name__, str(e).splitlines()[0])

for size in ((3, 4), (5, 5), (1, 1), (None, 2), 4):
    a = F.adaptive_avg_pool2d(x, size)
    m, mi = F.adaptive_max_pool2d(x, size, return_indices=True)
    print("adaptive", size, tuple(a.shape), rl(a[0, 0, 0], 3), rl(m[0, 0, 0], 3), mi[0, 0, 0].tolist()[:3])

for cip in (True, False):
    for div in (None, 3):
        y = F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=cip, divisor_override=div)
        print("avg", cip, div, tuple(y.shape), rl(y[0, 0, 0], 5), rl(y[0, 1, -1], 5))
print("lp_pool", rl(F.lp_pool2d(x.abs(), 2, 3, stride=2)[0, 0], 4), rl(F.lp_pool2d(x, 1, 2)[0, 0], 3))
print(nn.AvgPool2d(3, 2, 1, count_include_pad=False), nn.AdaptiveMaxPool2d((2, None)), nn.LPPool2d(2, 3))
gem = x.clamp(min=1e-6).pow(3).mean(dim=(-2, -1)).pow(1.0 / 3)
print("gem", rl(gem), "global max", rl(x.amax(dim=(2, 3))), "flatten",
      tuple(nn.AdaptiveAvgPool2d(1)(x).flatten(1).shape))

s = torch.randn(2, 3, 10)
y1, i1 = F.max_pool1d(s, 3, 2, 1, return_indices=True)
print("pool1d", rl(y1[0, 0], 5), i1[0, 0].tolist(), rl(F.avg_pool1d(s, 4, 3, ceil_mode=True)[1, 2], 4))
print("adaptive1d", rl(F.adaptive_max_pool1d(s, 4)[0, 1], 4), rl(F.adaptive_avg_pool1d(s, 3)[0, 1], 3))
v = torch.randn(1, 1, 4, 6, 6)
y3, i3 = F.max_pool3d(v, 2, return_indices=True)
print("pool3d", tuple(y3.shape), i3.flatten()[:4].tolist(), tuple(F.max_unpool3d(y3, i3, 2).shape))
print("avg3d", rl(F.avg_pool3d(v, (2, 2, 3), stride=1, padding=(1, 0, 1), count_include_pad=False), 4),
      tuple(F.adaptive_avg_pool3d(v, (3, 2, 5)).shape))

ties = torch.tensor([[[[1.0, 1.0, 0.0], [1.0, 0.5, 2.0], [2.0, 2.0, 2.0]]]], requires_grad=True)
yt, it = F.max_pool2d(ties, 2, stride=1, return_indices=True)
print("tie indices", it.tolist())
yt.sum().backward()
print("tie grad", ties.grad.tolist())
ties.grad = None
F.adaptive_max_pool2d(ties, 1).sum().backward()
print("adaptive tie grad", ties.grad.tolist())
ties.grad = None
F.avg_pool2d(ties, 2, stride=1, padding=1, count_include_pad=False).sum().backward()
print("avg grad", ties.grad.tolist())

xc = torch.randn(2, 4, 6, 6).to(memory_format=torch.channels_last)
yc, ic = F.max_pool2d(xc, 2, return_indices=True)
print("channels_last", yc.stride(), ic.stride(), F.avg_pool2d(xc, 2).stride(),
      F.adaptive_avg_pool2d(xc, 3).stride(), F.adaptive_max_pool2d(xc, 3).stride())
print("same as contiguous", torch.equal(ic, F.max_pool2d(xc.contiguous(), 2, return_indices=True)[1]))

torch.manual_seed(3)
heat = torch.rand(1, 2, 8, 8).pow(4)
heat[0, 0, 2, 3] = 0.95
heat[0, 1, 5, 6] = 0.9
hmax = F.max_pool2d(heat, 3, stride=1, padding=1)
keep = (hmax == heat).float()
peaks = heat * keep
scores, inds = peaks.view(1, -1).topk(4)
cls = torch.div(inds, 64, rounding_mode="floor")
pix = inds % 64
ys, xs = torch.div(pix, 8, rounding_mode="floor"), pix % 8
print("centernet", rl(scores, 4), cls.tolist(), ys.tolist(), xs.tolist(), int(keep.sum().item()))
wh = torch.rand(1, 2, 8, 8)
gathered = wh.view(1, 2, -1).gather(2, pix.unsqueeze(1).expand(1, 2, 4))
print("gathered wh", rl(gathered, 8))

for fn in (lambda: F.max_pool2d(x, 2, padding=2), lambda: F.max_pool2d(torch.randn(1, 1, 1, 1), 2),
           lambda: F.adaptive_avg_pool2d(x, (1, 2, 3)), lambda: F.avg_pool2d(x, 0)):
    try:
        fn()
        print("no error")
    except (RuntimeError, ValueError) as e:
        print(type(e).__name__, str(e).splitlines()[0])
