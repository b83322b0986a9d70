"""Mixture-of-experts routing as Mixtral/Switch/DeepSeek code writes it: softmax-then-topk and topk-then-softmax
gates, token dispatch by argsort/bincount and by one_hot masks, combining with index_add_ and scatter_add_, expert
capacity with dropped tokens, the Switch load-balancing loss, the router z-loss, and gradients into the router."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)


def fill_(module, salt):
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(torch.cos(torch.arange(p.numel(), dtype=torch.float32) * (0.17 + 0.05 * i) + salt).view_as(p)
                    * 0.4)


class Expert(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class SparseMoE(nn.Module):
    def __init__(self, dim=8, hidden=12, n_experts=4, top_k=2):
        super().__init__()
        self.n_experts, self.top_k = n_experts, top_k
        self.gate = nn.Linear(dim, n_experts, bias=False)
        self.experts = nn.ModuleList(Expert(dim, hidden) for _ in range(n_experts))

    def forward(self, x):
        B, T, D = x.shape
        x = x.view(-1, D)
        router_logits = self.gate(x)
        routing_weights = F.softmax(router_logits, dim=1, dtype=torch.float)
        routing_weights, selected = torch.topk(routing_weights, self.top_k, dim=-1)
        routing_weights = routing_weights / routing_weights.sum(dim=-1, keepdim=True)
        routing_weights = routing_weights.to(x.dtype)
        out = torch.zeros((B * T, D), dtype=x.dtype)
        expert_mask = F.one_hot(selected, num_classes=self.n_experts).permute(2, 1, 0)
        for e, expert in enumerate(self.experts):
            idx, top_x = torch.where(expert_mask[e])
            if top_x.numel() == 0:
                continue
            current = x[None, top_x].reshape(-1, D)
            h = expert(current) * routing_weights[top_x, idx, None]
            out.index_add_(0, top_x, h.to(x.dtype))
        return out.reshape(B, T, D), router_logits


torch.manual_seed(0)
moe = SparseMoE()
for i, m in enumerate(moe.modules()):
    if isinstance(m, nn.Linear):
        fill_(m, float(i))
x = torch.sin(torch.arange(2 * 5 * 8, dtype=torch.float32).reshape(2, 5, 8) * 0.29)
y, logits = moe(x)
print("moe out:", tuple(y.shape), y[0, 0, :4])
print("router logits[:3]:\n", logits[:3])

# dense reference: every expert on every token, weighted by the sparse gates
probs = logits.softmax(-1)
topv, topi = probs.topk(2, dim=-1)
gates = torch.zeros_like(probs).scatter(1, topi, topv / topv.sum(-1, keepdim=True))
dense = torch.stack([e(x.view(-1, 8)) for e in moe.experts], dim=1)
ref = (gates.unsqueeze(-1) * dense).sum(1)
print("sparse == dense reference:", torch.allclose(y.view(-1, 8), ref, atol=1e-5))
print("selected experts:", topi.tolist())
print("gate rows sum to 1:", torch.allclose(gates.sum(-1), torch.ones(10)))

# dispatch by sorting tokens by expert (grouped GEMM layout)
flat_expert = topi.flatten()
order = flat_expert.argsort(stable=True)
counts = torch.bincount(flat_expert, minlength=4)
print("tokens per expert:", counts.tolist(), "offsets:", torch.cumsum(counts, 0).tolist())
token_of_slot = order // 2
chunks = torch.split(token_of_slot, counts.tolist())
print("tokens grouped:", [c.tolist() for c in chunks])
outs = torch.cat([moe.experts[e](x.view(-1, 8)[c]) for e, c in enumerate(chunks)])
w_sorted = (topv / topv.sum(-1, keepdim=True)).flatten()[order]
combined = torch.zeros(10, 8).scatter_add_(0, token_of_slot[:, None].expand(-1, 8), outs * w_sorted[:, None])
print("argsort dispatch == moe:", torch.allclose(combined, y.view(-1, 8), atol=1e-5))

# Switch load-balancing loss: N * sum_i f_i * P_i
def load_balancing_loss(router_logits, num_experts, top_k):
    routing = F.softmax(router_logits, dim=-1)
    _, sel = torch.topk(routing, top_k, dim=-1)
    mask = F.one_hot(sel, num_experts)
    tokens_per_expert = torch.mean(mask.float(), dim=0)
    router_prob_per_expert = torch.mean(routing, dim=0)
    return torch.sum(tokens_per_expert * router_prob_per_expert.unsqueeze(0)) * num_experts


def z_loss(router_logits):
    return torch.logsumexp(router_logits, dim=-1).square().mean()


lb = load_balancing_loss(logits, 4, 2)
zl = z_loss(logits)
print(f"aux loss {lb.item():.4f}  z-loss {zl.item():.4f}")
uniform = load_balancing_loss(torch.zeros(16, 4), 4, 1)
print(f"uniform router aux loss {uniform.item():.4f}")

# capacity factor: each expert takes at most C tokens in arrival order, the rest are dropped
top1 = probs.argmax(-1)
capacity = int(1.0 * 10 / 4)
one_hot = F.one_hot(top1, 4)
position_in_expert = (torch.cumsum(one_hot, dim=0) - 1) * one_hot
keep = (position_in_expert < capacity) & one_hot.bool()
print("capacity", capacity, "top1:", top1.tolist())
print("position in expert:", position_in_expert.sum(-1).tolist())
print("kept tokens:", keep.any(-1).int().tolist(), "dropped:", (~keep.any(-1)).sum().item())

# DeepSeek-style: sigmoid scores, bias only for selection, group-limited routing
scores = torch.sigmoid(logits)
bias = torch.tensor([0.0, 0.1, -0.1, 0.05])
_, sel_b = torch.topk(scores + bias, 2, dim=-1, sorted=False)
w_b = scores.gather(1, sel_b)
w_b = w_b / w_b.sum(-1, keepdim=True)
print("biased selection:", sel_b.sort(-1).values[:4].tolist(), "weights:", w_b.sum(-1)[:3])
group_scores = scores.view(10, 2, 2).amax(-1)
group_idx = group_scores.topk(1, dim=-1).indices
group_mask = torch.zeros_like(group_scores).scatter_(1, group_idx, 1)
score_mask = group_mask.unsqueeze(-1).expand(10, 2, 2).reshape(10, 4)
masked = scores.masked_fill(~score_mask.bool(), 0.0)
print("group-limited picks:", masked.topk(2, -1).indices.sort(-1).values[:4].tolist())

# gradients reach the router through the gate weights and the aux losses
moe.zero_grad()
y, logits = moe(x)
loss = y.pow(2).mean() + 0.01 * load_balancing_loss(logits, 4, 2) + 0.001 * z_loss(logits)
loss.backward()
print(f"loss {loss.item():.4f}", "gate grad norm:", round(moe.gate.weight.grad.norm().item(), 4))
print("expert grads present:", [e.w1.weight.grad is not None for e in moe.experts])
print("params:", sum(p.numel() for p in moe.parameters()), "active per token:",
      moe.gate.weight.numel() + 2 * sum(p.numel() for p in moe.experts[0].parameters()))
print(moe.experts[0])
