"""Weight averaging and gradient clipping as used in an SWA/EMA ablation: AveragedModel with a custom avg_fn,
get_ema_multi_avg_fn and get_swa_multi_avg_fn (with and without buffers), SWALR's cos/linear annealing per
group, update_bn over a DataLoader; and every gradient-clipping variant (norm types, non-finite checks,
foreach, clip_grad_value_, get_total_norm + clip_grads_with_norm_) on the same gradients."""

import numpy as np
import torch
from torch import nn
from torch.optim import swa_utils
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(11)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(t, k=4):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


def make_net():
    net = nn.Sequential(nn.Linear(4, 6, bias=False), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 2))
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(T(*p.shape) * 0.5)
    return net


X, Y = T(32, 4), T(32, 2)
loader = DataLoader(TensorDataset(X, Y), batch_size=8, shuffle=False)

# --- SWA with SWALR
net = make_net()
opt = torch.optim.SGD(
    [{"params": net[0].parameters()}, {"params": net[3].parameters(), "lr": 0.02}], lr=0.05, momentum=0.9
)
swa = swa_utils.AveragedModel(net)
sched = swa_utils.SWALR(opt, swa_lr=[0.01, 0.005], anneal_epochs=3, anneal_strategy="cos")
lrs = []
for epoch in range(5):
    for xb, yb in loader:
        opt.zero_grad()
        nn.functional.mse_loss(net(xb), yb).backward()
        opt.step()
    swa.update_parameters(net)
    sched.step()
    lrs.append([round(g["lr"], 5) for g in opt.param_groups])
print("swalr_cos", lrs)
print("n_averaged", swa.n_averaged, swa.n_averaged.dtype, type(swa.module).__name__)
print("swa_w", r(swa.module[0].weight), "net_w", r(net[0].weight))
print("bn_before", r(swa.module[1].running_mean), swa.module[1].num_batches_tracked.item())
swa_utils.update_bn(loader, swa)
print(
    "bn_after",
    r(swa.module[1].running_mean),
    r(swa.module[1].running_var),
    swa.module[1].momentum,
    swa.module[1].num_batches_tracked.item(),
)
swa.eval()
print("swa_out", r(swa(X[:2]), 4))
print("swa_keys", [k for k in swa.state_dict() if not k.startswith("module.")], len(swa.state_dict()))

o2 = torch.optim.SGD(net.parameters(), lr=0.1)
s2 = swa_utils.SWALR(o2, swa_lr=0.02, anneal_epochs=4, anneal_strategy="linear")
seq = []
for _ in range(6):
    o2.step()
    s2.step()
    seq.append(round(o2.param_groups[0]["lr"], 5))
print("swalr_linear", seq, sorted(s2.state_dict())[:4])
for bad in (
    lambda: swa_utils.SWALR(o2, swa_lr=0.1, anneal_strategy="exp"),
    lambda: swa_utils.SWALR(o2, swa_lr=0.1, anneal_epochs=-1),
    lambda: swa_utils.SWALR(o2, swa_lr=[0.1, 0.2]),
):
    try:
        bad()
    except (ValueError, TypeError) as e:
        print("swalr_err", type(e).__name__, e)

# --- EMA variants
net = make_net()
ema = swa_utils.AveragedModel(net, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.9), use_buffers=True)
ema_custom = swa_utils.AveragedModel(net, avg_fn=lambda avg, cur, n: 0.8 * avg + 0.2 * cur)
swa_multi = swa_utils.AveragedModel(net, multi_avg_fn=swa_utils.get_swa_multi_avg_fn())
opt = torch.optim.Adam(net.parameters(), lr=0.05)
for xb, yb in loader:
    opt.zero_grad()
    nn.functional.mse_loss(net(xb), yb).backward()
    opt.step()
    for m in (ema, ema_custom, swa_multi):
        m.update_parameters(net)
print("ema", r(ema.module[3].weight), "custom", r(ema_custom.module[3].weight), "swa", r(swa_multi.module[3].weight))
print("ema_bn", r(ema.module[1].running_mean), "custom_bn", r(ema_custom.module[1].running_mean))
print("ema_n", ema.n_averaged.item(), ema_custom.n_averaged.item())
print("requires_grad", ema.module[0].weight.requires_grad, next(ema.parameters()).is_leaf)


# --- clipping: same gradients, every variant
def grads():
    net = make_net()
    nn.functional.mse_loss(net(X), Y * 10).backward()
    return net


for nt in (2.0, 1, float("inf"), 0.5):
    n = grads()
    tot = nn.utils.clip_grad_norm_(n.parameters(), max_norm=1.0, norm_type=nt)
    after = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(p.grad, nt) for p in n.parameters()]), nt)
    print("clip_norm", nt, f"{tot.item():.4g}", round(after.item(), 4), tot.dtype, tot.shape)
n = grads()
tot_fe = nn.utils.clip_grad_norm_(n.parameters(), 0.5, foreach=True)
print("foreach", round(tot_fe.item(), 4), r(n[0].weight.grad))
n = grads()
tot_small = nn.utils.clip_grad_norm_(list(n.parameters()), 1e6)
print("no_clip", round(tot_small.item(), 4), r(n[0].weight.grad))
n = grads()
nn.utils.clip_grad_value_(n.parameters(), clip_value=0.25)
print("clip_value", r(n[0].weight.grad), max(p.grad.abs().max().item() for p in n.parameters()))
n = grads()
gs = [p.grad for p in n.parameters()]
total = nn.utils.get_total_norm(gs, norm_type=2.0)
nn.utils.clip_grads_with_norm_(n.parameters(), max_norm=2.0, total_norm=total)
print("two_stage", round(total.item(), 4), r(n[3].weight.grad))
print("total_inf", round(nn.utils.get_total_norm(gs, norm_type="inf").item(), 4))
n = grads()
n[0].weight.grad[0, 0] = float("nan")
print("nan_total", nn.utils.clip_grad_norm_(n.parameters(), 1.0).item())
try:
    nn.utils.clip_grad_norm_(n.parameters(), 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print("nonfinite", type(e).__name__, str(e)[:90])
print("single_tensor", round(nn.utils.clip_grad_norm_(n[3].weight, 0.1).item(), 4), r(n[3].weight.grad))
print("empty", nn.utils.clip_grad_norm_([], 1.0))
p = nn.Parameter(torch.ones(3))
print("no_grads", nn.utils.clip_grad_norm_([p], 1.0), p.grad)
print("OK")
