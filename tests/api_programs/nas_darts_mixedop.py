"""DARTS search cell: mixed operations weighted by a softmax over architecture parameters, the first-order
bilevel loop with one optimizer for the weights and one for the alphas, and the genotype read off the alphas."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
PRIMITIVES = ["none", "skip_connect", "avg_pool_3x3", "max_pool_3x3", "sep_conv_3x3", "dil_conv_3x3"]


class Zero(nn.Module):
    def forward(self, x):
        return x.mul(0.0)


class SepConv(nn.Module):
    def __init__(self, c, k, dilation=1):
        super().__init__()
        pad = dilation * (k - 1) // 2
        self.op = nn.Sequential(nn.ReLU(inplace=False),
                                nn.Conv2d(c, c, k, padding=pad, dilation=dilation, groups=c, bias=False),
                                nn.Conv2d(c, c, 1, bias=False), nn.BatchNorm2d(c, affine=False))

    def forward(self, x):
        return self.op(x)


def make_op(name, c):
    return {"none": lambda: Zero(), "skip_connect": lambda: nn.Identity(),
            "avg_pool_3x3": lambda: nn.AvgPool2d(3, stride=1, padding=1, count_include_pad=False),
            "max_pool_3x3": lambda: nn.MaxPool2d(3, stride=1, padding=1),
            "sep_conv_3x3": lambda: SepConv(c, 3), "dil_conv_3x3": lambda: SepConv(c, 3, dilation=2)}[name]()


class MixedOp(nn.Module):
    def __init__(self, c):
        super().__init__()
        self._ops = nn.ModuleList(make_op(p, c) for p in PRIMITIVES)

    def forward(self, x, weights):
        return sum(w * op(x) for w, op in zip(weights, self._ops))


class Cell(nn.Module):
    def __init__(self, c, steps=2):
        super().__init__()
        self.steps = steps
        self.edges = nn.ModuleList(MixedOp(c) for i in range(steps) for _ in range(2 + i))

    def forward(self, s0, s1, weights):
        states, offset = [s0, s1], 0
        for i in range(self.steps):
            s = sum(self.edges[offset + j](h, weights[offset + j]) for j, h in enumerate(states))
            offset += len(states)
            states.append(s)
        return torch.cat(states[-self.steps:], dim=1)


class Network(nn.Module):
    def __init__(self, c=4, n_cls=3):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, c, 3, padding=1, bias=False), nn.BatchNorm2d(c))
        self.cell = Cell(c)
        self.head = nn.Linear(2 * c, n_cls)
        k = sum(2 + i for i in range(2))
        self.alphas_normal = nn.Parameter(1e-3 * torch.randn(k, len(PRIMITIVES)))

    def weights(self):
        return [p for n, p in self.named_parameters() if "alphas" not in n]

    def arch_parameters(self):
        return [self.alphas_normal]

    def forward(self, x):
        s = self.stem(x)
        out = self.cell(s, s, F.softmax(self.alphas_normal, dim=-1))
        return self.head(F.adaptive_avg_pool2d(out, 1).flatten(1))


net = Network()
print("weights", sum(p.numel() for p in net.weights()), "alphas", tuple(net.alphas_normal.shape))
w_opt = torch.optim.SGD(net.weights(), lr=0.05, momentum=0.9, weight_decay=3e-4, nesterov=True)
a_opt = torch.optim.Adam(net.arch_parameters(), lr=0.3, betas=(0.5, 0.999), weight_decay=1e-3)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(w_opt, T_max=6, eta_min=1e-3)
xt, yt = torch.randn(8, 1, 6, 6), torch.randint(0, 3, (8,))
xv, yv = torch.randn(8, 1, 6, 6), torch.randint(0, 3, (8,))
for epoch in range(6):
    a_opt.zero_grad()
    lv = F.cross_entropy(net(xv), yv)
    lv.backward()
    a_opt.step()
    w_opt.zero_grad()
    lt = F.cross_entropy(net(xt), yt)
    lt.backward()
    nn.utils.clip_grad_norm_(net.weights(), 5.0)
    w_opt.step()
    sched.step()
    print(epoch, round(lt.item(), 4), round(lv.item(), 4), round(sched.get_last_lr()[0], 5))

probs = F.softmax(net.alphas_normal, dim=-1)
print("alpha probs", probs.round(decimals=4).tolist())
print("alpha grad none?", net.alphas_normal.grad is None, "sum", round(net.alphas_normal.grad.abs().sum().item(), 4))
print("entropy", (-(probs * probs.log()).sum(-1)).round(decimals=4).tolist())


def genotype(weights, steps=2):
    gene, start, n = [], 0, 2
    none = PRIMITIVES.index("none")
    for i in range(steps):
        w = weights[start:start + n].clone()
        w[:, none] = -1.0
        best, idx = w.max(dim=1)
        edges = best.topk(2).indices.tolist()
        gene += [(PRIMITIVES[int(idx[j])], j) for j in sorted(edges)]
        start += n
        n += 1
    return gene


print("genotype", genotype(probs.detach()))
print("argmax", probs.argmax(dim=-1).tolist())
state = a_opt.state[net.alphas_normal]
print("adam state", sorted(state.keys()), int(state["step"]), tuple(state["exp_avg"].shape))
try:
    MixedOp(4)(torch.randn(1, 4, 3, 3), F.softmax(torch.zeros(5), 0))
    print("zip truncates silently")
except Exception as e:
    print(type(e).__name__, e)
try:
    F.softmax(net.alphas_normal, dim=2)
except Exception as e:
    print(type(e).__name__, e)

# PC-DARTS: only 1/k of the channels go through the mixed op, then channels are shuffled back together
k = 2
feat = torch.randn(2, 4, 5, 5)
xa, xb = torch.split(feat, [4 // k, 4 - 4 // k], dim=1)
mixed = MixedOp(4 // k)(xa, F.softmax(torch.zeros(len(PRIMITIVES)), 0))
pc = F.channel_shuffle(torch.cat([mixed, xb], dim=1), k)
print("pc-darts", tuple(pc.shape), torch.equal(pc[:, 1::2], xb), nn.ChannelShuffle(k))
for bad in [(torch.ones(3), 0), (torch.ones(1, 6, 2), -2), (torch.ones(1, 6, 2), 4)]:
    try:
        F.channel_shuffle(*bad)
    except Exception as e:
        print(type(e).__name__, e)
