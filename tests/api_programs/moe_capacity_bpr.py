"""Capacity handling as V-MoE and Switch code compare it: positions in expert buffers computed in arrival order and
in Batch Prioritized Routing order (argsort of the top gate, descending and stable, undone by the inverse
permutation), tokens beyond capacity dropped with torch.where and passed through, buffers filled by index_put_ and
masked_scatter, and drop rates over a sweep of capacity factors."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
N, E, D = 16, 4, 3
logits = torch.sin(torch.arange(N * E, dtype=torch.float32).view(N, E) * 0.9) * 2
logits[:, 2] += 0.8  # expert 2 is popular
x = torch.cos(torch.arange(N * D, dtype=torch.float32).view(N, D) * 0.7)
probs = logits.softmax(-1)
gate, expert = probs.max(-1)
print("expert:", expert.tolist())
print("gate:", gate.round(decimals=4).tolist())


def positions(expert_ids, order=None):
    if order is not None:
        expert_ids = expert_ids[order]
    onehot = F.one_hot(expert_ids, E)
    pos = ((onehot.cumsum(0) - 1) * onehot).sum(-1)
    if order is not None:
        pos = pos[torch.argsort(order)]
    return pos


pos_arrival = positions(expert)
priority = torch.argsort(gate, descending=True, stable=True)
pos_bpr = positions(expert, priority)
print("priority order:", priority.tolist())
print("pos arrival:", pos_arrival.tolist())
print("pos bpr:", pos_bpr.tolist())

for cf in (0.5, 0.75, 1.0, 1.5):
    cap = math.ceil(cf * N / E)
    keep_a, keep_b = pos_arrival < cap, pos_bpr < cap
    print(f"cf {cf} cap {cap} drop arrival {(~keep_a).float().mean().item():.4f} "
          f"bpr {(~keep_b).float().mean().item():.4f} kept gate mass arrival {(gate * keep_a).sum().item():.4f} "
          f"bpr {(gate * keep_b).sum().item():.4f}")

cap = math.ceil(0.75 * N / E)
keep = pos_bpr < cap
buf = torch.zeros(E, cap, D)
buf.index_put_((expert[keep], pos_bpr[keep]), x[keep])
print("buffer fill:", (buf.abs().sum(-1) > 0).sum(1).tolist())
buf2 = torch.zeros(E, cap, D)
slot_mask = torch.zeros(E, cap, dtype=torch.bool)
slot_mask[expert[keep], pos_bpr[keep]] = True
order = (expert[keep] * cap + pos_bpr[keep]).argsort()
buf2.masked_scatter_(slot_mask.unsqueeze(-1).expand(-1, -1, D), x[keep][order])
print("masked_scatter == index_put_:", torch.equal(buf, buf2))

processed = torch.tanh(buf) * 2
combined = torch.where(keep.unsqueeze(-1), processed[expert, pos_bpr.clamp(max=cap - 1)] * gate[:, None], x)
print("dropped pass through:", torch.equal(combined[~keep], x[~keep]), "dropped:", (~keep).nonzero().flatten().tolist())
print("combined[:3]:", combined[:3].round(decimals=4).tolist())
print("masked_select of kept gates:", gate.masked_select(keep).round(decimals=4).tolist()[:5])

# per-expert overflow counts and the "capacity if nothing dropped"
load = torch.bincount(expert, minlength=E)
print("load:", load.tolist(), "overflow:", (load - cap).clamp(min=0).tolist(),
      "needed cf:", round(load.max().item() * E / N, 4))
ranks = torch.zeros(N, dtype=torch.long)
ranks[priority] = torch.arange(N)
print("rank of each token:", ranks.tolist())

for bad in (lambda: buf.index_put_((expert, pos_bpr), x),
            lambda: buf2.masked_scatter_(slot_mask.unsqueeze(-1).expand(-1, -1, D), x[:2]),
            lambda: torch.where(keep, x, 0.0),
            lambda: torch.argsort(gate, stable=True, dim=1)):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
