"""WaveNet-style code in plain PyTorch: causal dilated convolutions through F.pad, padding='same' with dilation and
even kernels, grouped and depthwise conv1d, gated tanh*sigmoid units with residual and skip paths, the receptive
field measured by a gradient, mu-law companding, and autoregressive sampling with a conv-state buffer."""

import math

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

x = torch.randn(2, 4, 32)
w = torch.randn(6, 4, 3)
for dil in (1, 2, 4):
    same = F.conv1d(x, w, padding="same", dilation=dil)
    causal = F.conv1d(F.pad(x, ((3 - 1) * dil, 0)), w, dilation=dil)
    shifted = torch.allclose(same[..., : 32 - dil], causal[..., dil:], atol=1e-5)
    print("dilation", dil, tuple(same.shape), tuple(causal.shape), "same = causal shifted", shifted)

w4 = torch.randn(3, 4, 4)
s4 = F.conv1d(x, w4, padding="same")
manual = F.conv1d(F.pad(x, (1, 2)), w4)
print("even kernel same pads (1, 2)", torch.allclose(s4, manual, atol=1e-5), tuple(s4.shape))
s4d = F.conv1d(x, w4, padding="same", dilation=3)
print("even kernel dilation 3", tuple(s4d.shape), torch.allclose(s4d, F.conv1d(F.pad(x, (4, 5)), w4, dilation=3),
                                                                atol=1e-5))

wg = torch.randn(8, 2, 3)
g = F.conv1d(x, wg, groups=2, padding=1)
g_ref = torch.cat([F.conv1d(x[:, :2], wg[:4], padding=1), F.conv1d(x[:, 2:], wg[4:], padding=1)], 1)
print("groups=2", tuple(g.shape), torch.allclose(g, g_ref, atol=1e-5))
dw = nn.Conv1d(4, 4, 5, groups=4, padding="same", bias=False)
print("depthwise", dw, tuple(dw.weight.shape), tuple(dw(x).shape))
for mode in ["zeros", "reflect", "replicate", "circular"]:
    c = nn.Conv1d(4, 2, 3, padding=2, dilation=2, padding_mode=mode)
    print("padding_mode", mode, round(c(x).sum().item(), 4))


class CausalConv1d(nn.Conv1d):
    def __init__(self, cin, cout, k, dilation=1):
        super().__init__(cin, cout, k, dilation=dilation)
        self.left = (k - 1) * dilation

    def forward(self, inp):
        return super().forward(F.pad(inp, (self.left, 0)))


class ResidualBlock(nn.Module):
    def __init__(self, ch, skip, dilation):
        super().__init__()
        self.conv = CausalConv1d(ch, 2 * ch, 2, dilation)
        self.res = nn.Conv1d(ch, ch, 1)
        self.skip = nn.Conv1d(ch, skip, 1)

    def forward(self, h):
        filt, gate = self.conv(h).chunk(2, dim=1)
        z = torch.tanh(filt) * torch.sigmoid(gate)
        return (h + self.res(z)) * math.sqrt(0.5), self.skip(z)


class WaveNet(nn.Module):
    def __init__(self, q=16, ch=8, skip=12, dilations=(1, 2, 4, 8, 1, 2, 4, 8)):
        super().__init__()
        self.embed = nn.Embedding(q, ch)
        self.blocks = nn.ModuleList(ResidualBlock(ch, skip, d) for d in dilations)
        self.head = nn.Sequential(nn.ReLU(), nn.Conv1d(skip, skip, 1), nn.ReLU(), nn.Conv1d(skip, q, 1))
        self.receptive_field = 1 + sum(dilations)

    def forward(self, codes):
        h = self.embed(codes).transpose(1, 2)
        skips = 0
        for blk in self.blocks:
            h, s = blk(h)
            skips = skips + s
        return self.head(skips)


def mu_law_encode(a, q=16):
    mu = q - 1
    y = torch.sign(a) * torch.log1p(mu * a.abs()) / math.log1p(mu)
    return ((y + 1) / 2 * mu + 0.5).long().clamp(0, mu)


def mu_law_decode(codes, q=16):
    mu = q - 1
    y = 2 * codes.float() / mu - 1
    return torch.sign(y) * ((1 + mu) ** y.abs() - 1) / mu


t = torch.linspace(0, 1, 200)
audio = 0.8 * torch.sin(2 * math.pi * 7 * t) * torch.exp(-2 * t)
codes = mu_law_encode(audio)
print("mu-law codes", codes[:12].tolist(), "bincount", torch.bincount(codes, minlength=16).tolist())
print("mu-law round trip err", round((mu_law_decode(codes) - audio).abs().max().item(), 4))

net = WaveNet()
print("params", sum(p.numel() for p in net.parameters()), "receptive field", net.receptive_field)
probe = torch.zeros(1, 8, 40, requires_grad=True)
h = probe
for blk in net.blocks:
    h, _ = blk(h)
h[0, :, 30].sum().backward()
touched = (probe.grad[0].abs().sum(0) > 0).nonzero().flatten()
print("gradient reaches", touched.min().item(), "..", touched.max().item(), "span", touched.numel())

opt = torch.optim.Adam(net.parameters(), lr=1e-2)
inp, tgt = codes[:-1].unsqueeze(0), codes[1:].unsqueeze(0)
for step in range(40):
    logits = net(inp)
    loss = F.cross_entropy(logits, tgt)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print("step", step, round(loss.item(), 4))
acc = (logits.argmax(1) == tgt).float().mean()
print("final", round(loss.item(), 3), "acc", round(acc.item(), 2))

net.eval()
gen = torch.Generator().manual_seed(3)
seq = codes[: net.receptive_field].clone()
with torch.no_grad():
    for _ in range(12):
        ctx = seq[-net.receptive_field:].unsqueeze(0)
        probs = F.softmax(net(ctx)[0, :, -1] / 0.7, dim=0)
        nxt = torch.multinomial(probs, 1, generator=gen)
        seq = torch.cat([seq, nxt])
print("sampled", seq[-12:].tolist())
with torch.no_grad():
    full = net(codes.unsqueeze(0))
    part = net(codes[:100].unsqueeze(0))
print("causal: prefix unchanged", torch.allclose(full[..., :100], part, atol=1e-5))


def show(fn):
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, "|", str(e).split("\n")[0][:160])


show(lambda: F.conv1d(x, w, padding="same", stride=2))
show(lambda: F.conv1d(x, w, padding="valid", groups=3))
show(lambda: F.conv1d(x, w, padding="full"))
show(lambda: nn.Conv1d(4, 4, 3, padding="same", stride=2))
show(lambda: F.conv1d(x[..., :2], w, dilation=4))
