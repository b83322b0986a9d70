"""Several named adapters on one layer: ModuleDict/ParameterDict bookkeeping, switching, disabling, weighted mixes."""

import contextlib
import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class MultiLoraLinear(nn.Module):
    def __init__(self, base):
        super().__init__()
        self.base_layer = base.requires_grad_(False)
        self.lora_A = nn.ModuleDict()
        self.lora_B = nn.ModuleDict()
        self.scaling = {}
        self.gates = nn.ParameterDict()
        self.active_adapters = []
        self.disable_adapters = False

    def update_layer(self, name, r, alpha):
        self.lora_A[name] = nn.Linear(self.base_layer.in_features, r, bias=False)
        self.lora_B[name] = nn.Linear(r, self.base_layer.out_features, bias=False)
        nn.init.normal_(self.lora_B[name].weight, std=0.1)
        self.scaling[name] = alpha / r
        self.gates[name] = nn.Parameter(torch.ones(1))
        self.active_adapters = [name]

    def set_adapter(self, names):
        if isinstance(names, str):
            names = [names]
        for n in names:
            if n not in self.lora_A:
                raise ValueError(f"Adapter {n} not found in {list(self.lora_A.keys())}")
        for key in self.lora_A:
            req = key in names
            self.lora_A[key].requires_grad_(req)
            self.lora_B[key].requires_grad_(req)
        self.active_adapters = names

    def delete_adapter(self, name):
        for d in (self.lora_A, self.lora_B, self.gates):
            del d[name]
        self.scaling.pop(name)
        self.active_adapters = [a for a in self.active_adapters if a != name]

    def forward(self, x):
        out = self.base_layer(x)
        if self.disable_adapters:
            return out
        for name in self.active_adapters:
            out = out + self.lora_B[name](self.lora_A[name](x)) * self.scaling[name] * self.gates[name]
        return out


@contextlib.contextmanager
def disable_adapter(layer):
    old = layer.disable_adapters
    layer.disable_adapters = True
    try:
        yield
    finally:
        layer.disable_adapters = old


layer = MultiLoraLinear(nn.Linear(6, 4))
layer.update_layer("default", 2, 4)
layer.update_layer("sql", 4, 8)
print(layer)
print(list(layer.lora_A.keys()), "sql" in layer.lora_A, len(layer.lora_B), layer.active_adapters)
print(layer.gates)
x = torch.randn(3, 6)
with torch.no_grad():
    outs = {}
    for name in ("default", "sql"):
        layer.set_adapter(name)
        outs[name] = layer(x)
    layer.set_adapter(["default", "sql"])
    both = layer(x)
    base = layer.base_layer(x)
print("additive", torch.allclose(both - base, (outs["default"] - base) + (outs["sql"] - base), atol=1e-6))
with disable_adapter(layer):
    print("disabled == base", torch.equal(layer(x), base))
print("re-enabled", torch.allclose(layer(x), both))
layer.set_adapter("sql")
print({n: p.requires_grad for n, p in layer.named_parameters()})
try:
    layer.set_adapter("nope")
except ValueError as e:
    print(type(e).__name__, e)

# weighted combination into a new adapter (cat)
w = {"default": 0.7, "sql": 0.3}
A = torch.cat([layer.lora_A[n].weight * (w[n] * layer.scaling[n]) ** 0.5 for n in w])
B = torch.cat([layer.lora_B[n].weight * (w[n] * layer.scaling[n]) ** 0.5 for n in w], dim=1)
layer.update_layer("mix", A.shape[0], A.shape[0])
with torch.no_grad():
    layer.lora_A["mix"].weight.copy_(A)
    layer.lora_B["mix"].weight.copy_(B)
    layer.set_adapter("mix")
    mixed = layer(x)
expect = base + 0.7 * (outs["default"] - base) + 0.3 * (outs["sql"] - base)
print("mix", tuple(A.shape), tuple(B.shape), torch.allclose(mixed, expect, atol=1e-5))

layer.delete_adapter("default")
print(list(layer.lora_A), list(layer.gates), list(layer.scaling))
try:
    layer.lora_A["default"]
except KeyError as e:
    print(type(e).__name__, e)
print(sorted(layer.state_dict())[:5])

# ModuleDict / ParameterDict API
md = nn.ModuleDict([("b", nn.ReLU()), ("a", nn.Tanh())])
md.update({"c": nn.GELU()})
print(list(md.keys()), [type(v).__name__ for v in md.values()], md.pop("b"), len(md))
pd = nn.ParameterDict({"x": nn.Parameter(torch.zeros(2)), "y": torch.ones(3)})
pd["z"] = torch.ones(1, 2)
print(pd)
print(type(pd["y"]).__name__, pd["y"].requires_grad, type(pd["z"]).__name__)
print(pd.get("missing", "dflt"), list(pd.keys()), "x" in pd)
pd.setdefault("w", nn.Parameter(torch.full((2,), 3.0)))
print(pd.pop("x").tolist(), list(pd))
print(nn.ParameterList([nn.Parameter(torch.ones(2, 2)), torch.zeros(3)]))
try:
    md["bad"] = torch.ones(1)
except TypeError as e:
    print(type(e).__name__, e)
try:
    nn.ModuleDict({"x.y": nn.ReLU()})
except KeyError as e:
    print(type(e).__name__, e)
try:
    md.update([("only_one",)])
except ValueError as e:
    print(type(e).__name__, e)
try:
    md.update(5)
except TypeError as e:
    print(type(e).__name__, e)
