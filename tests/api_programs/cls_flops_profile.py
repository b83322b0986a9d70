"""Counting the cost of classic CNNs as papers report it: torch.utils.flop_counter.FlopCounterMode per module and per
ATen op (forward, backward, a training step), a thop-style MACs counter from forward hooks checked against it,
parameter and activation-memory budgets, the saving of conv+bn fusion and of depthwise-separable convolutions."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

rng = np.random.default_rng(4)


def fill_(model):
    with torch.no_grad():
        for p in model.parameters():
            std = (1.0 / p[0].numel()) ** 0.5 if p.dim() > 1 else 0.1
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * std))
    return model


def show(fc, depth=9):
    counts = fc.get_flop_counts()
    for mod in sorted(counts):
        if mod.count(".") >= depth:
            continue
        ops = sorted((str(op), n) for op, n in counts[mod].items())
        print(f"  {mod:28s} {sum(n for _, n in ops):>10,d} {ops}")


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class TinyResNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True))
        self.layer1 = BasicBlock(8, 8)
        self.layer2 = BasicBlock(8, 16, stride=2)
        self.head = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 4 * 4, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


def hook_macs(model, x):
    total = {"conv": 0, "linear": 0}

    def conv_hook(m, inp, out):
        total["conv"] += out.numel() * (m.in_channels // m.groups) * m.kernel_size[0] * m.kernel_size[1]

    def linear_hook(m, inp, out):
        total["linear"] += inp[0].numel() // inp[0].shape[-1] * m.in_features * m.out_features

    hs = [m.register_forward_hook(conv_hook) for m in model.modules() if isinstance(m, nn.Conv2d)]
    hs += [m.register_forward_hook(linear_hook) for m in model.modules() if isinstance(m, nn.Linear)]
    with torch.no_grad():
        model(x)
    for h in hs:
        h.remove()
    return total


lenet = fill_(LeNet()).eval()
x = torch.from_numpy(rng.standard_normal((1, 1, 28, 28)).astype(np.float32))
with FlopCounterMode(display=False) as fc:
    with torch.no_grad():
        out = lenet(x)
print("lenet total", fc.get_total_flops(), "GFLOPs %.6f" % (fc.get_total_flops() / 1e9))
show(fc)
macs = hook_macs(lenet, x)
print("hook MACs", macs, "2*MACs == flops", 2 * sum(macs.values()) == fc.get_total_flops())
print("params", sum(p.numel() for p in lenet.parameters()), "out", tuple(out.shape))

net = fill_(TinyResNet()).eval()
img = torch.from_numpy(rng.standard_normal((2, 3, 16, 16)).astype(np.float32))
with FlopCounterMode(display=False) as fc:
    with torch.no_grad():
        net(img)
fwd = fc.get_total_flops()
print("resnet forward", fwd)
show(fc, depth=2)
print("hook agrees", 2 * sum(hook_macs(net, img).values()) == fwd)

net.train()
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
with FlopCounterMode(display=False) as fc:
    loss = F.cross_entropy(net(img), torch.tensor([1, 7]))
    loss.backward()
    opt.step()
    opt.zero_grad()
train = fc.get_total_flops()
print("train step", train, "ratio to forward %.3f" % (train / fwd))
g = {str(k): v for k, v in fc.get_flop_counts()["Global"].items()}
print("global ops", sorted(g.items()))
print("stem backward", sorted((str(k), v) for k, v in fc.get_flop_counts()["TinyResNet.stem.0"].items()))

img.requires_grad_(True)
with FlopCounterMode(display=False) as fc:
    net(img).sum().backward()
print("with input grad", fc.get_total_flops(), fc.get_total_flops() - train)
img.requires_grad_(False)

with FlopCounterMode(display=False) as fc:
    net.layer2.conv1.weight.requires_grad_(False)
    net(img).sum().backward()
print("frozen conv saves", train - fc.get_total_flops(),
      sorted((str(k), v) for k, v in fc.get_flop_counts()["TinyResNet.layer2.conv1"].items()))
net.layer2.conv1.weight.requires_grad_(True)

full = nn.Conv2d(16, 32, 3, padding=1, bias=False)
separable = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1, groups=16, bias=False), nn.Conv2d(16, 32, 1, bias=False))
z = torch.zeros(1, 16, 8, 8)
costs = {}
for name, m in (("full", full), ("separable", separable)):
    with FlopCounterMode(display=False) as fc:
        m(z)
    costs[name] = (fc.get_total_flops(), sum(p.numel() for p in m.parameters()))
print("conv costs", costs, "saving %.3f" % (costs["full"][0] / costs["separable"][0]))

lin = nn.Linear(12, 5)
seq_in = torch.zeros(3, 4, 12)
with FlopCounterMode(display=False) as fc:
    lin(seq_in)
    lin(seq_in[0])
    torch.matmul(seq_in, lin.weight.t())
    torch.einsum("bsi,oi->bso", seq_in, lin.weight)
    torch.bmm(seq_in, seq_in.transpose(1, 2))
print("linear-ish", sorted((str(k), v) for k, v in fc.get_flop_counts()["Global"].items()))
print("Linear module", sorted((str(k), v) for k, v in fc.get_flop_counts()["Linear"].items()))

act_bytes = []
hs = [m.register_forward_hook(lambda m, i, o: act_bytes.append(o.numel() * o.element_size()))
      for m in net.modules() if isinstance(m, (nn.Conv2d, nn.BatchNorm2d, nn.Linear))]
with torch.no_grad():
    net.eval()(img)
for h in hs:
    h.remove()
print("activation KiB %.3f" % (sum(act_bytes) / 1024), "param KiB %.3f" % (
    sum(p.numel() * p.element_size() for p in net.parameters()) / 1024), len(act_bytes))
