"""iCaRL-style class-incremental learning: exemplars chosen by herding on normalised features, class means with
index_add_ and scatter_reduce, a nearest-mean-of-exemplars classifier with cdist, logits masked to seen classes,
bias-corrected (BiC) and weight-aligned (WA) heads, and a printed accuracy table."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

n_cls_per_task, n_tasks, d = 2, 3, 6
centers = torch.randn(n_cls_per_task * n_tasks, d) * 3


def task_data(t, n=20):
    cls = torch.arange(t * n_cls_per_task, (t + 1) * n_cls_per_task).repeat_interleave(n)
    return centers[cls] + 3.0 * torch.randn(cls.numel(), d), cls


feat = nn.Sequential(nn.Linear(d, 16), nn.ReLU(), nn.Linear(16, 8))
head = nn.Linear(8, n_cls_per_task * n_tasks)


def herding(f, m):
    f = F.normalize(f, dim=1)
    mu = f.mean(0)
    chosen, acc = [], torch.zeros_like(mu)
    for k in range(1, m + 1):
        dist = ((mu.unsqueeze(0) - (acc.unsqueeze(0) + f) / k) ** 2).sum(1)
        if chosen:
            dist[torch.tensor(chosen)] = float("inf")
        i = int(dist.argmin())
        chosen.append(i)
        acc += f[i]
    return torch.tensor(chosen)


ex_x, ex_y = torch.empty(0, d), torch.empty(0, dtype=torch.long)
opt = torch.optim.SGD(list(feat.parameters()) + list(head.parameters()), lr=0.05, momentum=0.9)
table = torch.full((n_tasks, n_tasks), float("nan"))
tests = [task_data(t, 10) for t in range(n_tasks)]
for t in range(n_tasks):
    x, y = task_data(t)
    x, y = torch.cat([x, ex_x]), torch.cat([y, ex_y])
    seen = (t + 1) * n_cls_per_task
    for _ in range(30):
        opt.zero_grad()
        logits = head(feat(x))
        mask = torch.arange(head.out_features) >= seen
        logits = logits.masked_fill(mask, float("-inf"))
        loss = F.cross_entropy(logits, y)
        loss.backward()
        opt.step()
    print(f"task {t}: loss={loss.item():.4f} lse={torch.logsumexp(logits[:2], 1).round(decimals=4).tolist()}")
    with torch.no_grad():
        f_all = feat(x)
        keep = []
        for c in range(t * n_cls_per_task, seen):
            idx = (y == c).nonzero().squeeze(1)
            keep.append(idx[herding(f_all[idx], 4)])
        keep = torch.cat(keep)
        ex_x, ex_y = torch.cat([ex_x, x[keep]]), torch.cat([ex_y, y[keep]])
        ef = F.normalize(feat(ex_x), dim=1)
        sums = torch.zeros(seen, ef.shape[1]).index_add_(0, ex_y, ef)
        counts = torch.zeros(seen).index_add_(0, ex_y, torch.ones(ex_y.numel()))
        means = F.normalize(sums / counts.unsqueeze(1), dim=1)
        means2 = torch.zeros(seen, ef.shape[1]).scatter_reduce(
            0, ex_y.unsqueeze(1).expand_as(ef), ef, reduce="mean", include_self=False
        )
        print(
            "  exemplars:",
            ex_y.bincount().tolist(),
            "means agree:",
            torch.allclose(F.normalize(means2, dim=1), means, atol=1e-5),
        )
        for s in range(t + 1):
            tx, ty = tests[s]
            d_ = torch.cdist(F.normalize(feat(tx), dim=1), means)
            table[t, s] = (d_.argmin(1) == ty).float().mean()
        norms = head.weight[:seen].norm(dim=1)
        if t > 0:
            old, new = norms[: t * n_cls_per_task].mean(), norms[t * n_cls_per_task :].mean()
            gamma = old / new
            print("  WA gamma:", round(gamma.item(), 4))
            head.weight[t * n_cls_per_task : seen] *= gamma

print("nme table:")
print(table.round(decimals=4))
final = table[-1]
best = torch.nan_to_num(table, nan=-1.0).max(0).values
forgetting = best[:-1] - final[:-1]
print("avg acc:", round(final.nanmean().item(), 4), "forgetting:", forgetting.round(decimals=4).tolist())
bic = nn.Linear(1, 1)
with torch.no_grad():
    bic.weight.fill_(0.8)
    bic.bias.fill_(-0.1)
logits = head(feat(tests[0][0][:3]))
corrected = torch.cat([logits[:, :4], bic(logits[:, 4:].unsqueeze(-1)).squeeze(-1)], dim=1)
print("bic:", corrected.round(decimals=4).tolist()[0])
print("cdist p1:", torch.cdist(means[:2], means[2:4], p=1).round(decimals=4).tolist())
print(
    "cdist modes:",
    torch.allclose(
        torch.cdist(means, means, compute_mode="use_mm_for_euclid_dist"),
        torch.cdist(means, means, compute_mode="donot_use_mm_for_euclid_dist"),
        atol=1e-2,
    ),
)

for bad in [
    lambda: torch.cdist(means, means[:, :3]),
    lambda: torch.cdist(means, means, p=-1),
    lambda: torch.zeros(3, 8).index_add_(0, ex_y, ef),
    lambda: torch.zeros(6, 8).scatter_reduce(0, ex_y.unsqueeze(1).expand_as(ef), ef, reduce="avg"),
    lambda: torch.zeros(6).index_add_(0, ex_y.float(), torch.ones(ex_y.numel())),
]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
