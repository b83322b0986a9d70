"""WaveNet's input pipeline and causal stack: mu-law companding and quantisation to 256 classes (and back), one-hot
inputs via F.one_hot and scatter_, a causal dilated conv by left padding, gated tanh*sigmoid units with residual and
skip paths, cross-entropy over classes, and the dtype/range errors of the encoding steps."""

import math

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(10)
torch.set_printoptions(precision=4, sci_mode=False)
Q = 256


def mu_law_encode(x, quantization_channels=Q):
    mu = quantization_channels - 1.0
    if not x.is_floating_point():
        x = x.to(torch.float)
    mu = torch.tensor(mu, dtype=x.dtype)
    x_mu = torch.sign(x) * torch.log1p(mu * torch.abs(x)) / torch.log1p(mu)
    return ((x_mu + 1) / 2 * mu + 0.5).to(torch.int64)


def mu_law_decode(x_mu, quantization_channels=Q):
    mu = quantization_channels - 1.0
    if not x_mu.is_floating_point():
        x_mu = x_mu.to(torch.float)
    mu = torch.tensor(mu, dtype=x_mu.dtype)
    x = (x_mu / mu) * 2 - 1.0
    return torch.sign(x) * (torch.exp(torch.abs(x) * torch.log1p(mu)) - 1.0) / mu


class CausalConv1d(nn.Conv1d):
    def __init__(self, cin, cout, k, dilation=1):
        super().__init__(cin, cout, k, dilation=dilation)
        self.left = (k - 1) * dilation

    def forward(self, x):
        return super().forward(F.pad(x, (self.left, 0)))


class ResidualLayer(nn.Module):
    def __init__(self, res_ch, skip_ch, dilation):
        super().__init__()
        self.conv = CausalConv1d(res_ch, 2 * res_ch, 2, dilation)
        self.res = nn.Conv1d(res_ch, res_ch, 1)
        self.skip = nn.Conv1d(res_ch, skip_ch, 1)

    def forward(self, x):
        a, b = self.conv(x).chunk(2, dim=1)
        z = torch.tanh(a) * torch.sigmoid(b)
        return x + self.res(z), self.skip(z)


class WaveNet(nn.Module):
    def __init__(self, res_ch=8, skip_ch=8, dilations=(1, 2, 4, 8)):
        super().__init__()
        self.embed = CausalConv1d(Q, res_ch, 2)
        self.layers = nn.ModuleList(ResidualLayer(res_ch, skip_ch, d) for d in dilations)
        self.out = nn.Sequential(nn.ReLU(), nn.Conv1d(skip_ch, skip_ch, 1), nn.ReLU(), nn.Conv1d(skip_ch, Q, 1))
        self.receptive_field = sum(dilations) + 2

    def forward(self, x):
        x = self.embed(x)
        skips = 0
        for layer in self.layers:
            x, s = layer(x)
            skips = skips + s
        return self.out(skips)


t = torch.linspace(0, 1, 40)
audio = torch.stack([0.8 * torch.sin(2 * math.pi * 3 * t), 0.05 * torch.randn(40).clamp(-1, 1)])
q = mu_law_encode(audio)
print(q.dtype, q.min().item(), q.max().item(), q[0, :8])
rec = mu_law_decode(q)
print(rec.dtype, (rec - audio).abs().max().round(decimals=4), rec[0, :4])
print(mu_law_encode(torch.tensor([-1.0, 0.0, 1.0, -1.5, float("nan")]))[:4])
print(mu_law_encode(torch.tensor([-1.0, 0.5], dtype=torch.float64)), mu_law_encode(torch.tensor([0, 1])))
print(mu_law_decode(torch.tensor([0, 127, 128, 255])), mu_law_decode(torch.tensor([0.0, 255.0], dtype=torch.float64)))

oh = F.one_hot(q, Q).permute(0, 2, 1).float()
print(oh.shape, oh.dtype, oh.is_contiguous(), oh.stride(), oh.sum(1).unique())
oh2 = torch.zeros(2, Q, 40).scatter_(1, q.unsqueeze(1), 1.0)
print(torch.equal(oh, oh2))
net = WaveNet()
logits = net(oh[:, :, :-1])
print(logits.shape, net.receptive_field, net.embed, net.embed.left)
loss = F.cross_entropy(logits, q[:, 1:])
loss.backward()
print(round(loss.item(), 4), round(math.log(Q), 4), round(net.embed.weight.grad.norm().item(), 4))
print(net.embed.weight.grad[:, :, 0].abs().sum(0).nonzero().flatten()[:6])

# Causality: changing the future does not change the past.
with torch.no_grad():
    x2 = oh.clone()
    x2[:, :, 20:] = 0
    same = torch.allclose(net(oh)[:, :, :20], net(x2)[:, :, :20], atol=1e-6)
print("causal", same)
probs = F.softmax(logits[:, :, -1], dim=1)
torch.manual_seed(0)
print(torch.multinomial(probs, 3, replacement=True).shape, probs.sum(1).round(decimals=4).detach())
print(F.one_hot(torch.tensor([[0, 2], [1, 1]])), F.one_hot(torch.tensor([], dtype=torch.long), 4).shape)
for bad in (torch.tensor([0.0, 1.0]), torch.tensor([0, 4]), torch.tensor([-1, 0])):
    try:
        F.one_hot(bad, 4)
    except RuntimeError as e:
        print(type(e).__name__, e)
try:
    F.one_hot(torch.tensor([], dtype=torch.long))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    F.cross_entropy(logits, q[:, :-1].int())
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    F.cross_entropy(logits, q)
except (RuntimeError, ValueError) as e:
    print(type(e).__name__, e)
print(torch.sign(torch.tensor([-0.0, 0.0, -2, 3])), torch.sign(torch.tensor([True, False])))
gated = F.glu(torch.cat([torch.ones(1, 2, 3), torch.zeros(1, 2, 3)], 1), dim=1)
print(gated[0, :, 0], nn.GLU(dim=1))
for bad in (q.unsqueeze(0), torch.tensor(1.0), torch.ones(1, 3, 2)):
    try:
        F.glu(bad, dim=1)
    except (RuntimeError, NotImplementedError) as e:
        print(type(e).__name__, e)
