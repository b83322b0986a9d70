"""Padding-aware routing statistics: pad tokens masked out of the router and the losses, per-expert gate
statistics by scatter_reduce (sum/mean/amax/amin/prod, include_self both ways), index_reduce_, segment_reduce
over tokens sorted by expert, take_along_dim for the chosen gates, count_nonzero per expert, index_fill_
to disable an expert, and put_ with accumulate for a flat load counter."""

import torch
import torch.nn.functional as F

B, S, E, K = 3, 5, 4, 2
lengths = torch.tensor([5, 3, 2])
mask = torch.arange(S)[None, :] < lengths[:, None]
print("mask:\n", mask.int())
logits = torch.sin(torch.arange(B * S * E, dtype=torch.float32).view(B, S, E) * 0.83) * 2
logits = logits.masked_fill(~mask[..., None], 0.0)
probs = logits.softmax(-1)
topv, topi = probs.topk(K, dim=-1)
valid_i = topi[mask]
valid_v = topv[mask]
print("valid tokens:", valid_i.shape[0], "choices:", valid_i.tolist())
print("nonzero as tuple:", [t.tolist() for t in mask.nonzero(as_tuple=True)])

flat_e = valid_i.flatten()
flat_g = valid_v.flatten()
for reduce in ("sum", "mean", "amax", "amin", "prod"):
    for include_self in (True, False):
        init = torch.ones(E) if reduce == "prod" else torch.zeros(E)
        r = init.scatter_reduce(0, flat_e, flat_g, reduce=reduce, include_self=include_self)
        print(f"{reduce:>4} include_self={include_self!s:>5}:", r.round(decimals=4).tolist())
ir = torch.full((E,), -1.0).index_reduce_(0, flat_e, flat_g, "amax", include_self=False)
print("index_reduce_ amax:", ir.round(decimals=4).tolist())
ir_mean = torch.zeros(E).index_reduce_(0, flat_e, flat_g, "mean")
print("index_reduce_ mean (include_self):", ir_mean.round(decimals=4).tolist())

order = torch.argsort(flat_e, stable=True)
counts = torch.bincount(flat_e, minlength=E)
seg_sum = torch.segment_reduce(flat_g[order], "sum", lengths=counts)
seg_max = torch.segment_reduce(flat_g[order], "max", lengths=counts, unsafe=True)
print("segment sum:", seg_sum.round(decimals=4).tolist(), "segment max:", seg_max.round(decimals=4).tolist())
offsets = F.pad(counts.cumsum(0), (1, 0))
seg_mean = torch.segment_reduce(flat_g[order], "mean", offsets=offsets)
print("segment mean by offsets:", seg_mean.round(decimals=4).tolist())

chosen = torch.take_along_dim(probs, topi, dim=-1)
print("take_along_dim == topk values:", torch.equal(chosen, topv))
per_expert = F.one_hot(topi, E).sum(2) * mask[..., None]
print("count_nonzero per expert:", torch.count_nonzero(per_expert, dim=(0, 1)).tolist())
print("tokens per sequence and expert:\n", per_expert.sum(1))

# disable expert 2 (e.g. after a failure) by filling its router column with -inf before the softmax
dead = logits.clone().index_fill_(-1, torch.tensor([2]), float("-inf"))
new_i = dead.softmax(-1).topk(K, dim=-1).indices[mask]
print("expert 2 still used:", (new_i == 2).any().item(),
      "load now:", torch.bincount(new_i.flatten(), minlength=E).tolist())

counter = torch.zeros(B, E, dtype=torch.long)
seq_of_token = torch.arange(B)[:, None].expand(B, S)[mask]
flat_index = (seq_of_token[:, None] * E + valid_i).flatten()
counter.put_(flat_index, torch.ones_like(flat_index), accumulate=True)
print("put_ accumulate:", counter.tolist())

aux_tokens = probs[mask].mean(0)
frac = F.one_hot(valid_i[:, 0], E).float().mean(0)
print("aux over real tokens:", round((E * (aux_tokens * frac).sum()).item(), 4))
masked_ce = F.cross_entropy(logits.view(-1, E), topi[..., 0].masked_fill(~mask, -100).view(-1), ignore_index=-100)
print("masked ce:", round(masked_ce.item(), 4))

for bad in (lambda: torch.zeros(E).scatter_reduce(0, flat_e, flat_g, reduce="max"),
            lambda: torch.segment_reduce(flat_g[order], "sum", lengths=counts[:2]),
            lambda: torch.zeros(E).index_reduce_(0, flat_e, flat_g, "sum"),
            lambda: counter.put_(torch.tensor([100]), torch.tensor([1])),
            lambda: torch.take_along_dim(probs, topi[..., :1].squeeze(-1), dim=-1)):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
