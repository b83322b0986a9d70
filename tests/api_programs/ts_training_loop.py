"""A forecasting training loop as research repos write it: an IterableDataset of sliding windows split across
DataLoader workers by get_worker_info, a DLinear model (moving-average decomposition, per-channel Linear heads),
ReduceLROnPlateau and OneCycleLR schedules, early stopping on a validation loss with the best state_dict kept by
deepcopy, checkpoints through io.BytesIO with torch.save/torch.load, and torch.func.vmap/functional_call to score
an ensemble of stacked parameter sets at once (and the error vmap raises for a write into a preallocated
output)."""

import copy
import io
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, stack_module_state, vmap
from torch.utils.data import DataLoader, IterableDataset, get_worker_info

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

T_all = 120
t = torch.arange(T_all, dtype=torch.float32)
data = torch.stack([torch.sin(2 * math.pi * t / 24) + 0.01 * t, torch.cos(2 * math.pi * t / 12) * 0.5], -1)
seq_len, pred_len = 24, 6


class WindowStream(IterableDataset):
    def __init__(self, series, start, end):
        self.series, self.start, self.end = series, start, end

    def __iter__(self):
        info = get_worker_info()
        idx = range(self.start, self.end - seq_len - pred_len + 1)
        if info is not None:
            idx = idx[info.id::info.num_workers]
        for i in idx:
            yield self.series[i:i + seq_len], self.series[i + seq_len:i + seq_len + pred_len]


class DLinear(nn.Module):
    def __init__(self, channels, kernel=5, individual=True):
        super().__init__()
        self.kernel, self.individual, self.channels = kernel, individual, channels
        self.avg = nn.AvgPool1d(kernel_size=kernel, stride=1, padding=0)
        self.Linear_Seasonal = nn.ModuleList([nn.Linear(seq_len, pred_len) for _ in range(channels)])
        self.Linear_Trend = nn.ModuleList([nn.Linear(seq_len, pred_len) for _ in range(channels)])
        for i in range(channels):
            self.Linear_Seasonal[i].weight = nn.Parameter((1 / seq_len) * torch.ones([pred_len, seq_len]))
            self.Linear_Trend[i].weight = nn.Parameter((1 / seq_len) * torch.ones([pred_len, seq_len]))
            nn.init.zeros_(self.Linear_Seasonal[i].bias)
            nn.init.constant_(self.Linear_Trend[i].bias, 0.0)

    def forward(self, x):
        front = x[:, 0:1, :].repeat(1, (self.kernel - 1) // 2, 1)
        end = x[:, -1:, :].repeat(1, (self.kernel - 1) // 2, 1)
        trend = self.avg(torch.cat([front, x, end], dim=1).permute(0, 2, 1)).permute(0, 2, 1)
        seasonal_init, trend_init = (x - trend).permute(0, 2, 1), trend.permute(0, 2, 1)
        seasonal_output = torch.zeros([seasonal_init.size(0), seasonal_init.size(1), pred_len],
                                      dtype=seasonal_init.dtype).to(seasonal_init.device)
        trend_output = torch.zeros_like(seasonal_output)
        for i in range(self.channels):
            seasonal_output[:, i, :] = self.Linear_Seasonal[i](seasonal_init[:, i, :])
            trend_output[:, i, :] = self.Linear_Trend[i](trend_init[:, i, :])
        return (seasonal_output + trend_output).permute(0, 2, 1)


train_ds, val_ds = WindowStream(data, 0, 80), WindowStream(data, 80 - seq_len, 120)
n_train = len(list(iter(train_ds)))
print("train windows", n_train, "val windows", len(list(iter(val_ds))))
loader = DataLoader(train_ds, batch_size=8, num_workers=2)
got = [xb.shape[0] for xb, _ in loader]
print("worker batches", sorted(got), sum(got))
first_vals = sorted(round(xb[:, 0, 0].sum().item(), 4) for xb, _ in DataLoader(train_ds, batch_size=64, num_workers=2))
print("worker shards", first_vals)
try:
    len(loader)
except TypeError as e:
    print("TypeError", e)

model = DLinear(2)
print("params", sum(p.numel() for p in model.parameters()), model.Linear_Trend[0])
xb0, yb0 = next(iter(DataLoader(train_ds, batch_size=4)))
print("init forecast", model(xb0)[0, :, 0])
opt = torch.optim.Adam(model.parameters(), lr=0.05)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1, threshold=1e-3)
best, best_state, bad_epochs, history = float("inf"), None, 0, []
for epoch in range(8):
    model.train()
    for xb, yb in DataLoader(train_ds, batch_size=16):
        opt.zero_grad()
        loss = F.mse_loss(model(xb), yb)
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        vl = torch.stack([F.mse_loss(model(xb), yb, reduction="sum") for xb, yb in DataLoader(val_ds, batch_size=8)])
        val_loss = (vl.sum() / (len(list(iter(val_ds))) * pred_len * 2)).item()
    plateau.step(val_loss)
    history.append((epoch, round(val_loss, 4), opt.param_groups[0]["lr"]))
    if val_loss < best - 1e-4:
        best, best_state, bad_epochs = val_loss, copy.deepcopy(model.state_dict()), 0
    else:
        bad_epochs += 1
        if bad_epochs >= 3:
            break
for h in history:
    print("epoch", *h)
print("best", round(best, 4), "num_bad_epochs", plateau.num_bad_epochs, "best kept", best_state is not None)
model.load_state_dict(best_state)

buf = io.BytesIO()
torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "scheduler": plateau.state_dict(),
            "epoch": len(history)}, buf)
