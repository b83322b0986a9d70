"""Point-set distances as completion and generation papers compute them: Chamfer distance both ways with its
indices (L1 and L2 variants, batched and with torch.dist), density-aware Chamfer, F-score at a threshold, an
approximate Earth mover's distance by log-domain Sinkhorn with logsumexp, an auction-free greedy matching, Hausdorff
distance, gradients flowing back into a point set that is optimised toward a target, and the errors of cdist."""

import math

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
t = torch.linspace(0, 2 * math.pi, 65)[:-1]
target = torch.stack([torch.cos(t), torch.sin(t), 0.1 * torch.sin(3 * t)], -1).unsqueeze(0)
pred = (torch.randn(1, 48, 3) * 0.5).requires_grad_()


def chamfer(a, b, squared=True):
    d = torch.cdist(a, b)
    if squared:
        d = d.pow(2)
    d_ab, i_ab = d.min(dim=2)
    d_ba, i_ba = d.min(dim=1)
    return d_ab.mean(1) + d_ba.mean(1), i_ab, i_ba


cd, i_ab, i_ba = chamfer(pred, target)
print("chamfer L2", round(cd.item(), 4), cd.grad_fn.name(), i_ab.dtype, i_ab[0, :6].tolist())
cd1, _, _ = chamfer(pred, target, squared=False)
print("chamfer L1", round(cd1.item(), 4), "p=1 metric", round(torch.cdist(pred, target, p=1).amin(2).mean().item(), 4))
nearest = torch.gather(target, 1, i_ab.unsqueeze(-1).expand(-1, -1, 3))
print("torch.dist", round(torch.dist(pred, nearest).item(), 4), torch.dist(pred, nearest).grad_fn.name(),
      round(torch.dist(pred, nearest, p=1).item(), 4), round(torch.dist(pred, nearest, p=float("inf")).item(), 4))


def density_aware(a, b, alpha=50.0):
    d = torch.cdist(a, b).pow(2)
    d_ab, i_ab = d.min(2)
    d_ba, i_ba = d.min(1)
    cnt_b = torch.zeros(a.shape[0], b.shape[1]).scatter_add_(1, i_ab, torch.ones_like(d_ab))
    cnt_a = torch.zeros(a.shape[0], a.shape[1]).scatter_add_(1, i_ba, torch.ones_like(d_ba))
    w_ab = 1.0 / cnt_b.gather(1, i_ab).clamp_min(1)
    w_ba = 1.0 / cnt_a.gather(1, i_ba).clamp_min(1)
    term = lambda dd, w: (1 - torch.exp(-dd * alpha) * w).mean(1)
    return (term(d_ab, w_ab) + term(d_ba, w_ba)) / 2


print("dcd", round(density_aware(pred, target).item(), 4))


def fscore(a, b, th=0.1):
    d = torch.cdist(a, b)
    precision = (d.amin(2) < th).float().mean(1)
    recall = (d.amin(1) < th).float().mean(1)
    return torch.where(precision + recall > 0, 2 * precision * recall / (precision + recall), torch.zeros_like(recall))


print("fscore", [round(fscore(pred, target, th).item(), 4) for th in (0.1, 0.3, 1.0)])
print("hausdorff", round(torch.maximum(torch.cdist(pred, target).amin(2).amax(1), torch.cdist(pred,
    target).amin(1).amax(1)).item(), 4))


def sinkhorn_emd(a, b, eps=0.05, iters=50):
    cost = torch.cdist(a, b)
    n, m = cost.shape[-2:]
    log_mu = torch.full((a.shape[0], n), -math.log(n))
    log_nu = torch.full((b.shape[0], m), -math.log(m))
    f = torch.zeros_like(log_mu)
    g = torch.zeros_like(log_nu)
    for _ in range(iters):
        f = eps * (log_mu - torch.logsumexp((g.unsqueeze(1) - cost) / eps, dim=2))
        g = eps * (log_nu - torch.logsumexp((f.unsqueeze(2) - cost) / eps, dim=1))
    plan = torch.exp((f.unsqueeze(2) + g.unsqueeze(1) - cost) / eps)
    return (plan * cost).sum((1, 2)), plan


emd, plan = sinkhorn_emd(pred, target)
print("sinkhorn emd", round(emd.item(), 4), emd.grad_fn.name())
print("marginals", round(plan.sum(2).sum().item(), 4), round((plan.sum(1) - 1 / 64).abs().max().item(), 4))
hard = plan[0].argmax(1)
print("plan argmax", hard[:8].tolist(), torch.unique(hard).numel())


def greedy_match(a, b):
    d = torch.cdist(a, b).clone()
    pairs = []
    for _ in range(min(d.shape)):
        k = torch.argmin(d)
        i, j = divmod(k.item(), d.shape[1])
        pairs.append((i, j))
        d[i, :] = float("inf")
        d[:, j] = float("inf")
    return torch.tensor(pairs)


pairs = greedy_match(pred[0].detach()[:10], target[0, :12])
print("greedy", pairs[:5].tolist(), round((pred[0, pairs[:, 0]] - target[0, pairs[:, 1]]).norm(dim=1).mean().item(), 4))

opt = torch.optim.Adam([pred], lr=0.05)
for step in range(30):
    cd, _, _ = chamfer(pred, target)
    emd, _ = sinkhorn_emd(pred, target, iters=10)
    loss = cd + 0.1 * emd
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 9:
        print("fit", step, round(cd.item(), 4), round(emd.item(), 4), round(pred.grad.norm().item(), 4))
print("fitted radius", round(pred.detach()[0, :, :2].norm(dim=1).mean().item(), 4))

for call in [lambda: torch.cdist(pred, target[..., :2]), lambda: torch.cdist(pred[0, 0], target[0]),
             lambda: torch.cdist(pred, target, p=-1), lambda: torch.dist(pred, target),
             lambda: torch.cdist(pred.long(), target.long())]:
    try:
        call()
    except Exception as e:
        print(type(e).__name__, e)
