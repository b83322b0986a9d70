"""Continual-learning evaluation as papers report it: an accuracy matrix R[i, j] filled task by task, average
accuracy, backward and forward transfer, forgetting and intransigence, learning accuracy, area under the
accuracy curve, per-task confusion matrices with bincount, and the printed tables."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

T = 4
R = torch.tensor([
    [0.91, 0.12, 0.08, 0.10],
    [0.75, 0.88, 0.15, 0.09],
    [0.62, 0.71, 0.90, 0.11],
    [0.55, 0.60, 0.78, 0.93],
], dtype=torch.float64)
random_init = torch.tensor([0.10, 0.11, 0.09, 0.10], dtype=torch.float64)
joint_ref = torch.tensor([0.95, 0.93, 0.94, 0.95], dtype=torch.float64)
print(R)
avg_acc = R[-1].mean()
bwt = (R[-1, :-1] - R.diagonal()[:-1]).mean()
fwt = (R.diagonal(offset=-1)[:0].sum() + torch.stack([R[i - 1, i] - random_init[i] for i in range(1, T)]).mean())
print("ACC:", round(avg_acc.item(), 4), "BWT:", round(bwt.item(), 4), "FWT:", round(fwt.item(), 4))
upper = torch.triu(R, diagonal=1)
print("upper (zero-shot) sum:", round(upper.sum().item(), 4), torch.triu_indices(T, T, 1).tolist())
lower = torch.tril(R)
print("seen-task means per step:", (lower.sum(1) / torch.arange(1, T + 1)).round(decimals=4).tolist())
best_prev = torch.stack([R[: T - 1, j].max() for j in range(T - 1)])
forgetting = best_prev - R[-1, :-1]
print("forgetting per task:", forgetting.round(decimals=4).tolist(), "mean:", round(forgetting.mean().item(), 4))
cm, arg = torch.cummax(R, dim=0)
print("cummax rows:", cm[-1].tolist(), arg[-1].tolist())
intrans = joint_ref - R.diagonal()
print("intransigence:", intrans.round(decimals=4).tolist())
la = R.diagonal().mean()
print("learning accuracy:", round(la.item(), 4))
curve = torch.tensor([R[i, : i + 1].mean() for i in range(T)])
print("curve:", curve.round(decimals=4).tolist(), "area:", round(torch.trapezoid(curve).item(), 4),
      round(torch.trapezoid(curve, dx=0.5).item(), 4), torch.cumulative_trapezoid(curve).round(decimals=4).tolist())
masked = R.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("nan"))
print("nan-masked mean per task:", masked.nanmean(0).round(decimals=4).tolist())
print("nanmedian:", masked.nanmedian(dim=0).values.tolist(), "nansum:", round(masked.nansum().item(), 4))
print("std of final:", round(R[-1].std().item(), 4), round(R[-1].std(correction=0).item(), 4))
print(masked.to(torch.float32))

logits = torch.randn(40, 4)
labels = torch.arange(40) % 4
pred = logits.argmax(1)
conf = torch.bincount(labels * 4 + pred, minlength=16).reshape(4, 4)
print(conf)
recall = conf.diagonal() / conf.sum(1)
precision = conf.diagonal() / conf.sum(0).clamp(min=1)
print("recall:", recall.round(decimals=4).tolist(), "precision:", precision.round(decimals=4).tolist())
per_task = [round((pred[labels // 2 == k] == labels[labels // 2 == k]).float().mean().item(), 4) for k in range(2)]
print("per-task:", per_task)
task_aware = logits.view(40, 2, 2)[torch.arange(40), labels // 2].argmax(1) + 2 * (labels // 2)
print("task-aware acc:", (task_aware == labels).float().mean().item())
print("aminmax:", [v.item() for v in torch.aminmax(R)], R.argmax().item(), torch.unravel_index(R.argmax(), R.shape))
header = " ".join(f"T{j}" for j in range(T))
print("     " + header)
for i in range(T):
    print(f"T{i}: " + " ".join(f"{v:.2f}" for v in R[i].tolist()))

for bad in [lambda: R.diagonal(dim1=0, dim2=0),
            lambda: torch.trapezoid(curve, dx=0.5, x=curve),
            lambda: torch.bincount(labels, minlength=-1),
            lambda: torch.bincount(labels * 4 + pred, minlength=16.0),
            lambda: labels.bincount(None, 4.0),
            lambda: torch.triu(torch.ones(3)),
            lambda: torch.unravel_index(torch.tensor(20), (4, 4)),
            lambda: R.std(correction=5)]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
