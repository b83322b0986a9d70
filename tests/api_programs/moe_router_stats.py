"""Router diagnostics as MoE training logs print them: per-expert counts by unique(return_counts)/bincount/histc,
expert-pair co-occurrence by unique(dim=0), routing stability across steps, router entropy and confidence
quantiles, load-imbalance scores (CV, max/mean, Gini), layer-to-layer agreement with corrcoef, and a
formatted table."""

import torch
import torch.nn.functional as F
from torch.distributions import Categorical

torch.manual_seed(0)
L, T, E, K = 3, 24, 6, 2
base = torch.sin(torch.arange(T * E, dtype=torch.float32).view(T, E) * 0.37) * 2
logits = torch.stack([base * (1 + 0.5 * l) + torch.cos(torch.arange(T * E, dtype=torch.float32).view(T, E) * (l + 1))
                      for l in range(L)])
probs = logits.softmax(-1)
topv, topi = probs.topk(K, dim=-1)

for l in range(L):
    experts, counts = torch.unique(topi[l], return_counts=True)
    full = torch.bincount(topi[l].flatten(), minlength=E)
    hist = torch.histc(topi[l].float(), bins=E, min=0, max=E - 1)
    cv = full.float().std() / full.float().mean()
    p = full.float().sort().values
    n = p.numel()
    gini = ((2 * torch.arange(1, n + 1) - n - 1) * p).sum() / (n * p.sum())
    ent = Categorical(probs=probs[l]).entropy()
    print(f"layer {l}: experts {experts.tolist()} counts {counts.tolist()} hist {hist.int().tolist()}")
    print(f"  cv {cv.item():.4f} max/mean {(full.max() / full.float().mean()).item():.4f} gini {gini.item():.4f}"
          f" entropy {ent.mean().item():.4f} +- {ent.std().item():.4f}")
    q = torch.quantile(topv[l, :, 0], torch.tensor([0.1, 0.5, 0.9]))
    print("  top-1 prob quantiles:", q.round(decimals=4).tolist(),
          "median:", topv[l, :, 0].median().round(decimals=4).item())

pairs = topi[0].sort(dim=-1).values
uniq_pairs, inverse, pair_counts = torch.unique(pairs, dim=0, return_inverse=True, return_counts=True)
print("distinct pairs:", uniq_pairs.tolist())
print("pair counts:", pair_counts.tolist(), "inverse[:8]:", inverse[:8].tolist())
co = torch.zeros(E, E, dtype=torch.long)
co.index_put_((pairs[:, 0], pairs[:, 1]), torch.ones(T, dtype=torch.long), accumulate=True)
print("co-occurrence upper triangle sum:", co.triu(1).sum().item(), "most common pair:",
      divmod(co.argmax().item(), E))

mode, mode_idx = torch.mode(topi[:, :, 0], dim=0)
print("modal first choice per token [:10]:", mode[:10].tolist())
agree = (topi[1:, :, 0] == topi[:-1, :, 0]).float().mean(dim=1)
print("layer-to-layer agreement:", agree.round(decimals=4).tolist())
runs, run_counts = torch.unique_consecutive(topi[0, :, 0], return_counts=True)
print("runs of same expert:", runs.tolist()[:8], run_counts.tolist()[:8])
loads = torch.stack([torch.bincount(topi[l].flatten(), minlength=E) for l in range(L)]).float()
print("load corrcoef:\n", torch.corrcoef(loads).round(decimals=4))
print("kl(uniform || load):", F.kl_div((loads / loads.sum(1, keepdim=True)).log(), torch.full((L, E), 1 / E),
                                       reduction="batchmean").round(decimals=4).item())

# a step-to-step stability score: how many tokens keep their first expert after perturbing the router
flipped = (logits[0] + 0.3 * torch.cos(torch.arange(T * E, dtype=torch.float32).view(T, E) * 2.1)).argmax(-1)
print("routing kept after perturbation:", (flipped == topi[0, :, 0]).float().mean().item())

header = f"{'expert':>6} " + " ".join(f"{'L' + str(l):>5}" for l in range(L)) + f" {'share':>7}"
print(header)
for e in range(E):
    share = loads[:, e].sum() / loads.sum()
    print(f"{e:>6} " + " ".join(f"{int(loads[l, e]):>5}" for l in range(L)) + f" {share.item():>7.2%}")
print("nanmean with masked layers:", torch.where(loads > 8, loads, torch.nan).nanmean(dim=0).round(decimals=4).tolist())
for bad in (lambda: torch.histc(topi[0], bins=E),
            lambda: torch.quantile(topv[0, :, 0], torch.tensor([1.5])),
            lambda: torch.unique(pairs, dim=2),
            lambda: torch.corrcoef(loads.unsqueeze(0))):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
