"""Linear attention (Katharopoulos et al.): the elu+1 feature map, the causal form with cumsum over outer products,
the recurrent form with a running state, a causal softmax baseline, and a gated (GLA-style) decay with logsigmoid
and cumsum in log space."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
B, H, L, D = 2, 2, 6, 4
q = torch.randn(B, H, L, D, requires_grad=True)
k = torch.randn(B, H, L, D, requires_grad=True)
v = torch.randn(B, H, L, D)


def phi(x):
    return F.elu(x) + 1


Q, K = phi(q), phi(k)
print("phi", Q.min().item() > 0, Q.grad_fn.__class__.__name__)

# non-causal
kv = torch.einsum("bhld,bhle->bhde", K, v)
z = 1 / (torch.einsum("bhld,bhd->bhl", Q, K.sum(2)) + 1e-6)
out_nc = torch.einsum("bhld,bhde,bhl->bhle", Q, kv, z)
print("noncausal", tuple(out_nc.shape), round(out_nc.sum().item(), 4))

# causal via cumsum of outer products
kv_c = torch.cumsum(K.unsqueeze(-1) * v.unsqueeze(-2), dim=2)
k_c = torch.cumsum(K, dim=2)
num = torch.einsum("bhld,bhlde->bhle", Q, kv_c)
den = torch.einsum("bhld,bhld->bhl", Q, k_c).unsqueeze(-1)
out_c = num / den
print("causal", round(out_c.sum().item(), 4), out_c[0, 0, -1].round(decimals=4).tolist())

# recurrent
S = torch.zeros(B, H, D, D)
Z = torch.zeros(B, H, D)
rec = []
for t in range(L):
    S = S + torch.outer(K[0, 0, t], v[0, 0, t]).expand(B, H, D, D) * 0 + K[:, :, t, :, None] * v[:, :, t, None, :]
    Z = Z + K[:, :, t]
    rec.append((Q[:, :, t, None, :] @ S).squeeze(-2) / (Q[:, :, t] * Z).sum(-1, keepdim=True))
rec = torch.stack(rec, 2)
print("rec==cumsum", torch.allclose(rec, out_c, atol=1e-5))

# quadratic masked form
A = (Q @ K.transpose(-1, -2)).tril()
quad = (A @ v) / A.sum(-1, keepdim=True)
print("quad==cumsum", torch.allclose(quad, out_c, atol=1e-5))

# softmax attention baseline with the same mask
mask = torch.ones(L, L, dtype=torch.bool).tril()
att = (q @ k.transpose(-1, -2)) / D**0.5
att = att.masked_fill(~mask, float("-inf")).softmax(-1)
sm = att @ v
sd = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print("softmax==sdpa", torch.allclose(sm, sd, atol=1e-5), round(sm.sum().item(), 4))

# gated linear attention: per-step decay in log space
g = F.logsigmoid(torch.randn(B, H, L, D))
gc = torch.cumsum(g, dim=2)
qg, kg = Q * torch.exp(gc), K * torch.exp(-gc)
gla = ((qg @ kg.transpose(-1, -2)).tril()) @ v
S = torch.zeros(B, H, D, D)
gla_rec = []
for t in range(L):
    S = torch.exp(g[:, :, t]).unsqueeze(-1) * S + K[:, :, t, :, None] * v[:, :, t, None, :]
    gla_rec.append(torch.einsum("bhd,bhde->bhe", Q[:, :, t], S))
print("gla", torch.allclose(gla, torch.stack(gla_rec, 2), atol=1e-4), round(gla.abs().sum().item(), 4))
print("logsigmoid", F.logsigmoid(torch.tensor([-100.0, 0.0, 100.0])).tolist(), nn.LogSigmoid())

(out_c.sum() + gla.sum() + sm.sum()).backward()
print("q.grad", round(q.grad.abs().sum().item(), 4), "k.grad", round(k.grad.abs().sum().item(), 4))
print("elu alpha", F.elu(torch.tensor([-1.0, 1.0]), alpha=0.5).round(decimals=4).tolist(), nn.ELU(alpha=0.5))
print(
    "celu/selu",
    F.celu(torch.tensor([-1.0]), alpha=2.0).round(decimals=4).tolist(),
    F.selu(torch.tensor([-1.0])).round(decimals=4).tolist(),
)
print(
    "outer",
    torch.outer(torch.arange(2.0), torch.arange(3.0)).tolist(),
    torch.ger(torch.ones(2), torch.ones(2)).tolist(),
)
try:
    torch.outer(torch.ones(2, 2), torch.ones(2))
except Exception as e:
    print(type(e).__name__, e)
try:
    F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=True, dropout_p=0.1)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.elu(torch.tensor([1, 2]))
except Exception as e:
    print(type(e).__name__, e)
