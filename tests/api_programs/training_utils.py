"""swa_utils, pruning, LBFGS, GradScaler, EMA, foreach, misc training utilities."""

import copy
import numpy as np
import torch
from torch import nn
import torch.nn.utils.prune as prune
from torch.optim.swa_utils import AveragedModel, SWALR, update_bn, get_ema_multi_avg_fn
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


def det(m):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * 0.3)
    return m


m = det(nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1)))
X, Y = T(32, 4), T(32, 1)
opt = torch.optim.SGD(m.parameters(), lr=0.05)
swa = AveragedModel(m)
ema = AveragedModel(m, multi_avg_fn=get_ema_multi_avg_fn(0.9))
sched = SWALR(opt, swa_lr=0.01, anneal_epochs=2, anneal_strategy="cos")
for i in range(4):
    loss = nn.functional.mse_loss(m(X), Y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    swa.update_parameters(m)
    ema.update_parameters(m)
    sched.step()
print(
    "swa", swa.n_averaged.item(), r(swa.module[0].weight), r(ema.module[0].weight), round(opt.param_groups[0]["lr"], 6)
)
update_bn(DataLoader(TensorDataset(X), batch_size=8), swa)
print("update_bn", r(swa.module[1].running_mean))
print("swa_keys", list(swa.state_dict().keys())[:3])
lin = det(nn.Linear(5, 4))
prune.l1_unstructured(lin, name="weight", amount=0.5)
print(
    "prune",
    sorted(n for n, _ in lin.named_parameters()),
    sorted(n for n, _ in lin.named_buffers()),
    int((lin.weight == 0).sum()),
    prune.is_pruned(lin),
)
prune.random_unstructured(lin, name="bias", amount=1)
prune.ln_structured(lin, name="weight", amount=1, n=2, dim=0)
print("prune2", int((lin.weight == 0).sum()), int((lin.bias == 0).sum()))
prune.remove(lin, "weight")
print("prune_removed", sorted(n for n, _ in lin.named_parameters()))
m2 = nn.Sequential(det(nn.Linear(3, 3)), det(nn.Linear(3, 3)))
prune.global_unstructured([(m2[0], "weight"), (m2[1], "weight")], pruning_method=prune.L1Unstructured, amount=6)
print("global", int((m2[0].weight == 0).sum() + (m2[1].weight == 0).sum()))
# LBFGS
w = nn.Parameter(torch.tensor([1.5, -0.5]))
lb = torch.optim.LBFGS([w], lr=1, max_iter=20, history_size=5, line_search_fn="strong_wolfe")


def closure():
    lb.zero_grad()
    l = (1 - w[0]) ** 2 + 100 * (w[1] - w[0] ** 2) ** 2
    l.backward()
    return l


for _ in range(5):
    lb.step(closure)
print("lbfgs", r(w))
# GradScaler on cpu
scaler = torch.amp.GradScaler("cpu", init_scale=2.0**4)
mm = det(nn.Linear(3, 1))
o = torch.optim.Adam(mm.parameters(), lr=0.01)
with torch.autocast("cpu", dtype=torch.bfloat16):
    l = mm(T(4, 3)).float().pow(2).mean()
scaler.scale(l).backward()
scaler.unscale_(o)
nn.utils.clip_grad_norm_(mm.parameters(), 1.0)
scaler.step(o)
scaler.update()
print("scaler", scaler.get_scale(), scaler.is_enabled(), sorted(scaler.state_dict().keys()))
# foreach and fused flags
for kw in [
    {"foreach": True},
    {"foreach": False},
    {"fused": False},
    {"capturable": False},
    {"maximize": True},
    {"differentiable": False},
]:
    p = nn.Parameter(torch.tensor([1.0, 2.0]))
    oo = torch.optim.Adam([p], lr=0.1, **kw)
    p.grad = torch.tensor([0.5, -0.5])
    oo.step()
    print("adam", kw, r(p))
p = nn.Parameter(torch.tensor([1.0, 2.0]))
oo = torch.optim.SGD([p], lr=0.1)
p.grad = torch.tensor([1.0, 1.0])
hooks = []
oo.register_step_pre_hook(lambda opt, args, kwargs: hooks.append("pre"))
oo.register_step_post_hook(lambda opt, args, kwargs: hooks.append("post"))
oo.step()
print("opt_hooks", hooks, r(p))
print("opt_repr", repr(torch.optim.SGD([p], lr=0.1)).splitlines()[:3])
print("deepcopy", r(copy.deepcopy(m)[0].weight), type(copy.deepcopy(opt)).__name__)
print("param_vec", nn.utils.parameters_to_vector(mm.parameters()).shape)
print(
    "clip_foreach",
    round(
        nn.utils.clip_grad_norm_(mm.parameters(), 0.1, norm_type=2.0, error_if_nonfinite=True, foreach=True).item(), 4
    )
    >= 0,
)
print("get_total_norm", round(nn.utils.get_total_norm([torch.ones(3), torch.ones(4)]).item(), 4))
ema_p = [torch.zeros(2)]
torch._foreach_mul_(ema_p, 0.9)
torch._foreach_add_(ema_p, [torch.ones(2)], alpha=0.1)
print("foreach", r(ema_p[0]), r(torch._foreach_norm([torch.ones(4)])[0]))
print("OK")
