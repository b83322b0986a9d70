"""State-dict hooks as libraries use them to rename, convert and validate checkpoints: _register_state_dict_hook,
register_state_dict_pre_hook, register_state_dict_post_hook, load_state_dict pre/post hooks and removal."""

from collections import OrderedDict

import torch
from torch import nn

torch.manual_seed(1)
torch.set_printoptions(precision=4)


class Attn(nn.Module):
    """Stores q/k/v fused as one `qkv` tensor in checkpoints, three Linears in memory."""

    def __init__(self, d=4):
        super().__init__()
        self.q = nn.Linear(d, d, bias=False)
        self.k = nn.Linear(d, d, bias=False)
        self.v = nn.Linear(d, d, bias=False)
        self._register_state_dict_hook(Attn._fuse)
        self._register_load_state_dict_pre_hook(Attn._split)

    @staticmethod
    def _fuse(module, state_dict, prefix, local_metadata):
        parts = [state_dict.pop(prefix + n + ".weight") for n in "qkv"]
        state_dict[prefix + "qkv"] = torch.cat(parts, 0)
        local_metadata["fused"] = True

    @staticmethod
    def _split(state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        if prefix + "qkv" in state_dict:
            for n, w in zip("qkv", state_dict.pop(prefix + "qkv").chunk(3)):
                state_dict[prefix + n + ".weight"] = w


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = Attn()
        self.out = nn.Linear(4, 3)

    def forward(self, x):
        a = self.attn
        return self.out(a.q(x) * a.k(x).sigmoid() + a.v(x))


m = Model()
x = torch.randn(2, 4)
print(m(x))
sd = m.state_dict()
print(list(sd.keys()))
print("qkv", tuple(sd["attn.qkv"].shape), sd["attn.qkv"][0])
meta = sd._metadata
print({k: v for k, v in meta.items()})

m2 = Model()
print(m2.load_state_dict(sd))
print("same", torch.allclose(m(x), m2(x)))

# module-level pre hook, post hooks on state_dict and load_state_dict
log = []


def pre(module, prefix, keep_vars):
    log.append(("pre", type(module).__name__, prefix, keep_vars))


def post(module, state_dict, prefix, local_metadata):
    log.append(("post", prefix, len(state_dict)))
    state_dict[prefix + "version_tag"] = torch.tensor(7)


h1 = m.out.register_state_dict_pre_hook(pre)
h2 = m.out.register_state_dict_post_hook(post)
sd = m.state_dict(keep_vars=False)
print(log)
print(list(sd.keys()))
print("tag", sd["out.version_tag"])
h1.remove()
h2.remove()
log.clear()
print(list(m.state_dict().keys()), log)

# load post hook: inspect and edit incompatible keys
seen = []


def load_post(module, incompatible_keys):
    seen.append((type(module).__name__, list(incompatible_keys.missing_keys), list(incompatible_keys.unexpected_keys)))
    unexpected = incompatible_keys.unexpected_keys
    unexpected[:] = [k for k in unexpected if not k.endswith("version_tag")]


hp = m2.register_load_state_dict_post_hook(load_post)
print(m2.load_state_dict(sd))
print(seen)
res = m2.load_state_dict({**sd, "junk": torch.zeros(1)}, strict=False)
print(res)
hp.remove()
try:
    m2.load_state_dict(sd)
except RuntimeError as e:
    print(e)


# public load pre hook (module, state_dict, prefix, ...) renaming an old key
def rename(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
    old = prefix + "W"
    if old in state_dict:
        state_dict[prefix + "weight"] = state_dict.pop(old)


lin = nn.Linear(3, 2)
lin.register_load_state_dict_pre_hook(rename)
old = {"W": torch.arange(6.0).view(2, 3), "bias": torch.tensor([0.5, -0.5])}
print(lin.load_state_dict(old))
print(lin.weight.data, lin.bias.data)


# the load pre hook sees local_metadata version and can upgrade
class Versioned(nn.Module):
    _version = 2

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(2))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        version = local_metadata.get("version", None)
        print("loading version", version)
        if version is None or version < 2:
            state_dict[prefix + "scale"] = state_dict.pop(prefix + "gain") * 2
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing, unexpected, errors)


v = Versioned()
sd = v.state_dict()
print(sd._metadata)
print(v.load_state_dict(sd))
old = OrderedDict(gain=torch.tensor([1.5, 2.5]))
old._metadata = OrderedDict({"": {"version": 1}})
print(v.load_state_dict(old), v.scale.data)
print(v.load_state_dict({"gain": torch.tensor([3.0, 4.0])}), v.scale.data)

# a load post hook must edit the keys in place, not return them
strict_lin = nn.Linear(2, 2)
strict_lin.register_load_state_dict_post_hook(lambda module, keys: keys)
try:
    strict_lin.load_state_dict(nn.Linear(2, 2).state_dict())
except AssertionError as e:
    print("AssertionError", e)
