"""Row augmentations for tabular training (mixup, CutMix over columns, swap noise) with a weight EMA and SWA
(torch.optim.swa_utils), batch-norm statistics refreshed by update_bn."""
import torch
from torch.optim.swa_utils import SWALR, AveragedModel, get_ema_multi_avg_fn, update_bn
from torch.utils.data import DataLoader, TensorDataset

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
N, D = 64, 6
X = torch.randn(N, D)
y = (X[:, 0] - X[:, 3] + 0.5 * X[:, 5] > 0).long()
g = torch.Generator().manual_seed(0)


def mixup(x, y1h, alpha, gen):
    lam = float(torch.rand((), generator=gen)) ** (1 / alpha)  # a skewed mixing weight from the generator
    perm = torch.randperm(x.shape[0], generator=gen)
    return lam * x + (1 - lam) * x[perm], lam * y1h + (1 - lam) * y1h[perm], lam


def cutmix_columns(x, y1h, p, gen):
    """Replace a random subset of each row's columns by another row's (SAINT's CutMix on features)."""
    mask = torch.rand(x.shape, generator=gen) < p
    perm = torch.randperm(x.shape[0], generator=gen)
    frac = mask.float().mean(1, keepdim=True)
    return torch.where(mask, x[perm], x), (1 - frac) * y1h + frac * y1h[perm], mask


def swap_noise(x, p, gen):
    """DAE swap noise: each cell takes the same column's value from a random row."""
    rows = torch.randint(0, x.shape[0], x.shape, generator=gen)
    take = torch.rand(x.shape, generator=gen) < p
    swapped = torch.gather(x, 0, rows)
    return torch.where(take, swapped, x)


y1h = F.one_hot(y, 2).float()
xm, ym, lam = mixup(X, y1h, 0.4, g)
print("mixup", tuple(xm.shape), round(ym.sum().item(), 4), 0.0 <= lam <= 1.0)
xc, yc, mask = cutmix_columns(X, y1h, 0.3, g)
print("cutmix", int(mask.sum()), round(yc.sum(1).mean().item(), 4), torch.equal(xc[~mask], X[~mask]))
xs = swap_noise(X, 0.15, g)
print("swap noise", round((xs != X).float().mean().item(), 4) < 0.3, tuple(xs.shape))

model = nn.Sequential(nn.Linear(D, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 2))
ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))
swa = AveragedModel(model)
print("averaged", type(ema.module).__name__, ema.n_averaged.item(), [k for k in swa.state_dict()][:3])
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
swa_sched = SWALR(opt, swa_lr=0.02, anneal_epochs=2, anneal_strategy="cos")
loader = DataLoader(TensorDataset(X, y1h), batch_size=16, shuffle=True, generator=torch.Generator().manual_seed(1))
lrs = []
for epoch in range(6):
    model.train()
    for xb, yb in loader:
        xb2, yb2, _ = cutmix_columns(xb, yb, 0.2, g)
        loss = F.cross_entropy(model(xb2), yb2)  # soft targets
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema.update_parameters(model)
    if epoch >= 3:
        swa.update_parameters(model)
        swa_sched.step()
    lrs.append(round(opt.param_groups[0]["lr"], 5))
    print(epoch, round(loss.item(), 4))
print("lrs", lrs, "ema n", ema.n_averaged.item(), "swa n", swa.n_averaged.item())
print("bn before", swa.module[1].num_batches_tracked.item(), round(swa.module[1].running_var.mean().item(), 4))
update_bn(loader, swa)
print("bn after", swa.module[1].num_batches_tracked.item(), round(swa.module[1].running_mean.abs().mean().item(), 4),
      swa.module[1].momentum)
for name, m in [("model", model), ("ema", ema), ("swa", swa)]:
    m.eval()
    with torch.no_grad():
        acc = (m(X).argmax(1) == y).float().mean().item()
    print(name, "acc", round(acc, 4))
diff = sum((p1 - p2).abs().sum().item() for p1, p2 in zip(model.parameters(), swa.parameters()))
print("swa differs from last", diff > 0)
for name, fn in [
    ("swalr bad strategy", lambda: SWALR(opt, swa_lr=0.1, anneal_strategy="step")),
    ("swalr bad epochs", lambda: SWALR(opt, swa_lr=0.1, anneal_epochs=-1)),
    ("beta bad", lambda: torch.distributions.Beta(0.0, 1.0)),
    ("gather shape", lambda: torch.gather(X, 0, torch.zeros(2, D + 1, dtype=torch.long))),
]:
    try:
        fn()
        print(name, "ok")
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
