"""Negative sampling for implicit feedback: unigram^0.75 multinomial, log-uniform candidates,
logQ-corrected sampled softmax."""

import math

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)

n_items = 20
counts = torch.tensor([50, 30, 30, 20, 15, 10, 10, 8, 6, 5, 5, 4, 3, 3, 2, 2, 1, 1, 1, 1], dtype=torch.float)
probs = counts.pow(0.75)
probs = probs / probs.sum()
print("probs", probs[:5].round(decimals=4).tolist(), "sum", round(probs.sum().item(), 4))

g = torch.Generator().manual_seed(123)
neg = torch.multinomial(probs, 8 * 4, replacement=True, generator=g).view(8, 4)
print("neg", neg.shape, neg.dtype, "range ok", bool(neg.min() >= 0 and neg.max() < n_items))
big = torch.multinomial(probs, 200000, replacement=True, generator=g)
emp = torch.bincount(big, minlength=n_items).float() / big.numel()
print("empirical close", torch.allclose(emp, probs, atol=5e-3))
uniq = torch.multinomial(probs, 10, replacement=False, generator=g)
print("without replacement unique", uniq.unique().numel(), uniq.shape)
print("2-D multinomial", torch.multinomial(probs.repeat(3, 1), 5, replacement=True, generator=g).shape)
zero_p = torch.tensor([0.0, 1.0, 0.0])
print("zero-probability never drawn", torch.multinomial(zero_p, 4, replacement=True).tolist())
print("unnormalised weights", torch.multinomial(torch.tensor([0.0, 10.0, 0.0, 0.0]), 1).tolist())


# log-uniform (Zipfian) candidate sampler used by sampled softmax
def log_uniform_prob(ids, n):
    return (torch.log((ids + 2).double()) - torch.log((ids + 1).double())) / math.log(n + 1)


ids = torch.arange(n_items)
q = log_uniform_prob(ids, n_items)
print("log-uniform", q.dtype, q[:4].round(decimals=4).tolist(), round(q.sum().item(), 4))
u = torch.rand(1000, generator=g, dtype=torch.float64)
samp = (torch.exp(u * math.log(n_items + 1)).floor().long() - 1).clamp(0, n_items - 1)
print("zipf sampled ids in range", bool(samp.min() >= 0), bool(samp.max() <= n_items - 1))

# sampled softmax with logQ correction and accidental-hit masking
torch.manual_seed(1)
user = nn.Embedding(10, 6)
item = nn.Embedding(n_items, 6)
uid = torch.tensor([0, 1, 2, 3])
pos = torch.tensor([0, 3, 5, 0])
cand = torch.tensor([0, 1, 2, 7, 9])
u_v = user(uid)
pos_logit = (u_v * item(pos)).sum(-1, keepdim=True) - torch.log(probs[pos]).unsqueeze(1)
neg_logit = u_v @ item(cand).t() - torch.log(probs[cand]).unsqueeze(0)
hit = pos.unsqueeze(1) == cand.unsqueeze(0)
print("accidental hits", hit.int().tolist())
neg_logit = neg_logit.masked_fill(hit, torch.finfo(neg_logit.dtype).min)
logits = torch.cat([pos_logit, neg_logit], 1)
loss = F.cross_entropy(logits, torch.zeros(4, dtype=torch.long))
print("sampled softmax", round(loss.item(), 4))
loss.backward()
print("item grad rows touched", (item.weight.grad.abs().sum(1) > 0).nonzero().flatten().tolist())

# in-batch negatives with duplicates removed from the denominator
u_b = F.normalize(u_v, dim=-1)
i_b = F.normalize(item(pos), dim=-1)
sim = u_b @ i_b.t() / 0.1
dup = (pos.unsqueeze(0) == pos.unsqueeze(1)) & ~torch.eye(4, dtype=torch.bool)
sim = sim.masked_fill(dup, float("-inf"))
print("in-batch loss", round(F.cross_entropy(sim, torch.arange(4)).item(), 4))
print(
    "label smoothing",
    round(F.cross_entropy(sim.masked_fill(dup, -1e9), torch.arange(4), label_smoothing=0.1).item(), 4),
)

# word2vec-style negative sampling loss (SGNS)
ctx = item(torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9], [1, 1, 1]]))
pos_s = F.logsigmoid((u_v * item(pos)).sum(-1))
neg_s = F.logsigmoid(-torch.bmm(ctx, u_v.unsqueeze(2)).squeeze(2)).sum(1)
print("sgns", round(-(pos_s + neg_s).mean().item(), 4))

# BPR with one sampled negative per positive, via Categorical
cat = torch.distributions.Categorical(probs=probs)
print(cat, cat.probs.shape, round(cat.entropy().item(), 4))
print("log_prob", cat.log_prob(torch.tensor([0, 19])).round(decimals=4).tolist())
print("sample shape", cat.sample((3, 2)).shape)
bpr = -F.logsigmoid((u_v * item(pos)).sum(-1) - (u_v * item(torch.tensor([5, 6, 7, 8]))).sum(-1)).mean()
print("bpr", round(bpr.item(), 4))

for fn in (
    lambda: torch.multinomial(probs, 30, replacement=False),
    lambda: torch.multinomial(torch.tensor([0.5, -0.1]), 1),
    lambda: torch.multinomial(torch.zeros(3), 1),
    lambda: torch.multinomial(probs.long(), 1),
    lambda: torch.multinomial(torch.ones(2, 2, 2), 1),
    lambda: torch.distributions.Categorical(probs=torch.tensor([0.5, -0.5])),
):
    try:
        fn()
        print("no error")
    except Exception as e:
        print(type(e).__name__, e)
