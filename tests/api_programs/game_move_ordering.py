"""Move selection and ordering as game engines write it with tensors: stable argsort of move scores (killer moves
and history heuristics as tie-breakers), top-k pruning of policy priors, nucleus and temperature sampling through
masked Categorical distributions, Gumbel-max and Gumbel-top-k without replacement (Gumbel AlphaZero's root), policy
distillation by KL with log targets, and the misuse PyTorch refuses."""

import torch
import torch.nn.functional as F
from torch.distributions import Categorical, kl_divergence

torch.manual_seed(0)
A = 10
scores = torch.tensor([3.0, 1.0, 3.0, 0.5, 2.0, 3.0, 1.0, 0.0, 2.0, 1.0])
history = torch.tensor([5, 1, 9, 0, 2, 9, 7, 0, 2, 3])
legal = torch.tensor([True, True, True, False, True, True, True, False, True, True])

order = scores.argsort(descending=True, stable=True)
print("stable order", order.tolist())
# tie-break by history: sort by history first, then stably by score
by_hist = history.argsort(descending=True, stable=True)
combined = by_hist[scores[by_hist].argsort(descending=True, stable=True)]
print("score then history", combined.tolist())
vals, idx = torch.sort(scores.masked_fill(~legal, float("-inf")), descending=True, stable=True)
print("legal sorted", idx[: int(legal.sum())].tolist(), vals[:3].tolist())
keys = scores * 100 + history
print("composite keys agree", torch.equal(keys.argsort(descending=True, stable=True)[:4], combined[:4]))
print("msort", torch.msort(scores.view(2, 5).T)[0].tolist(), "unique_consecutive",
      torch.unique_consecutive(scores.sort().values, return_counts=True)[1].tolist())

# priors: top-k pruning, nucleus filtering, temperature
logits = torch.tensor([2.0, 0.5, 1.8, 0.0, 1.0, 2.2, -1.0, 0.3, 1.1, 0.7]).masked_fill(~legal, float("-inf"))
topv, topi = logits.topk(4)
pruned = torch.full_like(logits, float("-inf")).scatter(0, topi, topv)
print("top-4", topi.tolist(), pruned.softmax(-1).round(decimals=4).tolist())
p_sorted, i_sorted = logits.softmax(-1).sort(descending=True)
cum = p_sorted.cumsum(0)
keep = cum - p_sorted < 0.8
nucleus = torch.zeros(A, dtype=torch.bool).scatter(0, i_sorted[keep], True)
print("nucleus", nucleus.nonzero().flatten().tolist(), round(cum[keep][-1].item(), 4))
for T in [0.5, 1.0, 2.0]:
    d = Categorical(logits=logits / T)
    print("T", T, "entropy", round(d.entropy().item(), 4), "p_max", round(d.probs.max().item(), 4),
          "illegal log_prob", d.log_prob(torch.tensor(3)).item())
masked = Categorical(logits=logits.masked_fill(~nucleus, float("-inf")))
draws = masked.sample((500,))
print("nucleus draws legal", nucleus[draws].all().item(),
      "support", torch.bincount(draws, minlength=A).gt(0).sum().item())

# Gumbel-max: argmax(logits + g) is a sample; top-k of the perturbed logits samples without replacement
g = -torch.empty(2000, A).exponential_().log()
pert = logits + g
freq = torch.bincount(pert.argmax(-1), minlength=A).float() / 2000
print("gumbel-max ~ softmax", (freq - logits.softmax(-1)).abs().max().item() < 0.05)
top3 = pert.topk(3, dim=-1).indices
print("gumbel top-k distinct", (top3.sort(-1).values.diff(dim=-1) > 0).all().item(), top3.shape)
print("gumbel_softmax hard", F.gumbel_softmax(logits.expand(4, -1).clone(), tau=0.5, hard=True).sum(-1).tolist())

# distillation: student matches the search policy (visit counts) by KL
visits = torch.tensor([30.0, 2.0, 25.0, 0.0, 5.0, 31.0, 0.0, 0.0, 6.0, 1.0])
target = visits / visits.sum()
student = torch.zeros(A, requires_grad=True)
opt = torch.optim.SGD([student], lr=1.0)
for _ in range(50):
    logq = student.masked_fill(~legal, -1e9).log_softmax(-1)
    loss = F.kl_div(logq, (target + 1e-8).log(), reduction="sum", log_target=True)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("distilled", round(loss.item(), 4), logq.exp().round(decimals=2).tolist())
kl = kl_divergence(Categorical(probs=target + 1e-8), Categorical(logits=logq.detach()))
print("kl", round(kl.item(), 4), "cross-entropy", round(F.cross_entropy(logq[None], target[None]).item(), 4))

for bad in [
    lambda: scores.argsort(0, stable=True),
    lambda: torch.argsort(scores, 0, stable=True),
    lambda: scores.sort(0, stable=True),
    lambda: logits.topk(11),
    lambda: Categorical(logits=torch.full((3,), float("-inf"))).sample(),
    lambda: Categorical(probs=torch.tensor([0.2, 0.3])).log_prob(torch.tensor(2)),
    lambda: torch.cumsum(legal, 0, dtype=torch.bool),
    lambda: legal.clone().cumprod_(0),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
