"""d2l.ai's builders' guide: blocks (MLP, MySequential over add_module/_modules, FixedHiddenMLP with a constant
weight and control flow, NestMLP), parameter management (state_dict, named_parameters, .data/.grad, nested
access, built-in and custom init via apply), tied parameters, lazy initialization with nn.LazyLinear, custom
layers (CenteredLayer, MyLinear), and file I/O with torch.save/torch.load of tensors, lists, dicts, state dicts."""

import io
import os
import tempfile

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

rng = np.random.default_rng(5)


def randn(*shape, std=1.0):
    return torch.from_numpy((rng.standard_normal(shape) * std).astype(np.float32))


def r(t, k=6):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


def set_params(net):
    """Deterministic stand-in for PyTorch's default init."""
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(randn(*p.shape, std=0.3))
    return net


X = torch.from_numpy(rng.random((2, 20)).astype(np.float32))
net = set_params(nn.Sequential(nn.Linear(20, 256), nn.ReLU(), nn.Linear(256, 10)))
print(net(X).shape, r(net(X), 4))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.LazyLinear(256)
        self.out = nn.LazyLinear(10)

    def forward(self, X):
        return self.out(F.relu(self.hidden(X)))


net = MLP()
print(net)
print(type(net.hidden.weight).__name__, net.hidden.in_features)
net(X)
set_params(net)
print(net, type(net.hidden.weight).__name__, net.hidden.weight.shape, r(net(X), 4))


class MySequential(nn.Module):
    def __init__(self, *args):
        super().__init__()
        for idx, module in enumerate(args):
            self.add_module(str(idx), module)

    def forward(self, X):
        for module in self.children():
            X = module(X)
        return X


net = set_params(MySequential(nn.Linear(20, 256), nn.ReLU(), nn.Linear(256, 10)))
print(net, list(net._modules.keys()), r(net(X), 3))


class FixedHiddenMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.rand_weight = torch.from_numpy(rng.random((20, 20)).astype(np.float32))
        self.linear = nn.Linear(20, 20)

    def forward(self, X):
        X = self.linear(X)
        X = F.relu(X @ self.rand_weight + 1)
        X = self.linear(X)
        while X.abs().sum() > 1:
            X /= 2
        return X.sum()


net = set_params(FixedHiddenMLP())
print(round(net(X).item(), 4), [n for n, _ in net.named_parameters()], list(net.state_dict()))


class NestMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU())
        self.linear = nn.Linear(32, 16)

    def forward(self, X):
        return self.linear(self.net(X))


chimera = set_params(nn.Sequential(NestMLP(), nn.Linear(16, 20), FixedHiddenMLP()))
print(chimera, round(chimera(X).item(), 4))

# parameter management
net = set_params(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)))
X = torch.from_numpy(rng.random((2, 4)).astype(np.float32))
print(r(net(X)))
print(net[2].state_dict().keys(), r(net[2].state_dict()["weight"], 3))
print(type(net[2].bias).__name__, net[2].bias.dtype, net[2].bias.requires_grad)
print(net[2].bias.data, net[2].weight.grad is None)
print([(name, param.shape) for name, param in net.named_parameters()])
print(net.state_dict()["2.bias"].data, [k for k in net.state_dict()])


def init_normal(module):
    if type(module) is nn.Linear:
        nn.init.normal_(module.weight, mean=0, std=0.01)
        nn.init.zeros_(module.bias)


def init_constant(module):
    if type(module) is nn.Linear:
        nn.init.constant_(module.weight, 1)
        nn.init.zeros_(module.bias)


net.apply(init_normal)
print(net[0].weight.shape, r(net[0].bias), net[0].weight.abs().max().item() < 0.1)
net.apply(init_constant)
print(net[0].weight.data[0], net[0].bias.data[0])


def init_xavier(module):
    if type(module) is nn.Linear:
        nn.init.xavier_uniform_(module.weight)


def init_42(module):
    if type(module) is nn.Linear:
        nn.init.constant_(module.weight, 42)


net[0].apply(init_xavier)
net[2].apply(init_42)
bound = (6 / (4 + 8)) ** 0.5
print(net[0].weight.abs().max().item() <= bound, net[2].weight.data)


def my_init(module):
    if type(module) is nn.Linear:
        print("Init", *[(name, param.shape) for name, param in module.named_parameters()][0])
        with torch.no_grad():
            module.weight.copy_(randn(*module.weight.shape, std=6.0))
        module.weight.data *= module.weight.data.abs() >= 5


