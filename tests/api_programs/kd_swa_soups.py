"""Weight averaging for fine-tuned models: SWA with SWALR and update_bn, EMA via AveragedModel, uniform
and greedy soups."""

import copy
import torch

nn = torch.nn
F = torch.nn.functional
from torch.optim import swa_utils  # noqa: E402

torch.manual_seed(0)
X = torch.randn(64, 3)
Y = (X[:, 0] - 2 * X[:, 1] > 0).long()
Xv, Yv = torch.randn(32, 3), None
Yv = (Xv[:, 0] - 2 * Xv[:, 1] > 0).long()


def make():
    return nn.Sequential(nn.Linear(3, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))


def acc(m):
    m.eval()
    with torch.no_grad():
        return round((m(Xv).argmax(1) == Yv).float().mean().item(), 4)


net = make()
ema = swa_utils.AveragedModel(net, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.9))
ema_b = swa_utils.AveragedModel(net, avg_fn=swa_utils.get_ema_avg_fn(0.5), use_buffers=True)
swa = swa_utils.AveragedModel(net)
print(type(ema).__name__, ema.n_averaged, sorted(ema.state_dict())[:3])
opt = torch.optim.SGD(net.parameters(), lr=0.2, momentum=0.9)
sched = swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=3, anneal_strategy="linear")
print("lr0", sched.get_last_lr())
for epoch in range(6):
    net.train()
    for i in range(0, 64, 16):
        opt.zero_grad()
        F.cross_entropy(net(X[i : i + 16]), Y[i : i + 16]).backward()
        opt.step()
    sched.step()
    ema.update_parameters(net)
    ema_b.update_parameters(net)
    if epoch >= 2:
        swa.update_parameters(net)
    print(
        epoch,
        [round(lr, 4) for lr in sched.get_last_lr()],
        ema.n_averaged.item(),
        swa.n_averaged.item(),
        round(sum(p.sum().item() for p in swa.parameters()), 4),
    )
print("ema", round(sum(p.sum().item() for p in ema.module.parameters()), 4))
print("ema buffers", [round(b.float().sum().item(), 4) for b in ema_b.module.buffers()])
print("swa buffers before", [round(b.float().sum().item(), 4) for b in swa.module.buffers()])
loader = [(X[i : i + 16], Y[i : i + 16]) for i in range(0, 64, 16)]
swa_utils.update_bn(loader, swa)
bn = swa.module[1]
print("swa bn", bn.running_mean.round(decimals=4).tolist()[:4], bn.momentum, bn.num_batches_tracked.item(), bn.training)
print("acc net", acc(net), "swa", acc(swa), "ema", acc(ema))

# model soups from several fine-tunes of one init
base = make()
ingredients = []
for seed in range(3):
    torch.manual_seed(seed)
    m = copy.deepcopy(base)
    o = torch.optim.Adam(m.parameters(), lr=0.05)
    for _ in range(10):
        o.zero_grad()
        F.cross_entropy(m(X), Y).backward()
        o.step()
    ingredients.append(m)
    print("ingredient", seed, acc(m))
sds = [m.state_dict() for m in ingredients]
uniform = {k: (sum(sd[k].float() for sd in sds) / len(sds)).to(sds[0][k].dtype) for k in sds[0]}
soup = make()
print(soup.load_state_dict(uniform), "uniform soup", acc(soup), uniform["1.num_batches_tracked"])
greedy, best = [sds[0]], acc(ingredients[0])
for sd in sds[1:]:
    cand = {k: torch.stack([s[k].float() for s in greedy + [sd]]).mean(0).to(sd[k].dtype) for k in sd}
    soup.load_state_dict(cand)
    a = acc(soup)
    if a >= best:
        greedy.append(sd)
        best = a
print("greedy", len(greedy), best)
# interpolation between two fine-tunes (WiSE-FT)
for alpha in (0.0, 0.5, 1.0):
    mix = {k: torch.lerp(sds[0][k].float(), sds[1][k].float(), alpha).to(sds[0][k].dtype) for k in sds[0]}
    soup.load_state_dict(mix)
    print("wise", alpha, acc(soup))

for bad in [dict(swa_lr=0.05, anneal_strategy="exp"), dict(swa_lr=[0.1, 0.2]), dict(swa_lr=0.1, anneal_epochs=-1)]:
    try:
        swa_utils.SWALR(opt, **bad)
    except Exception as e:
        print(type(e).__name__, e)
try:
    swa.update_parameters(nn.Linear(3, 8))
except Exception as e:
    print(type(e).__name__, str(e)[:60])
