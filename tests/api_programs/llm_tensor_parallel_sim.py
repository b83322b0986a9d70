"""Megatron-style tensor parallelism simulated in one process: column- and row-parallel linears built from weight
shards (chunk/tensor_split/narrow), the all-reduce as a sum over ranks, a vocab-parallel embedding with masked
lookups, vocab-parallel cross-entropy (max/sum-exp all-reduces), sharded checkpoints merged back with cat, and
ZeRO-style flat-parameter partitioning with parameters_to_vector/vector_to_parameters."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import parameters_to_vector, vector_to_parameters

torch.set_printoptions(precision=4, sci_mode=False)
WORLD = 2
D, HID, V, T = 8, 12, 10, 5


def det(shape, a, b=0.0):
    n = 1
    for s in shape:
        n *= s
    return torch.cos(torch.arange(n, dtype=torch.float32) * a + b).reshape(shape) * 0.5


x = det((T, D), 0.3)
w1, b1 = det((HID, D), 0.11), det((HID,), 0.7)
w2, b2 = det((D, HID), 0.19, 1.0), det((D,), 0.9)
ref = F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2)

# column-parallel first linear (split output features), row-parallel second (split input features)
w1_shards = w1.chunk(WORLD, dim=0)
b1_shards = b1.chunk(WORLD, dim=0)
w2_shards = torch.tensor_split(w2, WORLD, dim=1)
print("shard shapes:", [tuple(s.shape) for s in w1_shards], [tuple(s.shape) for s in w2_shards])
print("shards are views:", w1_shards[1]._base is w1, w1_shards[1].is_contiguous(), w2_shards[1].is_contiguous())
partials = []
for r in range(WORLD):
    h = F.gelu(F.linear(x, w1_shards[r], b1_shards[r]))
    partials.append(F.linear(h, w2_shards[r]))
out = torch.stack(partials).sum(0) + b2  # all-reduce, bias added once
print("MLP tensor-parallel == dense:", torch.allclose(out, ref, atol=1e-6))
print("partial norms:", [round(p.norm().item(), 4) for p in partials])

# attention heads split across ranks: qkv column-parallel by head groups
H, hd = 4, 2
wqkv = det((3 * H * hd, D), 0.07, 0.5)
q, k, v = F.linear(x, wqkv).view(T, 3, H, hd).unbind(1)
full = F.scaled_dot_product_attention(q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1), is_causal=True)
per_rank = []
for r in range(WORLD):
    rows = torch.cat([wqkv.view(3, H, hd, D)[i, r * H // WORLD:(r + 1) * H // WORLD] for i in range(3)])
    qr, kr, vr = F.linear(x, rows.reshape(-1, D)).view(T, 3, H // WORLD, hd).unbind(1)
    per_rank.append(F.scaled_dot_product_attention(qr.transpose(0, 1), kr.transpose(0, 1), vr.transpose(0, 1),
                                                   is_causal=True))
print("heads split == full:", torch.allclose(torch.cat(per_rank, 0), full, atol=1e-6))

# vocab-parallel embedding
emb = det((V, D), 0.13, 0.2)
ids = torch.tensor([[1, 7, 3, 9, 0], [5, 5, 2, 8, 6]])
per = V // WORLD
looked = torch.zeros(*ids.shape, D)
for r in range(WORLD):
    start, end = r * per, (r + 1) * per
    mask = (ids < start) | (ids >= end)
    local = (ids - start).masked_fill(mask, 0)
    part = F.embedding(local, emb.narrow(0, start, per))
    part[mask] = 0.0
    looked += part
print("vocab-parallel embedding == F.embedding:", torch.equal(looked, F.embedding(ids, emb)))

# vocab-parallel cross entropy
logits = det((T, V), 0.37) * 6
target = torch.tensor([3, 7, 0, 9, 4])
shards = logits.split(per, dim=-1)
gmax = torch.stack([s.max(-1).values for s in shards]).max(0).values  # all-reduce MAX
sum_exp = sum((s - gmax[:, None]).exp().sum(-1) for s in shards)  # all-reduce SUM
pred = torch.zeros(T)
for r, s in enumerate(shards):
    start = r * per
    in_range = (target >= start) & (target < start + per)
    local_t = (target - start).clamp(0, per - 1)
    picked = s.gather(1, local_t[:, None]).squeeze(1) - gmax
    pred += torch.where(in_range, picked, torch.zeros_like(picked))
vp_loss = (sum_exp.log() - pred)
print("vocab-parallel CE:", vp_loss, torch.allclose(vp_loss, F.cross_entropy(logits, target, reduction="none"),
                                                    atol=1e-5))

# sharded checkpoints merged back
model = nn.Sequential(nn.Linear(D, HID), nn.GELU(), nn.Linear(HID, D))
with torch.no_grad():
    model[0].weight.copy_(w1)
    model[0].bias.copy_(b1)
    model[2].weight.copy_(w2)
    model[2].bias.copy_(b2)
rank_sds = []
for r in range(WORLD):
    rank_sds.append({"0.weight": w1_shards[r].clone(), "0.bias": b1_shards[r].clone(),
                     "2.weight": w2_shards[r].clone(), "2.bias": b2.clone()})
merged = {"0.weight": torch.cat([sd["0.weight"] for sd in rank_sds], 0),
          "0.bias": torch.cat([sd["0.bias"] for sd in rank_sds], 0),
          "2.weight": torch.cat([sd["2.weight"] for sd in rank_sds], 1),
          "2.bias": rank_sds[0]["2.bias"]}
fresh = nn.Sequential(nn.Linear(D, HID), nn.GELU(), nn.Linear(HID, D))
print("merge load:", fresh.load_state_dict(merged))
print("merged model == dense:", torch.allclose(fresh(x), ref, atol=1e-6))

# ZeRO-1 style over 3 ranks: flatten, pad to a multiple of the world size, each rank owns a slice
ZERO_WORLD = 3
flat = parameters_to_vector(model.parameters())
numel = flat.numel()
pad = (-numel) % ZERO_WORLD
flat_padded = F.pad(flat, (0, pad))
owned = flat_padded.view(ZERO_WORLD, -1)
print("numel:", numel, "pad:", pad, "slice:", owned.shape[1])
grads = det((numel,), 0.05)
for r in range(ZERO_WORLD):
    sl = slice(r * owned.shape[1], (r + 1) * owned.shape[1])
    owned[r] -= 0.1 * F.pad(grads, (0, pad))[sl]
gathered = owned.flatten()[:numel]  # all-gather
vector_to_parameters(gathered, fresh.parameters())
print("after update:", round(parameters_to_vector(fresh.parameters()).sum().item(), 4),
      torch.allclose(parameters_to_vector(fresh.parameters()), flat - 0.1 * grads, atol=1e-6))
try:
    vector_to_parameters(gathered[:-1], fresh.parameters())
except RuntimeError as e:
    print("RuntimeError:", str(e)[:90])
try:
    w2.tensor_split(0, dim=1)
except (RuntimeError, ValueError) as e:
    print(type(e).__name__, e)
print("tensor_split by indices:", [t.shape[1] for t in w2.tensor_split([3, 7], dim=1)],
      "uneven chunk:", [t.shape[0] for t in torch.arange(7).chunk(3)])
