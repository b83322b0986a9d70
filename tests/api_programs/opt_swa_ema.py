"""Weight averaging as the SWA and EMA recipes write it: AveragedModel with the default equal average, with
get_ema_multi_avg_fn and get_ema_avg_fn, and with use_buffers=True; SWALR's cosine and linear annealing into the
swa_lr after a regular schedule; update_bn recomputing BatchNorm statistics over a loader; and the averaged
weights compared with a hand-computed mean."""

import torch
from torch import nn
from torch.optim.swa_utils import SWALR, AveragedModel, get_ema_avg_fn, get_ema_multi_avg_fn, update_bn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
torch.set_printoptions(precision=4)

X = torch.randn(64, 5)
y = (X[:, 0] * 2 - X[:, 1] + 0.1 * torch.randn(64)).unsqueeze(1)
loader = DataLoader(TensorDataset(X, y), batch_size=16, shuffle=True, generator=torch.Generator().manual_seed(0))


def make_net():
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(5, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))


net = make_net()
swa = AveragedModel(net)
ema = AveragedModel(net, multi_avg_fn=get_ema_multi_avg_fn(0.9))
ema_single = AveragedModel(net, avg_fn=get_ema_avg_fn(0.9))
ema_buf = AveragedModel(net, multi_avg_fn=get_ema_multi_avg_fn(0.9), use_buffers=True)
print("averaged module:", type(swa.module).__name__, "n_averaged:", swa.n_averaged, swa.n_averaged.dtype)
print("state keys:", list(swa.state_dict())[:3], "...", list(swa.state_dict())[-1])

opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
swa_sched = SWALR(opt, swa_lr=0.02, anneal_epochs=2, anneal_strategy="cos")
swa_start = 3
snapshots = []
for epoch in range(7):
    total = 0.0
    for xb, yb in loader:
        opt.zero_grad()
        loss = nn.functional.mse_loss(net(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item() * len(xb)
        ema.update_parameters(net)
        ema_single.update_parameters(net)
        ema_buf.update_parameters(net)
    if epoch >= swa_start:
        swa.update_parameters(net)
        snapshots.append(net[3].weight.detach().clone())
        swa_sched.step()
    else:
        sched.step()
    print(f"epoch {epoch} loss {total / len(X):.4f} lr {opt.param_groups[0]['lr']:.5f} n_avg {int(swa.n_averaged)}")

manual = torch.stack(snapshots).mean(0)
print("swa head weight:", swa.module[3].weight.detach())
print("matches manual mean:", torch.allclose(manual, swa.module[3].weight, atol=1e-6))
print("ema head weight:", ema.module[3].weight.detach())
print("ema single == multi:", torch.allclose(ema.module[3].weight, ema_single.module[3].weight, atol=1e-6))
print("ema n_averaged:", int(ema.n_averaged))

# buffers: without use_buffers the averaged BN statistics are the copies from construction
print("swa running_mean before update_bn:", swa.module[1].running_mean[:4])
print("ema_buf running_mean (averaged):", ema_buf.module[1].running_mean[:4])
update_bn(loader, swa)
print("swa running_mean after update_bn:", swa.module[1].running_mean[:4])
print("num_batches_tracked:", int(swa.module[1].num_batches_tracked), "momentum restored:", swa.module[1].momentum)
swa.eval()
with torch.no_grad():
    print("swa eval mse:", round(nn.functional.mse_loss(swa(X), y).item(), 4),
          "net eval mse:", round(nn.functional.mse_loss(net.eval()(X), y).item(), 4))

# SWALR on its own: linear annealing from the group's lr to swa_lr
opt2 = torch.optim.SGD(make_net().parameters(), lr=0.5)
s2 = SWALR(opt2, swa_lr=[0.05], anneal_epochs=3, anneal_strategy="linear")
lrs = [round(opt2.param_groups[0]["lr"], 5)]
for _ in range(5):
    opt2.step()
    s2.step()
    lrs.append(round(opt2.param_groups[0]["lr"], 5))
print("SWALR linear:", lrs, "swa_lr in group:", opt2.param_groups[0]["swa_lr"])
print("SWALR state keys:", sorted(s2.state_dict()))
try:
    SWALR(opt2, swa_lr=0.05, anneal_strategy="exp")
except ValueError as e:
    print("ValueError:", e)
try:
    SWALR(opt2, swa_lr=0.05, anneal_epochs=-1)
except ValueError as e:
    print("ValueError:", e)
try:
    SWALR(opt2, swa_lr=[0.05, 0.01])
except ValueError as e:
    print("ValueError:", e)

# an averaged model saves and restores n_averaged with its weights
sd = swa.state_dict()
again = AveragedModel(make_net())
again.load_state_dict(sd)
print("restored n_averaged:", int(again.n_averaged), torch.equal(again.module[0].weight, swa.module[0].weight))
