"""Contrastive and metric losses from their papers on fixed embeddings: Hadsell et al. 2006 pairwise contrastive
loss, FaceNet's triplet loss with batch-hard mining over torch.cdist (Schroff et al. 2015; Hermans et al. 2017),
N-pair / InfoNCE (Oord et al. 2018), SimCLR's NT-Xent (Chen et al. 2020), supervised contrastive (Khosla et al.
2020), and ArcFace margins (Deng et al. 2019), each cross-checked against torch.nn's built-in losses."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(2006)


def arr(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


def r(t, k=4):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


emb = arr(8, 5).requires_grad_(True)
labels = torch.tensor([0, 0, 1, 1, 2, 2, 3, 3])

# Hadsell et al.: similar pairs pulled together, dissimilar pushed beyond a margin
a, b = emb[:4], emb[4:]
same = torch.tensor([1.0, 0.0, 1.0, 0.0])
d = F.pairwise_distance(a, b)
contrastive = (same * d.pow(2) + (1 - same) * F.relu(1.5 - d).pow(2)).mean() / 2
print("contrastive", round(contrastive.item(), 4), r(d), r(F.pairwise_distance(a, b, p=1, keepdim=True).squeeze(1)))
cos_tgt = same * 2 - 1
print(
    "cosine_embedding",
    round(F.cosine_embedding_loss(a, b, cos_tgt, margin=0.2).item(), 4),
    r(F.cosine_embedding_loss(a, b, cos_tgt, reduction="none")),
)
manual = torch.where(cos_tgt > 0, 1 - F.cosine_similarity(a, b), F.relu(F.cosine_similarity(a, b) - 0.2)).mean()
print("cosine_manual", round(manual.item(), 4))

# batch-hard triplet mining
dist = torch.cdist(emb, emb)
print("cdist", dist.shape, round((dist - dist.T).abs().max().item(), 4), r(dist.diagonal()), r(dist[0, 1:]))
same_lbl = labels[:, None] == labels[None, :]
eye = torch.eye(8, dtype=torch.bool)
hardest_pos = dist.masked_fill(~(same_lbl & ~eye), float("-inf")).amax(1)
hardest_neg = dist.masked_fill(same_lbl, float("inf")).amin(1)
bh = F.relu(hardest_pos - hardest_neg + 0.5).mean()
pos_idx = dist.masked_fill(~(same_lbl & ~eye), float("-inf")).argmax(1)
neg_idx = dist.masked_fill(same_lbl, float("inf")).argmin(1)
ref = F.triplet_margin_loss(emb, emb[pos_idx], emb[neg_idx], margin=0.5, eps=0.0)
print("batch_hard", round(bh.item(), 4), round(ref.item(), 4), pos_idx.tolist(), neg_idx.tolist())
bh.backward(retain_graph=True)
print("batch_hard_grad", r(emb.grad[0]), round(emb.grad.abs().sum().item(), 4))
emb.grad = None
print("cdist_p1", r(torch.cdist(emb, emb, p=1)[0, 1:]), r(torch.cdist(emb[None], emb[None, :3], p=0)[0, 0]))
print("cdist_mm", torch.allclose(torch.cdist(emb, emb, compute_mode="use_mm_for_euclid_dist"), dist, atol=1e-2))

# SimCLR NT-Xent over two views
z1, z2 = arr(4, 6), arr(4, 6)
z = F.normalize(torch.cat([z1, z2]), dim=1).requires_grad_(True)
tau = 0.5
sim = z @ z.T / tau
sim = sim.masked_fill(torch.eye(8, dtype=torch.bool), float("-inf"))
targets = torch.cat([torch.arange(4, 8), torch.arange(0, 4)])
nt_xent = F.cross_entropy(sim, targets)
nt_xent.backward()
print("nt_xent", round(nt_xent.item(), 4), r(z.grad[0]), r(sim.softmax(1)[0], 8))
pos = torch.exp((z * z.roll(4, 0)).sum(1) / tau)
den = torch.exp(z @ z.T / tau).sum(1) - torch.exp(torch.ones(8) / tau)
print("nt_xent_manual", round(-(pos / den).log().mean().item(), 4))

# InfoNCE with a bilinear critic and in-batch negatives
W = nn.Bilinear(6, 6, 1, bias=False)
with torch.no_grad():
    W.weight.copy_(arr(1, 6, 6, scale=0.3))
ctx, fut = arr(5, 6), arr(5, 6)
scores = torch.einsum("id,de,je->ij", ctx, W.weight[0], fut)
bil = W(ctx.repeat_interleave(5, 0), fut.repeat(5, 1)).view(5, 5)
print(
    "infonce", round(F.cross_entropy(scores, torch.arange(5)).item(), 4), round((scores - bil).abs().max().item(), 4), W
)
print("mi_bound", round((np.log(5) - F.cross_entropy(scores, torch.arange(5))).item(), 4))

# supervised contrastive: every same-label sample is a positive
feats = F.normalize(arr(8, 4), dim=1)
logits = feats @ feats.T / 0.1
logits = logits - logits.max(1, keepdim=True).values.detach()
self_mask = ~torch.eye(8, dtype=torch.bool)
pos_mask = same_lbl & self_mask
log_prob = logits - torch.logsumexp(logits.masked_fill(~self_mask, float("-inf")), dim=1, keepdim=True)
supcon = -(log_prob * pos_mask).sum(1) / pos_mask.sum(1)
print("supcon", r(supcon, 8), round(supcon.mean().item(), 4), pos_mask.sum(1).tolist())

# ArcFace additive angular margin
wcls = F.normalize(arr(4, 5), dim=1)
x = F.normalize(arr(8, 5), dim=1)
cos = (x @ wcls.T).clamp(-1 + 1e-7, 1 - 1e-7)
theta = torch.acos(cos)
onehot = F.one_hot(labels, 4).bool()
arc_logits = 16.0 * torch.where(onehot, torch.cos(theta + 0.3), cos)
print(
    "arcface",
    round(F.cross_entropy(arc_logits, labels).item(), 4),
    round(F.cross_entropy(16 * cos, labels).item(), 4),
    r(torch.rad2deg(theta[0])),
)

# margin ranking and multi-similarity style weighting
s_pos, s_neg = arr(6), arr(6)
print(
    "margin_ranking",
    round(nn.MarginRankingLoss(margin=0.3)(s_pos, s_neg, torch.ones(6)).item(), 4),
    round(F.relu(0.3 - (s_pos - s_neg)).mean().item(), 4),
)
print(
    "soft_margin",
    round(F.soft_margin_loss(s_pos - s_neg, torch.ones(6)).item(), 4),
    round(F.softplus(-(s_pos - s_neg)).mean().item(), 4),
)
sm = F.soft_margin_loss(emb[:, 0] - emb[:, 1], torch.ones(8), reduction="none")
mm = F.multi_margin_loss(emb[:, :4], labels % 4, margin=0.5)
print("grad_fns", d.grad_fn.name(), sm.grad_fn.name(), mm.grad_fn.name(), round(mm.item(), 4), r(sm))
print("lifted", round(torch.logsumexp(torch.stack([s_neg, -s_pos]), dim=0).clamp(min=0).pow(2).mean().item(), 4))

for bad in (
    lambda: torch.cdist(arr(3, 4), arr(3, 5)),
    lambda: torch.cdist(arr(3, 4), arr(2, 4), p=-1),
    lambda: F.triplet_margin_loss(arr(3, 4), arr(3, 4), arr(3, 5)),
    lambda: F.cosine_embedding_loss(arr(3, 4), arr(3, 4), torch.ones(2)),
    lambda: F.pairwise_distance(arr(3, 4), arr(2, 4)),
):
    try:
        bad()
    except (RuntimeError, ValueError) as e:
        print(type(e).__name__, str(e).split("\n")[0])