buf.seek(0)
ckpt = torch.load(buf, weights_only=True)
fresh = DLinear(2)
print("load", fresh.load_state_dict(ckpt["model"]), ckpt["epoch"], sorted(ckpt["scheduler"])[:4])
opt2 = torch.optim.Adam(fresh.parameters(), lr=0.05)
opt2.load_state_dict(ckpt["optimizer"])
print("restored lr", opt2.param_groups[0]["lr"], "step", opt2.state[next(fresh.parameters())]["step"].item(),
      len(opt2.state))
with torch.no_grad():
    print("same forecast", torch.equal(fresh(xb0), model(xb0)))

opt3 = torch.optim.SGD(fresh.parameters(), lr=0.01, momentum=0.9)
one = torch.optim.lr_scheduler.OneCycleLR(opt3, max_lr=0.1, total_steps=10, pct_start=0.3)
lrs = []
for _ in range(10):
    opt3.step()
    lrs.append(round(one.get_last_lr()[0], 5))
    one.step()
print("onecycle", lrs, "momentum", round(opt3.param_groups[0]["momentum"], 4))

members = [DLinear(2) for _ in range(3)]
for k, m in enumerate(members):
    with torch.no_grad():
        for p in m.parameters():
            p.mul_(1 + 0.5 * k)
params, buffers = stack_module_state(members)
base = copy.deepcopy(members[0]).to("meta")
print("stacked", tuple(params["Linear_Trend.0.weight"].shape), "meta", base.Linear_Trend[0].weight.is_meta)


def call(p, b, x):
    return functional_call(base, (p, b), (x,))


try:
    vmap(call, in_dims=(0, 0, None))(params, buffers, xb0)
except RuntimeError as e:
    print("RuntimeError", str(e)[:200])


class DLinearStacked(DLinear):
    """The same model written without in-place writes into a preallocated output, so vmap can batch it."""

    def forward(self, x):
        front = x[:, 0:1, :].repeat(1, (self.kernel - 1) // 2, 1)
        end = x[:, -1:, :].repeat(1, (self.kernel - 1) // 2, 1)
        trend = self.avg(torch.cat([front, x, end], dim=1).permute(0, 2, 1)).permute(0, 2, 1)
        seasonal_init, trend_init = (x - trend).permute(0, 2, 1), trend.permute(0, 2, 1)
        out = torch.stack([self.Linear_Seasonal[i](seasonal_init[:, i]) + self.Linear_Trend[i](trend_init[:, i])
                           for i in range(self.channels)], dim=1)
        return out.permute(0, 2, 1)


base = DLinearStacked(2).to("meta")
ens = vmap(call, in_dims=(0, 0, None))(params, buffers, xb0)
print("ensemble", tuple(ens.shape), ens[:, 0, 0, 0])
print("matches loop", torch.allclose(ens[2], members[2](xb0), atol=1e-6))
