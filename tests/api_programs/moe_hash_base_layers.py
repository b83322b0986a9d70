"""Routers that balance without an auxiliary loss: Hash Layers (a fixed random token-id -> expert table from
randperm with a Generator, and a multi-hash variant), BASE layers' balanced assignment approximated by Sinkhorn
iterations in log space (logsumexp over both axes) followed by a greedy capacity-respecting assignment,
and the load each scheme gives."""

import torch
import torch.nn.functional as F

V, E, T, D = 20, 4, 16, 5
g = torch.Generator().manual_seed(42)
hash_table = torch.randperm(V, generator=g) % E
print("hash table:", hash_table.tolist())
token_ids = (torch.arange(T) * 7 + 3) % V
expert = hash_table[token_ids]
print("token ids:", token_ids.tolist())
print("hash load:", torch.bincount(expert, minlength=E).tolist())

# multi-hash: K independent tables, the expert is chosen per hash, outputs averaged
K = 3
tables = torch.stack([torch.randperm(V, generator=g) % E for _ in range(K)])
multi = tables[:, token_ids]
print("multi-hash choices:", multi.t()[:4].tolist(), "load:", torch.bincount(multi.flatten(), minlength=E).tolist())
x = torch.sin(torch.arange(T * D, dtype=torch.float32).view(T, D) * 0.43)
w_exp = torch.cos(torch.arange(E * D * D, dtype=torch.float32).view(E, D, D) * 0.21)
y_multi = torch.stack([torch.einsum("td,tdk->tk", x, w_exp[multi[k]]) for k in range(K)]).mean(0)
print("multi-hash output:", y_multi[0].round(decimals=4).tolist())

# BASE layers: balanced assignment by Sinkhorn on token-expert affinities
w_router = torch.cos(torch.arange(D * E, dtype=torch.float32).view(D, E) * 0.8) * 3
scores = x @ w_router
print("greedy argmax load:", torch.bincount(scores.argmax(-1), minlength=E).tolist())


def sinkhorn(log_alpha, n_iters=50):
    for _ in range(n_iters):
        log_alpha = log_alpha - torch.logsumexp(log_alpha, dim=1, keepdim=True)
        log_alpha = log_alpha - torch.logsumexp(log_alpha, dim=0, keepdim=True) + torch.log(torch.tensor(T / E))
    return log_alpha.exp()


plan = sinkhorn(scores.double())
print("plan dtype:", plan.dtype, "row sums:", plan.sum(1)[:4].round(decimals=4).tolist(),
      "col sums:", plan.sum(0).round(decimals=4).tolist())
cap = T // E
order = torch.argsort(plan.flatten(), descending=True, stable=True)
assign = torch.full((T,), -1)
filled = torch.zeros(E, dtype=torch.long)
for flat in order.tolist():
    t, e = divmod(flat, E)
    if assign[t] < 0 and filled[e] < cap:
        assign[t] = e
        filled[e] += 1
print("balanced assignment:", assign.tolist(), "load:", torch.bincount(assign, minlength=E).tolist())
print("affinity kept:", round(scores.gather(1, assign[:, None]).sum().item(), 4),
      "vs greedy:", round(scores.max(-1).values.sum().item(), 4))

# BASE uses a sigmoid of the affinity as the residual gate of the expert output
gate = torch.sigmoid(scores.gather(1, assign[:, None]))
y = x + gate * torch.einsum("td,tdk->tk", x, w_exp[assign])
print("BASE output:", y[:2].round(decimals=4).tolist())
print("one_hot of assignment sums:", F.one_hot(assign, E).sum(0).tolist())
print("randperm dtype:", torch.randperm(4, generator=g).dtype,
      torch.randperm(3, dtype=torch.float32, generator=g).dtype)
for bad in (lambda: hash_table[torch.tensor([V])],
            lambda: torch.randperm(-1),
            lambda: torch.logsumexp(scores.int(), dim=1)):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
