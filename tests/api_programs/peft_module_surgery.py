"""Injecting adapters by module replacement: named_modules/setattr, get/set_submodule, and the errors on the way."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class Attn(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.q_proj = nn.Linear(d, d, bias=False)
        self.k_proj = nn.Linear(d, d, bias=False)
        self.v_proj = nn.Linear(d, d, bias=False)
        self.o_proj = nn.Linear(d, d, bias=False)

    def forward(self, x):
        q, k, v = self.q_proj(x), self.k_proj(x), self.v_proj(x)
        return self.o_proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class Model(nn.Module):
    def __init__(self, d=8, n=2):
        super().__init__()
        self.layers = nn.ModuleList([nn.ModuleDict({"attn": Attn(d), "mlp": nn.Linear(d, d)}) for _ in range(n)])
        self.lm_head = nn.Linear(d, 5)

    def forward(self, x):
        for blk in self.layers:
            x = x + blk["attn"](x)
            x = x + F.silu(blk["mlp"](x))
        return self.lm_head(x)


class LoraLinear(nn.Module):
    def __init__(self, base, r=2):
        super().__init__()
        self.base_layer = base
        self.lora_A = nn.ModuleDict({"default": nn.Linear(base.in_features, r, bias=False)})
        self.lora_B = nn.ModuleDict({"default": nn.Linear(r, base.out_features, bias=False)})
        nn.init.zeros_(self.lora_B["default"].weight)

    def forward(self, x):
        return self.base_layer(x) + self.lora_B["default"](self.lora_A["default"](x))


def _get_submodules(model, key):
    parent = model.get_submodule(".".join(key.split(".")[:-1]))
    target_name = key.split(".")[-1]
    target = model.get_submodule(key)
    return parent, target, target_name


model = Model()
x = torch.randn(2, 4, 8)
before = model(x)
target_modules = ["q_proj", "v_proj"]
key_list = [key for key, _ in model.named_modules()]
replaced = []
for key in key_list:
    if not any(key.endswith(t) for t in target_modules):
        continue
    parent, target, name = _get_submodules(model, key)
    setattr(parent, name, LoraLinear(target))
    replaced.append(key)
print(replaced)
print(model.layers[0]["attn"].q_proj)
print("same output", torch.allclose(model(x), before, atol=1e-6))
for n, p in model.named_parameters():
    p.requires_grad = "lora_" in n
print(sum(p.numel() for p in model.parameters() if p.requires_grad), sum(p.numel() for p in model.parameters()))
print([n for n, _ in model.named_modules() if n.endswith("lora_A")])

# set_submodule / get_submodule / get_parameter
model.set_submodule("layers.1.mlp", nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.0)))
print(model.layers[1]["mlp"])
print(model.get_parameter("layers.0.attn.q_proj.lora_A.default.weight").shape)
try:
    model.get_submodule("layers.0.attn.nope")
except AttributeError as e:
    print(type(e).__name__, e)
try:
    model.get_submodule("layers.5")
except Exception as e:
    print(type(e).__name__, e)
try:
    model.get_parameter("layers.0.attn.q_proj")
except AttributeError as e:
    print(type(e).__name__, e)
try:
    model.get_parameter("lm_head.nope")
except AttributeError as e:
    print(type(e).__name__, e)
try:
    model.set_submodule("lm_head.x.y", nn.Identity())
except AttributeError as e:
    print(type(e).__name__, e)
try:
    model.set_submodule("lm_head.weight", nn.Identity())
except AttributeError as e:
    print(type(e).__name__, e)
try:
    model.set_submodule("", nn.Identity())
except ValueError as e:
    print(type(e).__name__, e)

# attribute assignment rules
lin = nn.Linear(3, 3)
try:
    lin.weight = torch.zeros(3, 3)
except TypeError as e:
    print(type(e).__name__, e)
try:
    lin.add_module("a.b", nn.Identity())
except KeyError as e:
    print(type(e).__name__, e)
try:
    lin.add_module("weight", nn.Identity())
except KeyError as e:
    print(type(e).__name__, e)
try:
    lin.register_parameter("", nn.Parameter(torch.ones(1)))
except KeyError as e:
    print(type(e).__name__, e)
try:
    lin.register_buffer("bias", torch.ones(3))
except KeyError as e:
    print(type(e).__name__, e)
try:
    lin.register_parameter("p", torch.ones(1))
except TypeError as e:
    print(type(e).__name__, e)
try:
    lin.add_module("m", torch.ones(1))
except TypeError as e:
    print(type(e).__name__, e)
try:
    lin.register_module("sub", "x")
except TypeError as e:
    print(type(e).__name__, e)
lin.weight = None
print("weight None", lin.weight, [n for n, _ in lin.named_parameters()])
del lin.bias
print(hasattr(lin, "bias"), list(lin.state_dict()))
try:
    lin(torch.ones(3))
except Exception as e:
    print(type(e).__name__, e)

# duplicate (shared) modules
shared = nn.Linear(2, 2)
tied = nn.Sequential(shared, nn.ReLU(), shared)
print([n for n, _ in tied.named_modules()], [n for n, _ in tied.named_modules(remove_duplicate=False)])
print([n for n, _ in tied.named_parameters()], [n for n, _ in tied.named_parameters(remove_duplicate=False)])
print(len(list(tied.parameters())), [n for n, _ in tied.named_children()])
print(list(dict(model.named_parameters(prefix="model", recurse=True)).keys())[:2])
print([n for n, _ in model.lm_head.named_parameters(recurse=False)])
print(model.layers[0]["attn"].q_proj.lora_A)
