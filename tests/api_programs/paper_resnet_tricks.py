"""Tricks from the ResNet-era papers on a tiny CIFAR-style net: the option-A zero-padded shortcut (He et al. 2016),
zero-initialised last BN gamma and no weight decay on norms and biases (Goyal et al. 2017), weight standardization
(Qiao et al. 2019), shake-shake (Gastaldi 2017) with the detach trick for different forward/backward mixing, a
gradient reversal layer (Ganin & Lempitsky 2015), sub-pixel convolution with ICNR init (Shi et al. 2016; Aitken et
al. 2017), and a straight-through Gumbel-softmax (Jang et al. 2017) with numpy-drawn noise."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(2016)


def arr(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


def r(t, k=4):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


def fill_(m, seed, scale=0.3):
    g = np.random.default_rng(seed)
    with torch.no_grad():
        for name, p in m.named_parameters():
            if "bn" not in name:
                p.copy_(torch.from_numpy(g.uniform(-scale, scale, tuple(p.shape)).astype(np.float32)))
    return m


class WSConv2d(nn.Conv2d):
    def forward(self, x):
        w = self.weight
        w = (w - w.mean(dim=(1, 2, 3), keepdim=True)) / (w.std(dim=(1, 2, 3), keepdim=True, unbiased=False) + 1e-5)
        return F.conv2d(x, w, self.bias, self.stride, self.padding, self.dilation, self.groups)


class ShakeShake(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x1, x2, alpha, beta):
        ctx.save_for_backward(beta)
        return alpha * x1 + (1 - alpha) * x2

    @staticmethod
    def backward(ctx, grad):
        (beta,) = ctx.saved_tensors
        return beta * grad, (1 - beta) * grad, None, None


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = WSConv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.GroupNorm(2, cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.conv2b = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        nn.init.zeros_(self.bn2.weight)
        self.pad = cout - cin
        self.stride = stride
        self.alpha = self.beta = None

    def shortcut(self, x):
        if self.stride == 1 and self.pad == 0:
            return x
        x = x[:, :, :: self.stride, :: self.stride]
        return F.pad(x, (0, 0, 0, 0, self.pad // 2, self.pad - self.pad // 2))

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        a, b = self.conv2(h), self.conv2b(h)
        mixed = ShakeShake.apply(a, b, self.alpha, self.beta) if self.training else 0.5 * (a + b)
        detach_mix = self.beta * a + (1 - self.beta) * b
        detach_mix = detach_mix + (self.alpha * a + (1 - self.alpha) * b - detach_mix).detach()
        self.same = torch.allclose(mixed, detach_mix, atol=1e-6) if self.training else None
        return F.relu(self.shortcut(x) + self.bn2(mixed))


net = nn.Sequential(
    nn.Conv2d(3, 4, 3, padding=1, bias=False),
    Block(4, 4, 1),
    Block(4, 8, 2),
    nn.AdaptiveAvgPool2d(1),
    nn.Flatten(),
    nn.Linear(8, 3),
)
fill_(net, 0)
for m in net.modules():
    if isinstance(m, nn.BatchNorm2d):
        nn.init.zeros_(m.weight)
decay, no_decay = [], []
for name, p in net.named_parameters():
    (no_decay if p.ndim <= 1 else decay).append(name)
print("no_decay", no_decay)
params = dict(net.named_parameters())
opt = torch.optim.SGD(
    [
        {"params": [params[n] for n in decay], "weight_decay": 5e-4},
        {"params": [params[n] for n in no_decay], "weight_decay": 0.0},
    ],
    lr=0.1,
    momentum=0.9,
)
x = arr(4, 3, 8, 8)
y = torch.tensor([0, 1, 2, 1])
x_short = net[2].shortcut(torch.arange(2 * 4 * 4 * 4.0).view(2, 4, 4, 4))
print("option_a", x_short.shape, x_short[0, :, 0, 0].tolist())
for step in range(3):
    for blk in (net[1], net[2]):
        blk.alpha = torch.from_numpy(rng.uniform(size=(4, 1, 1, 1)).astype(np.float32))
        blk.beta = torch.from_numpy(rng.uniform(size=(4, 1, 1, 1)).astype(np.float32))
    out = net(x)
    loss = F.cross_entropy(out, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("train", step, round(loss.item(), 4), net[1].same, r(net[2].bn2.weight), r(net[1].conv2.weight.grad, 3))
net.eval()
print("eval", r(net(x).softmax(1), 6), net[1].same)
w = net[1].conv1.weight
ws = (w - w.mean(dim=(1, 2, 3), keepdim=True)) / (w.std(dim=(1, 2, 3), keepdim=True, unbiased=False) + 1e-5)
print("ws_stats", r(ws.mean(dim=(1, 2, 3))), r(ws.std(dim=(1, 2, 3), unbiased=False)))


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lambd):
        ctx.lambd = lambd
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.neg() * ctx.lambd, None


feat = arr(3, 4).requires_grad_(True)
rev = GradReverse.apply(feat, 0.5)
(rev * torch.arange(4.0)).sum().backward()
print("grl", rev.grad_fn.__class__.__name__, feat.grad[0].tolist(), torch.equal(rev, feat))
for p_ in np.linspace(0, 1, 3):
    print("dann_lambda", round(float(2 / (1 + np.exp(-10 * p_)) - 1), 4))

# sub-pixel convolution with ICNR: every sub-pixel of a block starts equal
conv = nn.Conv2d(2, 2 * 4, 3, padding=1)
base = torch.from_numpy(rng.standard_normal((2, 2, 3, 3)).astype(np.float32))
with torch.no_grad():
    conv.weight.copy_(base.repeat_interleave(4, dim=0))
    conv.bias.zero_()
ps = nn.PixelShuffle(2)
up = ps(conv(arr(1, 2, 3, 3)))
print(
    "pixel_shuffle",
    up.shape,
    torch.allclose(up[..., 0::2, 0::2], up[..., 1::2, 1::2], atol=1e-6),
    ps,
    nn.PixelUnshuffle(2),
)
print(
    "unshuffle_roundtrip",
    torch.equal(F.pixel_shuffle(F.pixel_unshuffle(up, 2), 2), up),
    F.pixel_unshuffle(torch.arange(16.0).view(1, 1, 4, 4), 2)[0, :, 0, 0].tolist(),
)
print("icnr_grad_fns", up.grad_fn.name(), F.pixel_unshuffle(up, 3).grad_fn.name(), F.celu(up, 0.5).grad_fn.name())
try:
    F.pixel_shuffle(torch.zeros(1, 3, 2, 2), 2)
except RuntimeError as e:
    print("RuntimeError", e)

# straight-through Gumbel-softmax with fixed noise
logits = arr(4, 5).requires_grad_(True)
u = torch.from_numpy(rng.uniform(1e-6, 1 - 1e-6, (4, 5)).astype(np.float32))
g = -torch.log(-torch.log(u))
soft = F.softmax((logits + g) / 0.5, dim=-1)
index = soft.argmax(-1, keepdim=True)
hard = torch.zeros_like(soft).scatter_(-1, index, 1.0)
st = hard - soft.detach() + soft
(st * torch.arange(5.0)).sum().backward()
print("gumbel", index.squeeze(1).tolist(), st.sum(1).tolist(), r(logits.grad[0], 5))
print(
    "gumbel_api",
    F.gumbel_softmax(logits, tau=0.5, hard=True).sum(1).tolist(),
    F.gumbel_softmax(logits, hard=True).max(1).values.tolist(),
)
