"""A Mixtral sparse block run in bfloat16 as inference code does: the router upcast to float32 (softmax with
dtype=torch.float), top-2 weights cast back with .to(hidden.dtype), experts in bfloat16 with index_add_, the same
block under CPU autocast from float32 weights, and the dtypes each op returns along the way."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class BlockSparseTop2MLP(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.w1 = nn.Linear(d, h, bias=False)
        self.w2 = nn.Linear(h, d, bias=False)
        self.w3 = nn.Linear(d, h, bias=False)
        self.act_fn = nn.SiLU()

    def forward(self, hidden_states):
        return self.w2(self.act_fn(self.w1(hidden_states)) * self.w3(hidden_states))


class SparseMoeBlock(nn.Module):
    def __init__(self, d=8, h=12, n=4, k=2):
        super().__init__()
        self.n, self.k = n, k
        self.gate = nn.Linear(d, n, bias=False)
        self.experts = nn.ModuleList([BlockSparseTop2MLP(d, h) for _ in range(n)])

    def forward(self, hidden_states):
        b, s, d = hidden_states.shape
        hidden_states = hidden_states.view(-1, d)
        router_logits = self.gate(hidden_states)
        routing_weights = F.softmax(router_logits, dim=1, dtype=torch.float)
        routing_weights, selected_experts = torch.topk(routing_weights, self.k, dim=-1)
        routing_weights /= routing_weights.sum(dim=-1, keepdim=True)
        routing_weights = routing_weights.to(hidden_states.dtype)
        final = torch.zeros((b * s, d), dtype=hidden_states.dtype, device=hidden_states.device)
        expert_mask = F.one_hot(selected_experts, num_classes=self.n).permute(2, 1, 0)
        expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()
        for expert_idx in expert_hit:
            expert_layer = self.experts[expert_idx]
            idx, top_x = torch.where(expert_mask[expert_idx].squeeze(0))
            current_state = hidden_states[None, top_x].reshape(-1, d)
            current = expert_layer(current_state) * routing_weights[top_x, idx, None]
            final.index_add_(0, top_x, current.to(hidden_states.dtype))
        return final.reshape(b, s, d), router_logits


torch.manual_seed(0)
block = SparseMoeBlock()
with torch.no_grad():
    for i, p in enumerate(block.parameters()):
        p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32).view_as(p) * (0.3 + 0.07 * i)) * 0.5)
x32 = torch.cos(torch.arange(2 * 3 * 8, dtype=torch.float32).view(2, 3, 8) * 0.45)
y32, logits32 = block(x32)
print("float32:", y32.dtype, y32[0, 0].round(decimals=4).tolist())

bf = block.to(torch.bfloat16)
print("param dtypes:", {p.dtype for p in bf.parameters()})
xb = x32.to(torch.bfloat16)
yb, logits_b = bf(xb)
print("bf16 out:", yb.dtype, "logits:", logits_b.dtype)
print("bf16 y[0,0]:", yb[0, 0].float().tolist())
print("max abs diff vs float32:", round((yb.float() - y32).abs().max().item(), 2) <= 0.05)
print("router softmax dtype:", F.softmax(logits_b, dim=1, dtype=torch.float).dtype,
      F.softmax(logits_b, dim=1).dtype)
w, sel = torch.topk(F.softmax(logits_b, dim=1, dtype=torch.float), 2, dim=-1)
print("selected bf16 vs f32:", torch.equal(sel, torch.topk(logits32.softmax(1), 2, dim=-1).indices), sel.dtype)
print("weights to bf16:", (w / w.sum(-1, keepdim=True)).to(torch.bfloat16)[:2].float().tolist())

acc = torch.zeros(4, dtype=torch.bfloat16)
acc.index_add_(0, torch.tensor([0, 0, 1, 3]), torch.tensor([1.0, 0.00390625, 2.5, 3.1], dtype=torch.bfloat16))
print("bf16 index_add_:", acc.float().tolist())
print("bf16 finfo:", torch.finfo(torch.bfloat16).eps, torch.finfo(torch.bfloat16).max, torch.finfo(torch.bfloat16).tiny)

block32 = SparseMoeBlock()
block32.load_state_dict({k: v.float() for k, v in bf.state_dict().items()})
with torch.autocast("cpu", dtype=torch.bfloat16):
    ya, la = block32(x32)
    print("autocast: logits", la.dtype, "softmax(dtype=float)", F.softmax(la, 1, dtype=torch.float).dtype,
          "out", ya.dtype)
    print("autocast bmm:", torch.bmm(x32, x32.transpose(1, 2)).dtype, "silu:", F.silu(x32).dtype,
          "sum:", x32.sum().dtype)
print("autocast y[0,0]:", ya[0, 0].float().round(decimals=4).tolist())

try:
    torch.zeros(4, dtype=torch.bfloat16).index_add_(0, torch.tensor([0]), torch.ones(1))
except Exception as e:
    print(type(e).__name__, e)
try:
    bf(x32)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.softmax(logits_b, dim=1, dtype=torch.int64)
except Exception as e:
    print(type(e).__name__, e)