net.apply(my_init)
print(net[0].weight[:2])
net[0].weight.data[:] += 1
net[0].weight.data[0, 0] = 42
print(net[0].weight.data[0])

# tied parameters
shared = nn.Linear(8, 8)
net = set_params(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), shared, nn.ReLU(), shared, nn.ReLU(), nn.Linear(8, 1)))
net(X).sum().backward()
print(net[2].weight.data[0] == net[4].weight.data[0])
net[2].weight.data[0, 0] = 100
print(net[2].weight.data[0] == net[4].weight.data[0], net[4].weight[0, 0].item())
print(len(list(net.parameters())), len(net.state_dict()), sum(p.numel() for p in net.parameters()))
try:
    torch.optim.SGD(net, lr=0.1)  # the model instead of net.parameters()
except TypeError as e:
    print("TypeError:", e)
print(r(net[2].weight.grad, 4))

# lazy initialization
net = nn.Sequential(nn.LazyLinear(256), nn.ReLU(), nn.LazyLinear(10))
print(net[0].weight)
print(net[0])
try:
    net.state_dict()["0.weight"].shape
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
for mistake in (lambda: net[0].weight + 1, lambda: net[0].weight.numel(), lambda: net[2].bias == 0):
    try:
        mistake()
    except ValueError as e:
        print("ValueError:", str(e).splitlines()[0])
net(torch.zeros(2, 20))
print(net[0].weight.shape, net[2].weight.shape, net[0])


# custom layers
class CenteredLayer(nn.Module):
    def forward(self, X):
        return X - X.mean()


layer = CenteredLayer()
print(layer(torch.tensor([1.0, 2, 3, 4, 5])))
net = nn.Sequential(nn.LazyLinear(128), CenteredLayer())
Xc = torch.from_numpy(rng.random((4, 8)).astype(np.float32))
net(Xc)
Y = set_params(net)(Xc)
print(abs(Y.mean().item()) < 1e-5, net)


class MyLinear(nn.Module):
    def __init__(self, in_units, units):
        super().__init__()
        self.weight = nn.Parameter(randn(in_units, units))
        self.bias = nn.Parameter(randn(units))

    def forward(self, X):
        linear = torch.matmul(X, self.weight.data) + self.bias.data
        return F.relu(linear)


linear = MyLinear(5, 3)
print(linear.weight)
print(linear(torch.from_numpy(rng.random((2, 5)).astype(np.float32))))
net = nn.Sequential(MyLinear(64, 8), MyLinear(8, 1))
print(net(torch.from_numpy(rng.random((2, 64)).astype(np.float32))))

# file I/O
tmp = tempfile.mkdtemp()
x = torch.arange(4)
torch.save(x, os.path.join(tmp, "x-file"))
x2 = torch.load(os.path.join(tmp, "x-file"))
print(x2)
y = torch.zeros(4)
torch.save([x, y], os.path.join(tmp, "x-files"))
x2, y2 = torch.load(os.path.join(tmp, "x-files"))
print(x2, y2)
mydict = {"x": x, "y": y}
torch.save(mydict, os.path.join(tmp, "mydict"))
print(torch.load(os.path.join(tmp, "mydict")))
net = set_params(nn.Sequential(nn.Linear(20, 256), nn.ReLU(), nn.Linear(256, 10)))
X = torch.from_numpy(rng.random((2, 20)).astype(np.float32))
Y = net(X)
torch.save(net.state_dict(), os.path.join(tmp, "mlp.params"))
clone = nn.Sequential(nn.Linear(20, 256), nn.ReLU(), nn.Linear(256, 10))
print(clone.load_state_dict(torch.load(os.path.join(tmp, "mlp.params"))))
print(clone.eval())
print(clone(X) == Y)
buf = io.BytesIO()
torch.save({"epoch": 3, "model": net.state_dict(), "note": "d2l"}, buf)
buf.seek(0)
ck = torch.load(buf, weights_only=True)
print(sorted(ck), ck["epoch"], ck["model"]["2.bias"].shape)
try:
    clone.load_state_dict({"0.weight": torch.zeros(256, 20)})
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0])
try:
    clone.load_state_dict({**net.state_dict(), "2.bias": torch.zeros(11)})
except RuntimeError as e:
    print("RuntimeError:", " ".join(str(e).split()))
