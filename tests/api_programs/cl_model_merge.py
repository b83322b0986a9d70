"""Model merging after continual fine-tuning: state_dict arithmetic (task vectors, integer buffers kept), torch.lerp
with scalar and tensor weights, TIES-style trimming and sign election with kthvalue, weight averaging with
swa_utils.AveragedModel (default, EMA and multi-avg functions), update_bn over a loader, and load_state_dict's
strict and assign forms."""

import copy

import torch
from torch.optim.swa_utils import AveragedModel, SWALR, get_ema_multi_avg_fn, get_ema_avg_fn, update_bn

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def make():
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))


base = make()
x = torch.randn(64, 4)
y = (x[:, 0] * x[:, 1] > 0).long()


def finetune(model, x, y, steps, lr):
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    return model


ft_a = finetune(copy.deepcopy(base), x[:32], y[:32], 15, 0.1)
ft_b = finetune(copy.deepcopy(base), x[32:], y[32:], 15, 0.1)
sd0, sda, sdb = base.state_dict(), ft_a.state_dict(), ft_b.state_dict()
print("keys:", list(sd0.keys()))
print("nbt:", sd0["1.num_batches_tracked"], sda["1.num_batches_tracked"], sda["1.num_batches_tracked"].dtype)

tau_a = {k: sda[k] - sd0[k] for k in sd0 if sd0[k].is_floating_point()}
tau_b = {k: sdb[k] - sd0[k] for k in sd0 if sd0[k].is_floating_point()}
print("task vector norms:", {k: round(v.norm().item(), 4) for k, v in list(tau_a.items())[:3]})
cos = F.cosine_similarity(
    torch.cat([v.flatten() for v in tau_a.values()]), torch.cat([v.flatten() for v in tau_b.values()]), dim=0
)
print("tau cos:", round(cos.item(), 4))


def ties(taus, k=0.5, lam=1.0):
    merged = {}
    for key in taus[0]:
        stack = torch.stack([t[key] for t in taus])
        flat = stack.abs().reshape(len(taus), -1)
        n_keep = max(1, int(flat.shape[1] * k))
        thresh = flat.kthvalue(flat.shape[1] - n_keep + 1, dim=1, keepdim=True).values
        trimmed = torch.where(flat >= thresh, stack.reshape(len(taus), -1), torch.zeros(()))
        sign = torch.sign(trimmed.sum(0))
        agree = (torch.sign(trimmed) == sign) & (trimmed != 0)
        mean = (trimmed * agree).sum(0) / agree.sum(0).clamp(min=1)
        merged[key] = lam * mean.reshape(stack.shape[1:])
    return merged


tm = ties([tau_a, tau_b], k=0.3)
print("ties nonzero:", {k: int((v != 0).sum()) for k, v in tm.items()})
merged_sd = {k: (sd0[k] + tm[k]) if k in tm else sda[k] for k in sd0}
merged = make()
print("load:", merged.load_state_dict(merged_sd))

for w in [0.0, 0.3, 1.0]:
    lerped = {k: torch.lerp(sda[k], sdb[k], w) if sda[k].is_floating_point() else sda[k] for k in sda}
    m = make()
    m.load_state_dict(lerped)
    m.eval()
    with torch.no_grad():
        print(f"lerp {w}: acc={(m(x).argmax(1) == y).float().mean().item():.4f}")
wt = torch.linspace(0, 1, 8)
l2 = torch.lerp(sda["0.bias"], sdb["0.bias"], wt)
print("tensor weight lerp:", l2.round(decimals=4).tolist())
print(
    "lerp_ / out:",
    torch.zeros(3).lerp_(torch.ones(3), 0.25).tolist(),
    torch.lerp(torch.zeros(2), torch.ones(2), torch.tensor(0.5)).tolist(),
)

swa = AveragedModel(base)
ema = AveragedModel(base, multi_avg_fn=get_ema_multi_avg_fn(0.9))
ema2 = AveragedModel(base, avg_fn=get_ema_avg_fn(0.9), use_buffers=True)
print("avg keys:", list(swa.state_dict().keys())[:2], swa.n_averaged, swa.n_averaged.dtype)
opt = torch.optim.SGD(base.parameters(), lr=0.05)
sched = SWALR(opt, swa_lr=0.01, anneal_epochs=3, anneal_strategy="linear")
for epoch in range(5):
    finetune(base, x, y, 3, opt.param_groups[0]["lr"])
    swa.update_parameters(base)
    ema.update_parameters(base)
    ema2.update_parameters(base)
    sched.step()
    print(f"epoch {epoch}: lr={opt.param_groups[0]['lr']:.4f} n={swa.n_averaged.item()}")
print("swa w:", swa.module[0].bias.round(decimals=4).tolist()[:4])
print("ema w:", ema.module[0].bias.round(decimals=4).tolist()[:4])
print("ema2 rm:", ema2.module[1].running_mean.round(decimals=4).tolist()[:4])
print("swa rm before:", swa.module[1].running_mean.round(decimals=4).tolist()[:4])
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=16)
update_bn(((xb,) for xb, _ in loader), swa)
print("swa rm after:", swa.module[1].running_mean.round(decimals=4).tolist()[:4], swa.module[1].momentum)
update_bn(loader, swa)
print("nbt:", swa.module[1].num_batches_tracked.item())
print(type(swa.module).__name__, swa.training, swa(x[:2]).shape)

for bad in [
    lambda: merged.load_state_dict({k: v for k, v in merged_sd.items() if k != "0.bias"}),
    lambda: merged.load_state_dict({**merged_sd, "extra": torch.zeros(1)}),
    lambda: merged.load_state_dict({**merged_sd, "0.bias": torch.zeros(3)}),
    lambda: merged.load_state_dict({**merged_sd, "extra": torch.zeros(1)}, strict=False),
    lambda: torch.lerp(torch.zeros(2), torch.ones(3), 0.5),
    lambda: torch.lerp(torch.zeros(2), torch.ones(2, dtype=torch.float64), 0.5),
    lambda: SWALR(opt, swa_lr=0.1, anneal_strategy="step"),
]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
m = make()
m.load_state_dict(merged_sd, assign=True)
print("assign shares:", m[0].weight.data_ptr() == merged_sd["0.weight"].data_ptr(), type(m[0].weight).__name__)
