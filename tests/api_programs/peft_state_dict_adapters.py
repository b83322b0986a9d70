"""Saving and loading adapter-only checkpoints: key filtering, strict=False, missing/unexpected keys and errors."""

import io
import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class Adapter(nn.Module):
    def __init__(self, d, bottleneck=4):
        super().__init__()
        self.down = nn.Linear(d, bottleneck)
        self.up = nn.Linear(bottleneck, d)
        nn.init.zeros_(self.up.weight)
        nn.init.zeros_(self.up.bias)

    def forward(self, h):
        return h + self.up(F.relu(self.down(h)))


class Block(nn.Module):
    def __init__(self, d, with_adapter):
        super().__init__()
        self.ff = nn.Linear(d, d)
        self.ln = nn.LayerNorm(d)
        self.adapter = Adapter(d) if with_adapter else None

    def forward(self, h):
        h = self.ln(h + torch.relu(self.ff(h)))
        return self.adapter(h) if self.adapter is not None else h


def make(with_adapter):
    torch.manual_seed(0)
    return nn.Sequential(Block(8, with_adapter), Block(8, with_adapter))


model = make(True)
print(model[0])
for n, p in model.named_parameters():
    p.requires_grad_("adapter" in n)
x = torch.randn(4, 8)
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=0.1)
for _ in range(3):
    opt.zero_grad()
    model(x).pow(2).mean().backward()
    opt.step()

full = model.state_dict()
print(type(full).__name__, len(full))
adapter_sd = {k: v for k, v in full.items() if ".adapter." in k}
print(list(adapter_sd))
buf = io.BytesIO()
torch.save(adapter_sd, buf)
buf.seek(0)
loaded = torch.load(buf, weights_only=True)
print(type(loaded).__name__, sorted(loaded)[:2], loaded["0.adapter.up.bias"].dtype)

fresh = make(True)
res = fresh.load_state_dict(loaded, strict=False)
print(type(res).__name__)
print("missing", res.missing_keys)
print("unexpected", res.unexpected_keys)
print(res)
with torch.no_grad():
    print("same output", torch.allclose(fresh(x), model(x)))

base_only = make(False)
res2 = base_only.load_state_dict(full, strict=False)
print(res2)
print(res2.missing_keys == [], len(res2.unexpected_keys))
missing, unexpected = base_only.load_state_dict(full, strict=False)
print(len(missing), unexpected[:2])

try:
    base_only.load_state_dict(full)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    make(True).load_state_dict(adapter_sd)
except RuntimeError as e:
    print(type(e).__name__, str(e)[:300])

bad = dict(loaded)
bad["0.adapter.down.weight"] = torch.zeros(5, 8)
try:
    make(True).load_state_dict(bad, strict=False)
except RuntimeError as e:
    print(type(e).__name__, e)

# renamed keys (peft prefixes "base_model.model.") stripped before loading
prefixed = {"base_model.model." + k: v for k, v in adapter_sd.items()}
stripped = {k.removeprefix("base_model.model."): v for k, v in prefixed.items()}
print(fresh.load_state_dict(stripped, strict=False).unexpected_keys)
print(fresh.load_state_dict(prefixed, strict=False).unexpected_keys[:2])

# state_dict with prefix and keep_vars
sd_kv = model[0].adapter.state_dict(prefix="adapter0.", keep_vars=True)
print([(k, type(v).__name__, v.requires_grad) for k, v in sd_kv.items()])
sd_plain = model[0].adapter.state_dict()
print([(k, type(v).__name__, v.requires_grad) for k, v in sd_plain.items()])

# load_state_dict with assign=True keeps the loaded tensor objects
target = make(True)
t = {k: v.clone() for k, v in adapter_sd.items()}
target.load_state_dict(t, strict=False, assign=True)
print(
    "assigned",
    target[0].adapter.down.weight.data_ptr() == t["0.adapter.down.weight"].data_ptr(),
    type(target[0].adapter.down.weight).__name__,
    target[0].adapter.down.weight.requires_grad,
)

# a non-tensor value
try:
    make(True).load_state_dict({"0.ff.weight": [1, 2]}, strict=False)
except Exception as e:
    print(type(e).__name__, e)
try:
    make(True).load_state_dict([1, 2])
except Exception as e:
    print(type(e).__name__, e)
