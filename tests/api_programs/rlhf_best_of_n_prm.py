"""Rejection sampling and process rewards as data pipelines for RLHF compute them: best-of-n selection per prompt
with argmax/topk/argsort and take_along_dim, deduplication of completions with unique(dim=0, return_inverse,
return_counts), reward thresholds from quantile and bucketize, a process reward model's step scores read at
step-separator tokens and aggregated by min/last/product with scatter_reduce and index_reduce_, and searchsorted
over cumulative step ends."""

import torch

torch.manual_seed(0)
P_, N, T, SEP = 3, 4, 6, 9
completions = torch.randint(1, 5, (P_, N, T))
completions[0, 2] = completions[0, 0]
completions[2, 3] = completions[2, 1]
rewards = torch.randn(P_, N)
rewards[1, 3] = rewards[1, 1]
print("rewards:", rewards.round(decimals=4).tolist())

best = rewards.argmax(dim=1)
print("best idx:", best.tolist(), "ties pick first:", rewards[1].argmax().item())
chosen = torch.take_along_dim(completions, best[:, None, None], dim=1).squeeze(1)
print("chosen == gather:", torch.equal(chosen, completions[torch.arange(P_), best]))
top2 = rewards.topk(2, dim=1)
print(
    "top2:",
    top2.indices.tolist(),
    "sorted=False same set:",
    sorted(rewards.topk(2, dim=1, sorted=False).indices[0].tolist()) == sorted(top2.indices[0].tolist()),
)
order = rewards.argsort(dim=1, descending=True, stable=True)
print("argsort:", order.tolist())
pairs = torch.stack([order[:, 0], order[:, -1]], 1)
print(
    "chosen/rejected pairs:",
    pairs.tolist(),
    "margin:",
    (torch.take_along_dim(rewards, pairs, 1) @ torch.tensor([1.0, -1.0])).round(decimals=4).tolist(),
)
print("take_along_dim flat:", torch.take_along_dim(rewards, rewards.flatten().argmax()).tolist())

flat = completions.view(-1, T)
uniq, inverse, counts = torch.unique(flat, dim=0, return_inverse=True, return_counts=True)
print("unique rows:", uniq.shape[0], "of", flat.shape[0], "dup counts:", counts[counts > 1].tolist())
print("inverse equal for dups:", inverse[0].item() == inverse[2].item(), inverse[9].item() == inverse[11].item())
u, c = torch.unique(rewards.flatten().round(decimals=3), return_counts=True, sorted=True)
print("unique values:", u.numel(), c.max().item())
uc = torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 2, 1, 3]), return_counts=True, return_inverse=True)
print("unique_consecutive:", [t.tolist() for t in uc])

q = torch.quantile(rewards.flatten(), torch.tensor([0.25, 0.5, 0.75]))
print("quantiles:", q.round(decimals=4).tolist())
for interp in ["linear", "lower", "higher", "midpoint", "nearest"]:
    print(interp, round(torch.quantile(rewards, 0.3, dim=1, interpolation=interp)[0].item(), 4))
print("nanquantile:", round(torch.nanquantile(torch.tensor([1.0, float("nan"), 3.0]), 0.5).item(), 4))
buckets = torch.bucketize(rewards, q)
print("buckets:", buckets.tolist(), "right:", torch.bucketize(q, q, right=True).tolist())
keep = rewards >= q[1]
print("kept above median:", keep.sum().item(), torch.nonzero(keep).tolist())

steps = torch.tensor([[3, 4, SEP, 2, SEP, 1, 1, SEP], [2, SEP, 4, 4, 4, SEP, 0, 0]])
step_logits = torch.randn(2, 8, 2)
step_p = step_logits.softmax(-1)[..., 1]
is_sep = steps == SEP
b, t = torch.where(is_sep)
print("sep positions:", b.tolist(), t.tolist())
scores = step_p[b, t]
n_steps = is_sep.sum(1)
print("step scores:", scores.round(decimals=4).tolist(), "steps per row:", n_steps.tolist())
mins = torch.full((2,), float("inf")).scatter_reduce(0, b, scores, reduce="amin")
prods = torch.ones(2).scatter_reduce(0, b, scores, reduce="prod")
means = torch.zeros(2).index_reduce_(0, b, scores, "mean", include_self=False)
last_pos = torch.zeros(2, dtype=torch.long).scatter_reduce(0, b, t, reduce="amax")
print(
    "min:",
    mins.round(decimals=4).tolist(),
    "prod:",
    prods.round(decimals=4).tolist(),
    "mean:",
    means.round(decimals=4).tolist(),
    "last:",
    step_p[torch.arange(2), last_pos].round(decimals=4).tolist(),
)
ends = torch.cumsum(is_sep.long(), 1)
print("step index per token:", ends.tolist())
print(
    "searchsorted:",
    torch.searchsorted(t[b == 0], torch.tensor([0, 2, 3, 7])).tolist(),
    torch.searchsorted(t[b == 0], torch.tensor([0, 2, 3, 7]), side="right").tolist(),
)

for bad in [
    lambda: torch.quantile(rewards, 1.5),
    lambda: torch.quantile(rewards.long(), 0.5),
    lambda: torch.quantile(rewards, 0.5, interpolation="cubic"),
    lambda: torch.take_along_dim(rewards, best, dim=1),
    lambda: torch.searchsorted(torch.tensor([3, 1, 2]), torch.tensor([2]), sorter=torch.tensor([1, 2])),
    lambda: torch.bucketize(rewards, q.view(3, 1)),
    lambda: torch.zeros(2).index_reduce_(0, b, scores, "sum"),
]:
    try:
        r = bad()
        print("ok", r.tolist())
    except Exception as e:
        print(type(e).__name__, e)
