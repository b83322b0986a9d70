"""SimCLR's NT-Xent loss written three ways (masked_fill of the diagonal by -inf with arange labels, a
logsumexp form, and a cross_entropy over positives gathered out of the similarity matrix), SupCon with a
multi-positive mask, a learnable temperature clamped CLIP-style, and the misuse PyTorch rejects."""

import math

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def nt_xent(z1, z2, temperature=0.5):
    n = z1.shape[0]
    z = F.normalize(torch.cat([z1, z2], dim=0), dim=1)
    sim = z @ z.T / temperature
    sim = sim.masked_fill(torch.eye(2 * n, dtype=torch.bool), float("-inf"))
    labels = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, labels), sim, labels


def nt_xent_lse(z1, z2, temperature=0.5):
    n = z1.shape[0]
    z = F.normalize(torch.cat([z1, z2]), p=2.0, dim=-1, eps=1e-12)
    sim = torch.mm(z, z.t()).div_(temperature)
    sim.fill_diagonal_(-math.inf)
    pos = torch.cat([sim.diagonal(n), sim.diagonal(-n)])
    return (torch.logsumexp(sim, dim=1) - pos).mean()


def supcon(features, labels, temperature=0.1, base_temperature=0.07):
    b, v, _ = features.shape
    feats = F.normalize(features, dim=2).transpose(0, 1).reshape(v * b, -1)
    mask = torch.eq(labels.view(-1, 1), labels.view(1, -1)).float().repeat(v, v)
    logits_mask = torch.scatter(torch.ones_like(mask), 1, torch.arange(b * v).view(-1, 1), 0)
    mask = mask * logits_mask
    logits = torch.div(feats @ feats.T, temperature)
    logits_max, _ = torch.max(logits, dim=1, keepdim=True)
    logits = logits - logits_max.detach()
    exp_logits = torch.exp(logits) * logits_mask
    log_prob = logits - torch.log(exp_logits.sum(1, keepdim=True))
    mean_log_prob_pos = (mask * log_prob).sum(1) / mask.sum(1).clamp_min(1.0)
    return (-(temperature / base_temperature) * mean_log_prob_pos).view(v, b).mean()


z1 = torch.randn(6, 16, requires_grad=True)
z2 = torch.randn(6, 16, requires_grad=True)
loss, sim, labels = nt_xent(z1, z2)
print("ntxent", round(loss.item(), 4), loss.grad_fn.name(), sim.shape, labels.tolist())
print("diag", sim.diagonal()[:3].tolist(), torch.isinf(sim).sum().item())
print("lse", round(nt_xent_lse(z1, z2).item(), 4))
loss.backward()
print("grads", round(z1.grad.abs().sum().item(), 4), round(z2.grad.norm().item(), 4))

# accuracy of the positive pair among 2n-1 candidates, top-1 and top-5
with torch.no_grad():
    _, idx = sim.topk(5, dim=1)
    hit = idx.eq(labels.view(-1, 1))
    print("top1", hit[:, 0].float().mean().item(), "top5", hit.any(dim=1).float().mean().item())
    rank = (sim > sim.gather(1, labels[:, None])).sum(1)
    print("rank", rank.tolist())

# label smoothing and reductions on the masked logits
for kw in [dict(reduction="sum"), dict(reduction="none"), dict(label_smoothing=0.1)]:
    out = F.cross_entropy(sim.detach().masked_fill(torch.isinf(sim), -1e4), labels, **kw)
    print(kw, out.round(decimals=4).tolist() if out.ndim else round(out.item(), 4))

# SupCon with two views and repeated classes
feats = torch.randn(8, 2, 12, requires_grad=True)
y = torch.tensor([0, 1, 0, 2, 1, 3, 0, 2])
sc = supcon(feats, y)
sc.backward()
print("supcon", round(sc.item(), 4), sc.grad_fn.name(), round(feats.grad.pow(2).sum().item(), 4))

# a learnable temperature, CLIP-style
logit_scale = nn.Parameter(torch.ones([]) * math.log(1 / 0.07))
opt = torch.optim.AdamW([logit_scale, z1, z2], lr=0.5, weight_decay=0.0)
for step in range(3):
    a, b = F.normalize(z1, dim=-1), F.normalize(z2, dim=-1)
    logits = logit_scale.exp() * a @ b.t()
    t = torch.arange(6)
    l = (F.cross_entropy(logits, t) + F.cross_entropy(logits.t(), t)) / 2
    opt.zero_grad()
    l.backward()
    opt.step()
    with torch.no_grad():
        logit_scale.clamp_(0, math.log(100))
    print("clip", step, round(l.item(), 4), round(logit_scale.item(), 4), round(logit_scale.grad.item(), 4))

# misuse
for fn in [
    lambda: F.cross_entropy(sim, labels.float()[:5]),
    lambda: sim.masked_fill(torch.eye(6, dtype=torch.bool), 0.0),
    lambda: sim.masked_fill(torch.eye(12), 0.0),
    lambda: F.cross_entropy(sim, labels + 12),
    lambda: torch.eye(3).fill_diagonal_(1.0, wrap=2),
]:
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, e)
