"""Weight averaging variants seen in training scripts: SWA over a cyclic phase with SWALR per param group
(swa_lr lists, anneal_epochs, both strategies, its state dict), a warmup-EMA custom avg_fn that reads
num_averaged, get_swa_multi_avg_fn and get_swa_avg_fn, averaging buffers, update_bn restoring momenta, and the
averaged model's state dict saved and reloaded."""

import io

import torch
from torch import nn
from torch.optim.lr_scheduler import CosineAnnealingLR
from torch.optim.swa_utils import (
    SWALR, AveragedModel, get_swa_avg_fn, get_swa_multi_avg_fn, update_bn,
)
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(21)
torch.set_printoptions(precision=4)

X = torch.randn(48, 4)
Y = X @ torch.tensor([[1.0], [-2.0], [0.5], [0.0]]) + 0.3
loader = DataLoader(TensorDataset(X, Y), batch_size=12, shuffle=True, generator=torch.Generator().manual_seed(2))


def make():
    torch.manual_seed(22)
    return nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6, momentum=0.2), nn.Tanh(), nn.Linear(6, 1))


model = make()
groups = [{"params": model[0].parameters(), "lr": 0.05},
          {"params": list(model[1].parameters()) + list(model[3].parameters()), "lr": 0.02}]
opt = torch.optim.SGD(groups, lr=0.1, momentum=0.9, weight_decay=1e-4)
base = CosineAnnealingLR(opt, T_max=4)
swa = AveragedModel(model)
swa_multi = AveragedModel(model, multi_avg_fn=get_swa_multi_avg_fn())
swa_single = AveragedModel(model, avg_fn=get_swa_avg_fn())


def warmup_ema(avg, cur, num_averaged):
    decay = min(0.99, (1 + num_averaged.item()) / (10 + num_averaged.item()))
    return decay * avg + (1 - decay) * cur


ema = AveragedModel(model, avg_fn=warmup_ema, use_buffers=True)
swa_sched = SWALR(opt, swa_lr=[0.01, 0.005], anneal_epochs=2, anneal_strategy="linear")
print(type(swa_sched).__name__, swa_sched.anneal_epochs, [round(x, 4) for x in swa_sched.get_last_lr()])
print("swalr state keys", sorted(swa_sched.state_dict().keys()))

for epoch in range(8):
    for xb, yb in loader:
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(xb), yb)
        loss.backward()
        opt.step()
        ema.update_parameters(model)
    if epoch < 4:
        base.step()
        phase = "base"
    else:
        swa.update_parameters(model)
        swa_multi.update_parameters(model)
        swa_single.update_parameters(model)
        swa_sched.step()
        phase = "swa"
    print(epoch, phase, round(loss.item(), 4), [round(g["lr"], 5) for g in opt.param_groups])

print("n_averaged", swa.n_averaged.item(), ema.n_averaged.item(), swa.n_averaged.dtype)
print("multi == single == default", all(torch.allclose(a, b, atol=1e-6) and torch.allclose(a, c, atol=1e-6)
                                        for a, b, c in zip(swa.parameters(), swa_multi.parameters(),
                                                           swa_single.parameters())))
print("swa w0", swa.module[0].weight[0])
print("ema w0", ema.module[0].weight[0])
print("ema tracks buffers", ema.module[1].num_batches_tracked.item(), swa.module[1].num_batches_tracked.item())
print("ema running_mean", ema.module[1].running_mean)

# update_bn recomputes the SWA model's statistics with a cumulative average, then restores momentum
rm_before = swa.module[1].running_mean.clone()
update_bn(loader, swa)
print("bn momentum restored", swa.module[1].momentum, "changed", not torch.equal(rm_before, swa.module[1].running_mean))
print("swa running_var", swa.module[1].running_var)
print("num_batches_tracked", swa.module[1].num_batches_tracked.item())
# the cumulative average equals the statistics over the whole data set
with torch.no_grad():
    h = swa.module[0](X)
print("mean matches full data", torch.allclose(swa.module[1].running_mean, h.mean(0), atol=1e-5))

# a plain-tensor loader works too
update_bn(DataLoader(X, batch_size=16), swa)
print("tensor loader mean", swa.module[1].running_mean[:3])

swa.eval()
model.eval()
print("swa loss", round(nn.functional.mse_loss(swa(X), Y).item(), 4), "last loss",
      round(nn.functional.mse_loss(model(X), Y).item(), 4))

# the averaged model's state dict carries n_averaged and module.-prefixed keys
keys = list(swa.state_dict().keys())
print(keys[0], keys[-1], len(keys))
buf = io.BytesIO()
torch.save(swa.state_dict(), buf)
buf.seek(0)
restored = AveragedModel(make())
print(restored.load_state_dict(torch.load(buf, weights_only=True)))
restored.eval()
print("restored equal", torch.equal(restored(X[:3]), swa(X[:3])), restored.n_averaged.item())

# SWALR's cosine annealing over 3 epochs from each group's lr
opt2 = torch.optim.Adam([nn.Parameter(torch.zeros(1))], lr=0.1)
s2 = SWALR(opt2, swa_lr=0.02, anneal_epochs=3, anneal_strategy="cos")
lrs = [round(s2.get_last_lr()[0], 5)]
for _ in range(5):
    opt2.step()
    s2.step()
    lrs.append(round(s2.get_last_lr()[0], 5))
print("cos anneal", lrs)
for bad in [dict(anneal_strategy="exp"), dict(anneal_epochs=-1), dict(swa_lr=[0.1, 0.2])]:
    kw = dict(swa_lr=0.02)
    kw.update(bad)
    try:
        SWALR(torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1), **kw)
    except ValueError as e:
        print("ValueError", e)
