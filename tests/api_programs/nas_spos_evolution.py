"""Single-path one-shot NAS: a supernet whose layers each pick one of several choice blocks, uniform path sampling
during training, BatchNorm recalibration per sampled subnet (reset_running_stats, momentum=None for a cumulative
average), and an evolutionary search with mutation, crossover and a FLOPs constraint, all on a seeded generator."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
CHOICES = [(3, 1), (5, 1), (3, 2), "skip"]
MACS = {0: 9, 1: 25, 2: 9, 3: 0}


class Choice(nn.Module):
    def __init__(self, c, k, d):
        super().__init__()
        self.conv = nn.Conv2d(c, c, k, padding=d * (k // 2), dilation=d, bias=False)
        self.bn = nn.BatchNorm2d(c)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class SuperNet(nn.Module):
    def __init__(self, c=6, layers=3):
        super().__init__()
        self.stem = nn.Conv2d(1, c, 3, padding=1)
        self.layers = nn.ModuleList(
            nn.ModuleList(nn.Identity() if ch == "skip" else Choice(c, *ch) for ch in CHOICES) for _ in range(layers))
        self.head = nn.Linear(c, 3)

    def forward(self, x, arch):
        x = self.stem(x)
        for layer, i in zip(self.layers, arch):
            x = layer[i](x)
        return self.head(x.mean((2, 3)))


net = SuperNet()
X, Y = torch.randn(32, 1, 6, 6), torch.randint(0, 3, (32,))
Xv, Yv = torch.randn(16, 1, 6, 6), torch.randint(0, 3, (16,))
gen = torch.Generator().manual_seed(42)
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=4e-5)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 1 - s / 10)
for step in range(10):
    arch = torch.randint(0, len(CHOICES), (3,), generator=gen).tolist()
    loss = F.cross_entropy(net(X, arch), Y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    touched = [i for i, layer in enumerate(net.layers[0]) if any(p.grad is not None for p in layer.parameters())]
    opt.step()
    sched.step()
    print(step, arch, round(loss.item(), 4), touched, round(sched.get_last_lr()[0], 4))


def recalibrate(arch, batches=2):
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.reset_running_stats()
            m.momentum = None
    net.train()
    with torch.no_grad():
        for b in range(batches):
            net(X[b * 16:(b + 1) * 16], arch)
    net.eval()


def evaluate(arch):
    recalibrate(arch)
    with torch.no_grad():
        return (net(Xv, arch).argmax(1) == Yv).float().mean().item()


recalibrate([0, 0, 0])
bn = net.layers[0][0].bn
print("bn after recalib", bn.num_batches_tracked.item(), bn.momentum, bn.running_mean.round(decimals=4).tolist())
with torch.no_grad():
    full_mean = net.layers[0][0].conv(net.stem(X)).mean((0, 2, 3))
print("cumulative == full batch mean", torch.allclose(bn.running_mean, full_mean, atol=1e-5),
      bn.num_batches_tracked.item(), bn.training)


def flops(arch):
    return sum(MACS[i] for i in arch)


def mutate(arch, prob=0.3):
    mask = torch.rand(len(arch), generator=gen) < prob
    new = torch.randint(0, len(CHOICES), (len(arch),), generator=gen)
    return torch.where(mask, new, torch.tensor(arch)).tolist()


def crossover(a, b):
    pick = torch.randint(0, 2, (len(a),), generator=gen).bool()
    return torch.where(pick, torch.tensor(a), torch.tensor(b)).tolist()


population = [torch.randint(0, 4, (3,), generator=gen).tolist() for _ in range(6)]
population = [a for a in population if flops(a) <= 50]
cache = {}
for gen_i in range(3):
    for a in population:
        if tuple(a) not in cache:
            cache[tuple(a)] = evaluate(a)
    ranked = sorted(population, key=lambda a: (-cache[tuple(a)], flops(a), a))
    top = ranked[:3]
    print("gen", gen_i, [(a, round(cache[tuple(a)], 4), flops(a)) for a in top])
    children = []
    while len(children) < 4:
        i, j = torch.randint(0, len(top), (2,), generator=gen).tolist()
        child = mutate(crossover(top[i], top[j]))
        if flops(child) <= 50 and child not in children:
            children.append(child)
    population = top + children
print("evaluated", len(cache), "best", max(cache.items(), key=lambda kv: (kv[1], -flops(kv[0]))))
print("generator state", gen.get_state().shape, gen.initial_seed())
try:
    net(X, [0, 9, 0])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.randint(0, 4, (3,), generator=torch.Generator(device="meta"))
except Exception as e:
    print(type(e).__name__, e)
