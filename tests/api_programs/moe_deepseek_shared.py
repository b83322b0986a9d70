"""DeepSeek-V3-style MoE: always-on shared experts beside fine-grained routed ones, sigmoid affinities with an
auxiliary-loss-free selection bias updated by the sign of the load error, node-limited (group) routing with
topk over group scores and masked_fill, normalised top-k weights with a routed scaling factor, and the
sequence-wise balance loss computed with scatter_add_ per sequence."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Gate(nn.Module):
    def __init__(self, dim=8, n_routed=8, top_k=2, n_groups=4, topk_groups=2, route_scale=2.5):
        super().__init__()
        self.n, self.k, self.g, self.kg, self.scale = n_routed, top_k, n_groups, topk_groups, route_scale
        self.weight = nn.Parameter(torch.cos(torch.arange(n_routed * dim, dtype=torch.float32).view(n_routed, dim)
                                             * 0.41))
        self.register_buffer("bias", torch.zeros(n_routed))

    def forward(self, x):
        scores = F.linear(x, self.weight).sigmoid()
        original = scores
        scores = scores + self.bias
        group_scores = scores.view(x.size(0), self.g, -1).topk(2, dim=-1)[0].sum(dim=-1)
        groups = group_scores.topk(self.kg, dim=-1)[1]
        mask = scores.new_ones(x.size(0), self.g, dtype=torch.bool).scatter_(1, groups, False)
        scores = scores.view(x.size(0), self.g, -1).masked_fill_(mask.unsqueeze(-1), float("-inf")).flatten(1)
        indices = torch.topk(scores, self.k, dim=-1)[1]
        weights = original.gather(1, indices)
        weights = weights / weights.sum(dim=-1, keepdim=True)
        return (weights * self.scale).type_as(x), indices, original


class MLP(nn.Module):
    def __init__(self, dim, inter):
        super().__init__()
        self.w1 = nn.Linear(dim, inter, bias=False)
        self.w2 = nn.Linear(inter, dim, bias=False)
        self.w3 = nn.Linear(dim, inter, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class MoE(nn.Module):
    def __init__(self, dim=8, n_routed=8, n_shared=1, inter=4):
        super().__init__()
        self.n = n_routed
        self.gate = Gate(dim, n_routed)
        self.experts = nn.ModuleList(MLP(dim, inter) for _ in range(n_routed))
        self.shared = MLP(dim, n_shared * inter)

    def forward(self, x):
        shape = x.size()
        x = x.view(-1, shape[-1])
        weights, indices, scores = self.gate(x)
        y = torch.zeros_like(x)
        counts = torch.bincount(indices.flatten(), minlength=self.n).tolist()
        for i in range(self.n):
            if counts[i] == 0:
                continue
            idx, top = torch.where(indices == i)
            y[idx] += self.experts[i](x[idx]) * weights[idx, top, None]
        return (y + self.shared(x)).view(shape), indices, scores, counts


torch.manual_seed(0)
moe = MoE()
for i, p in enumerate(moe.parameters()):
    if p.dim() == 2 and p is not moe.gate.weight:
        with torch.no_grad():
            p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32).view_as(p) * (0.1 + 0.01 * i)) * 0.3)
B, S = 2, 6
x = torch.sin(torch.arange(B * S * 8, dtype=torch.float32).view(B, S, 8) * 0.53)
y, idx, scores, counts = moe(x)
print("y:", tuple(y.shape), y[0, 0].round(decimals=4).tolist())
print("indices:", idx.tolist())
print("counts:", counts)

# aux-loss-free balancing: nudge the selection bias against the load error, for several batches
gamma = 0.05
for step in range(5):
    _, idx, scores, counts = moe(x)
    load = torch.tensor(counts, dtype=torch.float32)
    err = load.mean() - load
    moe.gate.bias += gamma * torch.sign(err)
    print(f"step {step} load {load.int().tolist()} max/mean {(load.max() / load.mean()).item():.3f}")
print("bias:", moe.gate.bias.round(decimals=4).tolist())

# sequence-wise balance loss: f_i per sequence from scatter_add_, P_i from normalised affinities
alpha = 1e-3
_, idx, scores, _ = moe(x)
K, N = 2, 8
idx_seq = idx.view(B, S * K)
f = torch.zeros(B, N).scatter_add_(1, idx_seq, torch.ones(B, S * K)) * N / (K * S)
p = (scores / scores.sum(-1, keepdim=True)).view(B, S, N).mean(1)
seq_loss = alpha * (f * p).sum(-1).mean()
print("f:", f.round(decimals=4).tolist())
print("seq balance loss:", round(seq_loss.item(), 6))
one_hot_f = F.one_hot(idx_seq, N).sum(1).float() * N / (K * S)
print("one_hot agrees:", torch.equal(one_hot_f, f))

y, _, _, _ = moe(x)
y.sum().backward()
print("shared grad:", moe.shared.w1.weight.grad.abs().sum().round(decimals=4).item(),
      "gate grad:", moe.gate.weight.grad.abs().sum().round(decimals=4).item(), "bias grad:", moe.gate.bias.grad)
print("routed without grads:", [i for i, e in enumerate(moe.experts) if e.w1.weight.grad is None])
print("buffers:", [n for n, _ in moe.named_buffers()], "params:", sum(p.numel() for p in moe.parameters()))
try:
    moe.gate.weight.view(4, -1, 3)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.zeros(B, N).scatter_add_(1, idx_seq, torch.ones(B, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.zeros(B, N).scatter_add_(1, idx_seq.int(), torch.ones(B, S * K))
except Exception as e:
    print(type(e).__name__, e)
