"""Module bookkeeping as library code does it: shared modules and tied weights with remove_duplicate=False,
apply, requires_grad_, zero_grad, train/eval propagation, reprs with extra_repr, ModuleDict/ParameterDict/
ParameterList operations, and copy.deepcopy keeping ties."""

import copy

import torch
from torch import nn

torch.manual_seed(10)
torch.set_printoptions(precision=4)


class Scale(nn.Module):
    def __init__(self, n, init=1.0):
        super().__init__()
        self.n = n
        self.gain = nn.Parameter(torch.full((n,), init))

    def extra_repr(self):
        return f"n={self.n}, init={self.gain[0].item():.2f}"

    def forward(self, x):
        return x * self.gain


class Tied(nn.Module):
    def __init__(self, vocab=6, d=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.shared = Scale(d, 0.5)
        self.enc = nn.Sequential(self.shared, nn.Dropout(0.1), self.shared)
        self.out = nn.Linear(d, vocab, bias=False)
        self.out.weight = self.emb.weight

    def forward(self, idx):
        return self.out(self.enc(self.emb(idx)))


m = Tied()
print(m)
print([n for n, _ in m.named_parameters()])
print([n for n, _ in m.named_parameters(remove_duplicate=False)])
print([n for n, _ in m.named_modules()])
print([n for n, _ in m.named_modules(remove_duplicate=False)])
print([n for n, _ in m.named_children()])
print(sum(p.numel() for p in m.parameters()), sum(p.numel() for _, p in m.named_parameters(remove_duplicate=False)))
print(list(m.state_dict().keys()))
print("tied", m.out.weight is m.emb.weight)

# train/eval propagate
m.eval()
print([mod.training for mod in m.modules()])
m.enc.train()
print(m.training, m.enc.training, m.enc[1].training, m.emb.training)
m.train(False)
print(m.enc[1].training)

# apply, requires_grad_, zero_grad
visited = []
m.apply(lambda mod: visited.append(type(mod).__name__))
print(visited)


@torch.no_grad()
def init(mod):
    if isinstance(mod, nn.Embedding):
        mod.weight.copy_(torch.arange(24.0).view(6, 4) / 10)
    elif isinstance(mod, Scale):
        mod.gain.fill_(2.0)


print(m.apply(init) is m)
print(m.out.weight[1], m.shared)
m.emb.requires_grad_(False)
print([(n, p.requires_grad) for n, p in m.named_parameters()])
m.requires_grad_()
idx = torch.tensor([[0, 5, 2]])
m(idx).sum().backward()
print("emb grad", m.emb.weight.grad.sum(1))
print("gain grad", m.shared.gain.grad)
m.zero_grad()
print("after zero_grad", m.emb.weight.grad)
m(idx).sum().backward()
m.zero_grad(set_to_none=False)
print("set_to_none False", m.shared.gain.grad)

# ModuleDict
heads = nn.ModuleDict({"cls": nn.Linear(4, 3), "reg": nn.Linear(4, 1)})
heads["aux"] = Scale(4)
heads.update([("reg", nn.Identity()), ("box", nn.Linear(4, 4))])
print(heads)
print(list(heads.keys()), len(heads), "cls" in heads)
popped = heads.pop("aux")
print(type(popped).__name__, list(heads))
print([type(v).__name__ for v in heads.values()])
try:
    heads["bad.name"] = nn.ReLU()
except KeyError as e:
    print("KeyError", e)
try:
    nn.ModuleDict({"x": 3})
except TypeError as e:
    print("TypeError", e)
for bad in (3, [3], [("k",)]):
    for cls in (nn.ModuleDict, nn.ParameterDict):
        try:
            cls().update(bad)
        except (TypeError, ValueError) as e:
            print(type(e).__name__, e)

# ParameterDict / ParameterList
pd = nn.ParameterDict({"alpha": nn.Parameter(torch.ones(2)), "beta": torch.zeros(3)})
pd["gamma"] = torch.tensor([0.5])
pd.update({"delta": nn.Parameter(torch.full((1,), 4.0))})
print(pd)
print(sorted(pd.keys()), type(pd["beta"]).__name__, pd["beta"].requires_grad)
print(pd.get("zeta", "missing"), "alpha" in pd, len(pd))
pd2 = pd.copy()
print(pd2["alpha"] is pd["alpha"])
print(pd.pop("gamma"), list(pd.keys()))
merged = pd | {"eps": torch.zeros(2)}
print(type(merged).__name__, list(merged), list(pd), type({"eps": torch.zeros(2)} | pd).__name__)
pd |= nn.ParameterDict({"eps": nn.Parameter(torch.ones(1))})
print(list(reversed(pd)), pd.popitem()[0], list(pd))
pl = nn.ParameterList([torch.ones(2, 2), nn.Parameter(torch.zeros(3))])
pl.append(torch.randn(1))
pl.extend([nn.Parameter(torch.full((2,), 7.0))])
print(pl)
print(len(pl), [tuple(p.shape) for p in pl], pl[-1])
print([n for n, _ in nn.ModuleDict({"pd": pd, "pl": pl}).named_parameters()])

# deepcopy keeps ties and sharing within the copy, not with the original
c = copy.deepcopy(m)
print("copy tied", c.out.weight is c.emb.weight, c.enc[0] is c.enc[2] is c.shared)
print("independent", c.emb.weight is m.emb.weight, torch.equal(c.emb.weight, m.emb.weight))
with torch.no_grad():
    c.emb.weight.zero_()
print(round(m.emb.weight.abs().sum().item(), 4), c.out.weight.abs().sum().item())
print("grad copied", c.shared.gain.grad)

# __repr__ for empty containers and nested with repeats
print(nn.Sequential())
print(nn.Sequential(*[nn.Linear(2, 2) for _ in range(3)], nn.ReLU(), nn.ReLU()))
print(nn.ModuleList([Scale(2), Scale(2), Scale(3)]))
print(repr(nn.ParameterList()), repr(nn.ModuleDict()))

# get_submodule / get_parameter / delattr
print(m.get_submodule("enc.1"), m.get_parameter("shared.gain").shape)
try:
    m.get_submodule("enc.7")
except AttributeError as e:
    print("AttributeError", e)
del m.enc[1]
print(m.enc)
