"""Contrastive losses with duplicate captions and several positives per image: a positive mask from
torch.unique(return_inverse=True), soft targets normalised per row, masked_fill/fill_diagonal_ tricks, the
SupCon-style log-prob average, KL distillation between teacher and student similarity matrices, and
cosine_similarity/cdist/einsum routes to the same matrix."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

captions = ["a dog", "a cat", "a dog", "a car", "a cat", "a boat"]
vocab = {c: i for i, c in enumerate(sorted(set(captions)))}
cap_ids = torch.tensor([vocab[c] for c in captions])
uniq, inverse, counts = torch.unique(cap_ids, sorted=True, return_inverse=True, return_counts=True)
print("unique", uniq.tolist(), inverse.tolist(), counts.tolist())
pos = inverse[:, None] == inverse[None, :]
print("positives", pos.int().tolist())
print(
    "diag-free",
    pos.clone().fill_diagonal_(False).sum().item(),
    torch.eye(6, dtype=torch.bool).logical_not().logical_and(pos).sum().item(),
)

img = F.normalize(torch.randn(6, 8), dim=1)
txt = F.normalize(torch.randn(6, 8) + img, dim=1)
scale = 10.0
logits = scale * img @ txt.t()

# three routes to the similarity matrix
cs = F.cosine_similarity(img[:, None, :], txt[None, :, :], dim=-1)
es = torch.einsum("nc,mc->nm", img, txt)
dist = torch.cdist(img, txt)
from_dist = 1 - dist.pow(2) / 2
print(
    "routes", torch.allclose(cs, es, atol=1e-6), torch.allclose(es, from_dist, atol=1e-5), round(es.trace().item(), 4)
)
print("cdist p=1", torch.cdist(img[:2], txt[:3], p=1).round(decimals=4).tolist())

# soft targets: spread the mass over every positive
targets = pos.float() / pos.float().sum(1, keepdim=True)
print("targets rows", targets.sum(1).tolist(), targets[0].round(decimals=4).tolist())
soft_ce = F.cross_entropy(logits, targets)
hard_ce = F.cross_entropy(logits, torch.arange(6))
print("soft", round(soft_ce.item(), 4), "hard", round(hard_ce.item(), 4))
print("soft by hand", round(-(targets * logits.log_softmax(-1)).sum(-1).mean().item(), 4))

# SupCon-style: average log-prob over positives, self excluded from the denominator
self_mask = torch.eye(6, dtype=torch.bool)
lg = logits
log_prob = lg - torch.logsumexp(lg, dim=1, keepdim=True)
mean_log_prob_pos = (pos * log_prob).sum(1) / pos.sum(1)
print("supcon", round(-mean_log_prob_pos.mean().item(), 4), mean_log_prob_pos.round(decimals=4).tolist())
masked = logits.masked_fill(pos & ~self_mask, -1e4)
print("false-negative masking", round(F.cross_entropy(masked, torch.arange(6)).item(), 4))
print("masked_fill -inf row max", logits.masked_fill(~pos, float("-inf")).max(1).values.round(decimals=4).tolist())

# distillation of a teacher similarity matrix
teacher = (img @ img.t() * 20).detach()
kl = F.kl_div(logits.log_softmax(-1), teacher.softmax(-1), reduction="batchmean")
kl_log = F.kl_div(logits.log_softmax(-1), teacher.log_softmax(-1), reduction="batchmean", log_target=True)
print(
    "kl",
    round(kl.item(), 4),
    round(kl_log.item(), 4),
    round(F.kl_div(logits.log_softmax(-1), teacher.softmax(-1), reduction="sum").item(), 4),
)
T = 2.0
distill = F.kl_div(F.log_softmax(logits / T, 1), F.softmax(teacher / T, 1), reduction="batchmean") * T * T
print("distill T=2", round(distill.item(), 4))

logits.requires_grad_(True)
loss = F.cross_entropy(logits, targets, label_smoothing=0.1)
loss.backward()
print(
    "soft+smooth",
    round(loss.item(), 4),
    logits.grad.sum(1).abs().max().item() < 1e-6,
    round(logits.grad[0, 0].item(), 4),
)

# block-diagonal positives for groups of captions
groups = torch.block_diag(torch.ones(2, 2), torch.ones(3, 3), torch.ones(1, 1)).bool()
print("block_diag", groups.int().tolist()[2], groups.sum().item())
print(
    "diag_embed",
    torch.diag_embed(torch.tensor([1.0, 2.0])).tolist(),
    torch.diagflat(torch.tensor([3, 4]), offset=1).tolist(),
)

try:
    F.cross_entropy(logits, targets[:, :5])
except Exception as e:
    print(type(e).__name__, e)
try:
    F.kl_div(logits, teacher[:3])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.cdist(img, txt[:, :4])
except Exception as e:
    print(type(e).__name__, e)
try:
    logits.detach().fill_diagonal_(0, wrap=True).masked_fill(pos.int(), 0)
except Exception as e:
    print(type(e).__name__, e)
