"""Causal temporal convolutions as forecasting repos write them: the TCN Chomp1d (pad both sides, slice the future
off), left-padding with F.pad, a WaveNet stack of gated tanh*sigmoid residual blocks with skip connections and
exponentially growing dilations, the receptive field computed and checked by a gradient probe (which inputs touch
the last output), weight_norm's old-style hooks (weight_g/weight_v) and remove_weight_norm, torch.jit.script of a
block, fast autoregressive generation with per-layer input queues checked against the full convolution, and conv
shape errors."""

import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
warnings.simplefilter("ignore", FutureWarning)


def det_(module, scale=0.3, phase=0.0):
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32) * 0.61 + i + phase).view_as(p) * scale)
    return module


class Chomp1d(nn.Module):
    def __init__(self, chomp_size):
        super().__init__()
        self.chomp_size = chomp_size

    def forward(self, x):
        return x[:, :, :-self.chomp_size].contiguous()


class TemporalBlock(nn.Module):
    def __init__(self, n_inputs, n_outputs, kernel_size, dilation):
        super().__init__()
        padding = (kernel_size - 1) * dilation
        self.conv1 = nn.Conv1d(n_inputs, n_outputs, kernel_size, padding=padding, dilation=dilation)
        self.chomp1 = Chomp1d(padding)
        self.net = nn.Sequential(self.conv1, self.chomp1, nn.ReLU())
        self.downsample = nn.Conv1d(n_inputs, n_outputs, 1) if n_inputs != n_outputs else None

    def forward(self, x):
        out = self.net(x)
        res = x if self.downsample is None else self.downsample(x)
        return F.relu(out + res)


class WaveNetLayer(nn.Module):
    def __init__(self, channels, skip, dilation):
        super().__init__()
        self.dilation = dilation
        self.filter = nn.Conv1d(channels, channels, 2, dilation=dilation)
        self.gate = nn.Conv1d(channels, channels, 2, dilation=dilation)
        self.res = nn.Conv1d(channels, channels, 1)
        self.skip = nn.Conv1d(channels, skip, 1)

    def forward(self, x):
        h = F.pad(x, (self.dilation, 0))
        z = torch.tanh(self.filter(h)) * torch.sigmoid(self.gate(h))
        return x + self.res(z), self.skip(z)


class WaveNet(nn.Module):
    def __init__(self, channels=4, skip=3, layers=4):
        super().__init__()
        self.inp = nn.Conv1d(1, channels, 1)
        self.layers = nn.ModuleList([WaveNetLayer(channels, skip, 2 ** i) for i in range(layers)])
        self.out = nn.Sequential(nn.ReLU(), nn.Conv1d(skip, 1, 1))

    def receptive_field(self):
        return 1 + sum(layer.dilation for layer in self.layers)

    def forward(self, x):
        x = self.inp(x)
        skips = 0
        for layer in self.layers:
            x, s = layer(x)
            skips = skips + s
        return self.out(skips)


t = torch.arange(48, dtype=torch.float32)
x = (torch.sin(t / 3) + 0.5 * torch.sin(t / 7)).view(1, 1, -1)

blk = det_(TemporalBlock(1, 3, 3, 2))
print("tcn block", tuple(blk(x).shape), blk.conv1.padding, blk.chomp1.chomp_size)
print(blk(x)[0, :, :5])
left = F.relu(F.conv1d(F.pad(x, (4, 0)), blk.conv1.weight, blk.conv1.bias, dilation=2))
print("chomp == left pad", torch.allclose(left, blk.net(x), atol=1e-6))

net = det_(WaveNet())
print("receptive field", net.receptive_field())
y = net(x)
print("wavenet", tuple(y.shape), y[0, 0, -4:])
probe = x.clone().requires_grad_(True)
net(probe)[0, 0, -1].backward()
touched = (probe.grad[0, 0] != 0).nonzero().flatten()
print("inputs reaching last output", touched.numel(), touched.min().item(), touched.max().item())
probe.grad = None
net(probe)[0, 0, 20].backward()
print("no future leak", bool((probe.grad[0, 0, 21:] == 0).all()))

# fast generation: queues of past activations per layer reproduce the full convolution
with torch.no_grad():
    full = net(x)
    queues = [torch.zeros(1, 4, layer.dilation) for layer in net.layers]
    outs = []
    for i in range(x.shape[-1]):
        h = net.inp(x[..., i:i + 1])
        skips = 0
        for k, layer in enumerate(net.layers):
            past = queues[k][..., :1]
            pair = torch.cat([past, h], dim=-1)
            z = torch.tanh(F.conv1d(pair, layer.filter.weight, layer.filter.bias)) * \
                torch.sigmoid(F.conv1d(pair, layer.gate.weight, layer.gate.bias))
            queues[k] = torch.cat([queues[k][..., 1:], h], dim=-1)
            skips = skips + layer.skip(z)
            h = h + layer.res(z)
        outs.append(net.out(skips))
    fast = torch.cat(outs, dim=-1)
print("queue generation matches", torch.allclose(fast, full, atol=1e-5), tuple(fast.shape))

wn = nn.utils.weight_norm(det_(nn.Conv1d(2, 3, 3)), name="weight")
print("weight_norm params", sorted(n for n, _ in wn.named_parameters()), tuple(wn.weight_g.shape))
with torch.no_grad():
    wn.weight_g.mul_(2.0)
inp = torch.cos(torch.arange(20.0)).view(1, 2, 10)
out_wn = wn(inp)
v = wn.weight_v
print("g*v/|v|", torch.allclose(wn.weight, wn.weight_g * v / v.norm(dim=(1, 2), keepdim=True)))
nn.utils.remove_weight_norm(wn)
print("removed", sorted(n for n, _ in wn.named_parameters()), torch.allclose(wn(inp), out_wn))
try:
    nn.utils.remove_weight_norm(wn)
except ValueError as e:
    print("ValueError", e)

scripted = torch.jit.script(det_(TemporalBlock(1, 2, 2, 1)))
print("scripted", type(scripted).__name__, torch.allclose(scripted(x), det_(TemporalBlock(1, 2, 2, 1))(x)))

for bad in (lambda: nn.Conv1d(2, 3, 3)(torch.zeros(1, 3, 10)), lambda: nn.Conv1d(1, 1, 5)(torch.zeros(1, 1, 3)),
            lambda: nn.Conv1d(1, 1, 3, dilation=0), lambda: F.conv1d(torch.zeros(1, 1, 8), torch.zeros(1, 1, 2, 2))):
    try:
        bad()
    except (RuntimeError, ValueError) as e:
        print(type(e).__name__, e)
