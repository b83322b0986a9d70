"""Model soups and weight averaging: fine-tuned ingredients from one pretrained start, a uniform soup averaging
state_dicts (integer buffers kept), a greedy soup adding ingredients that keep validation accuracy, linear
interpolation between two checkpoints, AveragedModel with an EMA multi_avg_fn and BN statistics refreshed by
update_bn, and the state-dict errors."""

import copy

import torch
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn, update_bn

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
X = torch.randn(64, 6)
Y = (X[:, 0] + 0.5 * X[:, 1] > 0).long() + (X[:, 2] > 1).long()
Xv, Yv = X[48:], Y[48:]
Xt, Yt = X[:48], Y[:48]


def make():
    return nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 3))


base = make()
ingredients = []
for i, (lr, wd) in enumerate([(0.1, 0.0), (0.05, 1e-3), (0.2, 0.0), (0.1, 1e-2)]):
    torch.manual_seed(10 + i)
    m = copy.deepcopy(base)
    opt = torch.optim.SGD(m.parameters(), lr=lr, momentum=0.9, weight_decay=wd)
    for step in range(15):
        idx = torch.randperm(48)[:16]
        loss = F.cross_entropy(m(Xt[idx]), Yt[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    ingredients.append(m.state_dict())


def accuracy(sd):
    m = make()
    m.load_state_dict(sd)
    m.eval()
    with torch.no_grad():
        return round((m(Xv).argmax(1) == Yv).float().mean().item(), 4)


def average(sds):
    out = {}
    for k, v in sds[0].items():
        if v.is_floating_point():
            out[k] = torch.stack([sd[k] for sd in sds]).mean(0)
        else:
            out[k] = v.clone()
    return out


print("ingredients", [accuracy(sd) for sd in ingredients])
print("buffers", [(k, v.dtype, v.item()) for k, v in ingredients[0].items() if not v.is_floating_point()])
uniform = average(ingredients)
print("uniform soup", accuracy(uniform), uniform["1.num_batches_tracked"].dtype)
order = sorted(range(4), key=lambda i: -accuracy(ingredients[i]))
greedy, best = [ingredients[order[0]]], accuracy(ingredients[order[0]])
for i in order[1:]:
    trial = accuracy(average(greedy + [ingredients[i]]))
    if trial >= best:
        greedy.append(ingredients[i])
        best = trial
print("greedy", order, len(greedy), best)

# interpolation path between two ingredients (lerp over floating tensors)
for alpha in [0.0, 0.25, 0.5, 1.0]:
    sd = {k: torch.lerp(a, ingredients[1][k], alpha) if a.is_floating_point() else a
          for k, a in ingredients[0].items()}
    print("alpha", alpha, accuracy(sd))
diff = sum((ingredients[0][k] - ingredients[1][k]).norm() ** 2 for k in ingredients[0]
           if ingredients[0][k].is_floating_point()) ** 0.5
print("distance", round(diff.item(), 4))

# foreach averaging over parameter lists
params = [list(make().parameters()) for _ in range(2)]
avg = [p.detach().clone() for p in params[0]]
torch._foreach_add_(avg, [p.detach() for p in params[1]])
torch._foreach_mul_(avg, 0.5)
print("foreach avg", all(torch.allclose(a, (p.detach() + q.detach()) / 2) for a, p, q in zip(avg, *params)))

# EMA with AveragedModel; BN statistics recomputed afterwards
torch.manual_seed(3)
model = make()
ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(5):
    loss = F.cross_entropy(model(Xt), Yt)
    opt.zero_grad()
    loss.backward()
    opt.step()
    ema.update_parameters(model)
print("n_averaged", ema.n_averaged.item(), type(ema.module).__name__)
print("ema differs", round((ema.module[0].weight - model[0].weight).abs().max().item(), 4))
before = ema.module[1].running_mean.clone()
loader = [(Xt[i:i + 16], Yt[i:i + 16]) for i in range(0, 48, 16)]
update_bn(loader, ema)
print("bn refreshed", not torch.equal(before, ema.module[1].running_mean), ema.module[1].momentum,
      ema.module[1].num_batches_tracked.item())
print("ema keys", list(ema.state_dict().keys())[:3], list(ema.state_dict().keys())[-1])
try:
    average([ingredients[0], make()[:2].state_dict()])
except Exception as e:
    print(type(e).__name__, e)
try:
    make().load_state_dict({k: v for k, v in uniform.items() if k != "3.bias"})
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.stack([ingredients[0]["0.weight"], ingredients[0]["3.weight"]])
except Exception as e:
    print(type(e).__name__, e)
