"""A Switch Transformer FFN layer trained as the paper's code does: multiplicative jitter on the router input,
router math in float32, top-1 dispatch with capacity and a residual pass for dropped tokens, the load-balancing and
z-losses added to the task loss, AdamW with a no-decay router group, clip_grad_norm_ (foreach, error_if_nonfinite)
and per-step router statistics from torch.unique(return_counts=True)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class SwitchFFN(nn.Module):
    def __init__(self, d_model=8, d_ff=16, n_experts=4, capacity_factor=1.25, jitter=0.01):
        super().__init__()
        self.n_experts, self.capacity_factor, self.jitter = n_experts, capacity_factor, jitter
        self.router = nn.Linear(d_model, n_experts, bias=False)
        self.wi = nn.Parameter(torch.empty(n_experts, d_model, d_ff))
        self.wo = nn.Parameter(torch.empty(n_experts, d_ff, d_model))
        nn.init.normal_(self.wi, std=d_model ** -0.5)
        nn.init.normal_(self.wo, std=d_ff ** -0.5)

    def forward(self, x):
        tokens = x.reshape(-1, x.size(-1))
        n = tokens.size(0)
        router_in = tokens.float()
        if self.training and self.jitter > 0:
            router_in = router_in * torch.empty_like(router_in).uniform_(1 - self.jitter, 1 + self.jitter)
        logits = self.router(router_in)
        probs = logits.softmax(dim=-1)
        gate, expert = probs.max(dim=-1)
        capacity = math.ceil(self.capacity_factor * n / self.n_experts)
        onehot = F.one_hot(expert, self.n_experts)
        position = (onehot.cumsum(0) * onehot).sum(-1) - 1
        keep = position < capacity
        out = tokens.clone()  # dropped tokens pass through the residual unchanged
        for e in range(self.n_experts):
            sel = ((expert == e) & keep).nonzero(as_tuple=True)[0]
            if sel.numel() == 0:
                continue
            h = F.relu(tokens.index_select(0, sel) @ self.wi[e]) @ self.wo[e]
            out.index_copy_(0, sel, h * gate[sel, None])
        frac = onehot.float().mean(0)
        aux = self.n_experts * (frac * probs.mean(0)).sum()
        z = torch.logsumexp(logits, dim=-1).pow(2).mean()
        stats = {"expert": expert, "keep": keep, "probs": probs, "capacity": capacity}
        return out.view_as(x), aux, z, stats


class Model(nn.Module):
    def __init__(self, vocab=11, d=8):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.moe = SwitchFFN(d)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, idx):
        h = self.emb(idx)
        m, aux, z, stats = self.moe(h)
        return self.head(self.norm(h + m)), aux, z, stats


torch.manual_seed(0)
model = Model()
router_params = [p for n, p in model.named_parameters() if "router" in n or "norm" in n or n.endswith("bias")]
other_params = [p for n, p in model.named_parameters() if not ("router" in n or "norm" in n or n.endswith("bias"))]
print("groups:", len(router_params), len(other_params),
      sum(p.numel() for p in router_params), sum(p.numel() for p in other_params))
opt = torch.optim.AdamW([{"params": other_params, "weight_decay": 0.1},
                         {"params": router_params, "weight_decay": 0.0}], lr=3e-2, betas=(0.9, 0.95))
data = torch.arange(48).view(4, 12) * 7 % 11
inputs, targets = data[:, :-1], data[:, 1:]

for step in range(6):
    model.train()
    logits, aux, z, stats = model(inputs)
    ce = F.cross_entropy(logits.reshape(-1, 11), targets.reshape(-1))
    loss = ce + 1e-2 * aux + 1e-3 * z
    opt.zero_grad(set_to_none=True)
    loss.backward()
    total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0, foreach=True, error_if_nonfinite=True)
    opt.step()
    experts, counts = torch.unique(stats["expert"], return_counts=True)
    ent = -(stats["probs"] * stats["probs"].clamp_min(1e-9).log()).sum(-1).mean()
    print(f"step {step} ce {ce.item():.4f} aux {aux.item():.4f} z {z.item():.4f} norm {total.item():.4f} "
          f"entropy {ent.item():.4f}")
    print("  experts", experts.tolist(), "counts", counts.tolist(), "dropped", (~stats["keep"]).sum().item(),
          "capacity", stats["capacity"])

model.eval()
with torch.no_grad():
    logits, aux, z, stats = model(inputs)
print("eval ce:", round(F.cross_entropy(logits.reshape(-1, 11), targets.reshape(-1)).item(), 4))
u, inv, cnt = torch.unique(stats["expert"], sorted=True, return_inverse=True, return_counts=True)
print("unique inverse:", inv[:8].tolist(), cnt.tolist(), inv.dtype, cnt.dtype)
print("router weight decay kept:", opt.param_groups[1]["weight_decay"], len(opt.state))

model.moe.wo.grad = torch.full_like(model.moe.wo, float("nan"))
try:
    torch.nn.utils.clip_grad_norm_([model.moe.wo], 1.0, error_if_nonfinite=True)
except Exception as e:
    print(type(e).__name__, e)
norm = torch.nn.utils.clip_grad_norm_([model.moe.wo], 1.0, foreach=True)
print("nonfinite norm without the check:", norm.item())
