"""Grouped-GEMM MoE dispatch as MegaBlocks/vLLM-style code writes it on the CPU: tokens replicated per choice with
repeat_interleave, sorted by expert (torch.sort stable with indices), split by counts, padded to a block size,
offsets by cumsum/searchsorted/bucketize, experts run group by group, and the inverse permutation by argsort and
by scatter_ to put the outputs back."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
T, D, E, H, K, BLOCK = 9, 4, 4, 6, 2, 4
x = torch.cos(torch.arange(T * D, dtype=torch.float32).view(T, D) * 0.31)
logits = torch.sin(torch.arange(T * E, dtype=torch.float32).view(T, E) * 0.77) * 2
w_up = torch.sin(torch.arange(E * D * 2 * H, dtype=torch.float32).view(E, D, 2 * H) * 0.05) * 0.5
w_down = torch.cos(torch.arange(E * H * D, dtype=torch.float32).view(E, H, D) * 0.09) * 0.5

weights, experts = torch.topk(logits.softmax(-1), K, dim=-1)
weights = weights / weights.sum(-1, keepdim=True)
print("experts:", experts.tolist())

flat_experts = experts.flatten()
token_ids = torch.arange(T).repeat_interleave(K)
print("token ids:", token_ids.tolist())
sorted_experts, perm = torch.sort(flat_experts, stable=True)
print("sorted experts:", sorted_experts.tolist())
print("perm:", perm.tolist())
counts = torch.bincount(flat_experts, minlength=E)
offsets = torch.cumsum(counts, 0)
starts = F.pad(offsets[:-1], (1, 0))
print("counts:", counts.tolist(), "starts:", starts.tolist(), "ends:", offsets.tolist())

# which expert owns sorted slot i: searchsorted over the end offsets
slot = torch.arange(T * K)
owner = torch.searchsorted(offsets, slot, right=True)
print("owner == sorted experts:", torch.equal(owner, sorted_experts))
owner_b = torch.bucketize(slot, offsets, right=True)
print("bucketize agrees:", torch.equal(owner_b, owner), owner_b.dtype)
print("bucketize int32:", torch.bucketize(slot[:5], offsets, out_int32=True).dtype,
      torch.searchsorted(offsets, torch.tensor([3, 9]), side="left").tolist())

gathered = x[token_ids[perm]]
groups = torch.split(gathered, counts.tolist())
print("group shapes:", [tuple(g.shape) for g in groups])
outs = []
for e, g in enumerate(groups):
    gate, up = (g @ w_up[e]).chunk(2, dim=-1)
    outs.append((F.silu(gate) * up) @ w_down[e])
y_sorted = torch.cat(outs)

# MegaBlocks-style padding of every group to a multiple of BLOCK, then one batched matmul over blocks
padded_counts = (counts + BLOCK - 1) // BLOCK * BLOCK
print("padded counts:", padded_counts.tolist(), "blocks:", (padded_counts // BLOCK).tolist())
pad_starts = F.pad(torch.cumsum(padded_counts, 0)[:-1], (1, 0))
rank_in_group = slot - starts[sorted_experts]
dest = pad_starts[sorted_experts] + rank_in_group
buf = gathered.new_zeros(int(padded_counts.sum()), D)
buf[dest] = gathered
block_expert = torch.repeat_interleave(torch.arange(E), padded_counts // BLOCK)
print("block expert:", block_expert.tolist())
blocks = buf.view(-1, BLOCK, D)
gate, up = torch.bmm(blocks, w_up[block_expert]).chunk(2, dim=-1)
yb = torch.bmm(F.silu(gate) * up, w_down[block_expert]).reshape(-1, D)[dest]
print("blocked == grouped:", torch.allclose(yb, y_sorted, atol=1e-6))

inv = torch.argsort(perm)
inv2 = torch.empty_like(perm).scatter_(0, perm, torch.arange(T * K))
print("inverse perms agree:", torch.equal(inv, inv2), inv[:6].tolist())
y_unsorted = y_sorted[inv].view(T, K, D)
y = (y_unsorted * weights.unsqueeze(-1)).sum(1)
print("y:", y[:2].round(decimals=4).tolist())

# reference: loop over tokens
ref = torch.zeros(T, D)
for t in range(T):
    for j in range(K):
        e = experts[t, j]
        gate, up = (x[t] @ w_up[e]).chunk(2)
        ref[t] += weights[t, j] * ((F.silu(gate) * up) @ w_down[e])
print("matches reference:", torch.allclose(y, ref, atol=1e-5))
print("repeat_interleave output_size:", torch.repeat_interleave(counts, output_size=int(counts.sum())).tolist())
print("splits from tensor_split:", [t.tolist() for t in torch.tensor_split(sorted_experts, offsets[:-1])])

for bad in (lambda: torch.repeat_interleave(torch.tensor([1, -1])),
            lambda: torch.searchsorted(offsets.float(), slot),
            lambda: torch.bucketize(slot, offsets.view(2, 2)),
            lambda: torch.sort(flat_experts, stable=True, dim=1),
            lambda: y_sorted[inv].view(T, 3, D)):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
