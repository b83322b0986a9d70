"""Expert-choice routing (Zhou et al.): each expert picks its top-C tokens (topk over the token axis), so load is
balanced by construction and a token may get zero or several experts; combine by scatter_add_/index_add_, coverage
statistics by bincount, and per-expert thresholds by kthvalue; with the top-k token-choice router alongside."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
B, S, D, E, H = 2, 8, 6, 4, 10
capacity_factor = 2.0
x = torch.sin(torch.arange(B * S * D, dtype=torch.float32).view(B, S, D) * 0.23) + \
    0.3 * torch.cos(torch.arange(B * S * D, dtype=torch.float32).view(B, S, D) * 1.9)
w_router = torch.cos(torch.arange(D * E, dtype=torch.float32).view(D, E) * 0.61)
w1 = torch.sin(torch.arange(E * D * H, dtype=torch.float32).view(E, D, H) * 0.13) * 0.4
w2 = torch.cos(torch.arange(E * H * D, dtype=torch.float32).view(E, H, D) * 0.07) * 0.4

n_tokens = B * S
capacity = int(n_tokens * capacity_factor / E)
tokens = x.reshape(n_tokens, D)
scores = F.softmax(tokens @ w_router, dim=-1)  # (n, E)
print("capacity per expert:", capacity)

gating, index = torch.topk(scores.t(), k=capacity, dim=1)  # each expert's choice over tokens
print("index:", tuple(index.shape), index.dtype, "is contiguous:", index.is_contiguous())
print("expert 0 picks:", index[0].tolist())
print("expert 0 gates:", gating[0].round(decimals=4).tolist())

dispatch = F.one_hot(index, num_classes=n_tokens).float()  # (E, C, n)
xin = torch.einsum("ecn,nd->ecd", dispatch, tokens)
h = torch.einsum("ecd,edh->ech", xin, w1)
h = F.gelu(h)
xout = torch.einsum("ech,ehd->ecd", h, w2)
combined = torch.einsum("ec,ecn,ecd->nd", gating, dispatch, xout)
print("combined:", tuple(combined.shape), combined.sum().round(decimals=4).item())

# the same by gather and index_add_, without the dense dispatch tensor
xin2 = tokens[index]  # (E, C, D)
xout2 = torch.bmm(F.gelu(torch.bmm(xin2, w1)), w2)
out = torch.zeros_like(tokens).index_add_(0, index.flatten(), (xout2 * gating.unsqueeze(-1)).reshape(-1, D))
print("gather path == einsum path:", torch.allclose(out, combined, atol=1e-5))
out3 = torch.zeros_like(tokens).scatter_add_(0, index.reshape(-1, 1).expand(-1, D),
                                              (xout2 * gating[..., None]).reshape(-1, D))
print("scatter_add_ path:", torch.allclose(out3, out, atol=1e-6))

experts_per_token = torch.bincount(index.flatten(), minlength=n_tokens)
print("experts per token:", experts_per_token.tolist())
print("tokens with no expert:", (experts_per_token == 0).nonzero().flatten().tolist())
hist = torch.bincount(experts_per_token, minlength=E + 1)
print("coverage histogram:", hist.tolist(), "mean experts/token:", experts_per_token.float().mean().item())

# per-expert thresholds: a token is chosen iff its score >= the C-th largest score of that expert
kth = torch.kthvalue(scores.t(), n_tokens - capacity + 1, dim=1)
print("thresholds:", kth.values.round(decimals=4).tolist(), "at tokens", kth.indices.tolist())
chosen = scores.t() >= kth.values[:, None]
print("threshold mask agrees:", torch.equal(chosen.sum(1), torch.full((E,), capacity)))
mask_from_index = torch.zeros(E, n_tokens, dtype=torch.bool).scatter_(1, index, True)
print("same token sets:", torch.equal(mask_from_index, chosen))

# token choice with top-2 for comparison: the load per expert is unbalanced
tc_val, tc_idx = scores.topk(2, dim=-1, largest=True, sorted=True)
load = torch.bincount(tc_idx.flatten(), minlength=E)
print("token-choice load:", load.tolist(), "expert-choice load:", [capacity] * E)
low_val, low_idx = scores.topk(1, dim=-1, largest=False)
print("least likely expert per token:", low_idx.flatten().tolist())

# a gradient reaches only the (expert, token) pairs picked
w_r = w_router.clone().requires_grad_()
g, idx = torch.topk(F.softmax(tokens @ w_r, dim=-1).t(), k=capacity, dim=1)
(g * torch.arange(1.0, capacity + 1)).sum().backward()
print("router grad:", w_r.grad.abs().sum().round(decimals=4).item(), g.grad_fn.name())

for bad in (lambda: torch.topk(scores.t(), k=n_tokens + 1, dim=1),
            lambda: torch.kthvalue(scores.t(), 0, dim=1),
            lambda: torch.bincount(index.float().flatten()),
            lambda: torch.bincount(torch.tensor([[0, 1]]))):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
