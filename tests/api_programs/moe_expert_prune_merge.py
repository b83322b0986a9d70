"""Shrinking a trained MoE as expert-pruning papers do: usage counts from a calibration pass, the least-used experts
deleted from the nn.ModuleList (del, pop, insert, extend, slicing) with the router's rows cut by index_select,
two similar experts merged by usage-weighted averaging (torch.lerp, cosine similarity of flattened weights), and
the module reprs, parameter counts and state_dict keys after each edit."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def expert(d=4, h=5):
    return nn.Sequential(nn.Linear(d, h), nn.GELU(), nn.Linear(h, d))


class MoE(nn.Module):
    def __init__(self, n=5, d=4):
        super().__init__()
        self.router = nn.Linear(d, n, bias=False)
        self.experts = nn.ModuleList(expert(d) for _ in range(n))

    def forward(self, x):
        w, idx = self.router(x).softmax(-1).topk(1, dim=-1)
        out = torch.zeros_like(x)
        for e in range(len(self.experts)):
            m = idx[:, 0] == e
            if m.any():
                out[m] = self.experts[e](x[m]) * w[m]
        return out, idx[:, 0]


torch.manual_seed(0)
moe = MoE()
with torch.no_grad():
    for i, p in enumerate(moe.parameters()):
        p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32).view_as(p) * (0.5 + 0.13 * i)))
x = torch.cos(torch.arange(40 * 4, dtype=torch.float32).view(40, 4) * 0.19)
_, idx = moe(x)
usage = torch.bincount(idx, minlength=5)
print("usage:", usage.tolist())
keep = usage.argsort(descending=True, stable=True)[:3].sort().values
print("keep:", keep.tolist())
print(moe.experts)

pruned = MoE()
pruned.load_state_dict(moe.state_dict())
with torch.no_grad():
    new_router = nn.Linear(4, len(keep), bias=False)
    new_router.weight.copy_(moe.router.weight.index_select(0, keep))
pruned.router = new_router
pruned.experts = nn.ModuleList(moe.experts[i] for i in keep.tolist())
y_p, idx_p = pruned(x)
print("pruned router:", pruned.router, "experts:", len(pruned.experts))
print("pruned usage:", torch.bincount(idx_p, minlength=3).tolist())
print("params before/after:", sum(p.numel() for p in moe.parameters()), sum(p.numel() for p in pruned.parameters()))
print("keys:", [k for k in pruned.state_dict() if k.endswith("0.weight")])

ml = nn.ModuleList(expert() for _ in range(4))
del ml[1]
popped = ml.pop(0)
ml.insert(0, nn.Identity())
ml.extend([nn.Tanh(), expert()])
ml.append(nn.ReLU())
print("list ops:", [type(m).__name__ for m in ml], len(ml), type(popped).__name__)
print("slice:", type(ml[1:3]).__name__, len(ml[1:3]), "negative:", type(ml[-1]).__name__)
print(ml)
try:
    ml[10]
except Exception as e:
    print(type(e).__name__, e)
try:
    ml.insert(1, "not a module")
except Exception as e:
    print(type(e).__name__, e)

# merge experts 0 and 1 (usage-weighted), keeping the router's rows summed in probability space
def flat(e):
    return torch.cat([p.flatten() for p in e.parameters()])


sims = torch.stack([torch.stack([F.cosine_similarity(flat(a), flat(b), dim=0) for b in moe.experts])
                    for a in moe.experts])
print("cosine similarity:\n", sims.round(decimals=4))
u = usage.float() + 1
merged = expert()
with torch.no_grad():
    for pm, p0, p1 in zip(merged.parameters(), moe.experts[0].parameters(), moe.experts[1].parameters()):
        pm.copy_(torch.lerp(p0, p1, u[1] / (u[0] + u[1])))
print("merged first bias:", merged[0].bias.round(decimals=4).tolist())
print("lerp tensor weight:", torch.lerp(torch.zeros(3), torch.ones(3), torch.tensor([0.0, 0.5, 2.0])).tolist())
print("get_submodule:", moe.get_submodule("experts.2.0"), moe.get_parameter("experts.4.2.bias").shape)
try:
    moe.get_submodule("experts.7")
except Exception as e:
    print(type(e).__name__, e)
