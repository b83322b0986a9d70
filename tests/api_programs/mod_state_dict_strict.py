"""Checkpoint loading as libraries do it: strict=False with the missing/unexpected keys result, assign=True,
non-persistent buffers, extra state, shape mismatches and the errors of strict loading."""

import warnings

import torch
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)
        self.register_buffer("running", torch.zeros(d))
        self.register_buffer("scratch", torch.ones(d), persistent=False)
        self.calls = 0

    def get_extra_state(self):
        return {"calls": self.calls, "tag": "block"}

    def set_extra_state(self, state):
        self.calls = state["calls"] + 100

    def forward(self, x):
        self.calls += 1
        return self.norm(self.proj(x)) + self.running


class Net(nn.Module):
    def __init__(self, d=4, n=2):
        super().__init__()
        self.blocks = nn.ModuleList(Block(d) for _ in range(n))
        self.head = nn.Linear(d, 2)

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.head(x)


net = Net()
x = torch.randn(3, 4)
print("out", net(x))
sd = net.state_dict()
for k, v in sd.items():
    if isinstance(v, torch.Tensor):
        print(k, tuple(v.shape), v.dtype, v.requires_grad)
    else:
        print(k, "extra", v)
print("scratch in sd:", any("scratch" in k for k in sd))
print("buffers:", [n for n, _ in net.named_buffers()])
print("sd is ordered:", type(sd).__name__)

# load into a fresh model; extra state passes through set_extra_state
fresh = Net()
res = fresh.load_state_dict(sd)
print(res)
print("missing", res.missing_keys, "unexpected", res.unexpected_keys)
print("calls after load", [b.calls for b in fresh.blocks])
print("same out", torch.allclose(fresh(x), net(x)))

# a checkpoint from a wider architecture: drop the head, add keys
partial = {k: v for k, v in sd.items() if not k.startswith("head")}
partial["extra.weight"] = torch.zeros(1)
fresh2 = Net()
res = fresh2.load_state_dict(partial, strict=False)
print(res)
print("missing", sorted(res.missing_keys))
print("unexpected", res.unexpected_keys)
print("tuple unpack:", len(tuple(res)))

try:
    Net().load_state_dict(partial)
except RuntimeError as e:
    print("strict:", str(e))

# shape mismatch is an error even when not strict
bad = dict(sd)
bad["head.weight"] = torch.zeros(3, 4)
try:
    Net().load_state_dict(bad, strict=False)
except RuntimeError as e:
    print("shape:", str(e))

# assign=True keeps the checkpoint's tensors (and their requires_grad from the module's params)
src = {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in sd.items()}
tgt = Net()
tgt.load_state_dict(src, assign=True)
print("assigned is src:", tgt.head.weight.data_ptr() == src["head.weight"].data_ptr())
print("param type", type(tgt.head.weight).__name__, tgt.head.weight.requires_grad)
tgt2 = Net()
tgt2.load_state_dict(src)
print("copied is src:", tgt2.head.weight.data_ptr() == src["head.weight"].data_ptr())

# prefixes: loading a submodule's slice of a state dict
blk = Block(4)
sub = {k[len("blocks.1."):]: v for k, v in sd.items() if k.startswith("blocks.1.")}
print(sorted(sub))
print(blk.load_state_dict(sub))
print("blk.calls", blk.calls)
print("running", blk.running)

# keep_vars and prefix arguments
kv = net.head.state_dict(prefix="model.head.", keep_vars=True)
print({k: (type(v).__name__, v.requires_grad) for k, v in kv.items()})
print("detached:", net.head.state_dict()["weight"].requires_grad)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    legacy = net.head.state_dict(None, "old.", True)
print(list(legacy), [(w.category.__name__, str(w.message)[:45]) for w in caught])

# a dtype change on load: values are copied and cast into the parameter's dtype
half = {k: (v.double() if isinstance(v, torch.Tensor) and v.is_floating_point() else v) for k, v in sd.items()}
m = Net()
m.load_state_dict(half)
print("dtype after load", m.head.weight.dtype, m.head.bias)

# a non-tensor value for a parameter key
try:
    Net().load_state_dict({**sd, "head.bias": [1.0, 2.0]})
except Exception as e:
    print(type(e).__name__, str(e))

# errors for non-mapping input
try:
    Net().load_state_dict([1, 2])
except TypeError as e:
    print("TypeError", e)
