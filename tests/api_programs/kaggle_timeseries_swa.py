"""A Kaggle time-series notebook: sliding windows with Tensor.unfold, per-series standardisation, a 1-D CNN + LSTM
forecaster, RMSE/MAE/SMAPE in torch, ReduceLROnPlateau, SWA with SWALR and update_bn, checkpoints to a temp dir
(model, optimizer and scheduler state), torch.set_num_threads, and a rolling-origin validation split."""

import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
from torch.optim.swa_utils import SWALR, AveragedModel, update_bn
from torch.utils.data import DataLoader, TensorDataset

prev = torch.get_num_threads()
torch.set_num_threads(1)
print("threads", torch.get_num_threads(), "restored later", prev >= 1)
rng = np.random.default_rng(5)
T = 90
t = np.arange(T)
series = np.stack([np.sin(t / 6 + k) + 0.1 * k * t / T + 0.05 * rng.standard_normal(T) for k in range(3)])
s = torch.from_numpy(series.astype(np.float32))
mu, sd = s.mean(1, keepdim=True), s.std(1, keepdim=True, unbiased=True)
z = (s - mu) / sd
print("mu", np.round(mu.squeeze(1).double().numpy(), 4).tolist(),
      "sd", np.round(sd.squeeze(1).double().numpy(), 4).tolist())
L, H = 12, 3
win = z.unfold(1, L + H, 1)
print("windows", tuple(win.shape), "stride", win.stride(), "contiguous", win.is_contiguous())
X = win[..., :L].reshape(-1, 1, L)
Y = win[..., L:].reshape(-1, H)
n_per = win.shape[1]
cut = n_per - 10
idx = torch.arange(win.shape[0] * n_per).view(win.shape[0], n_per)
tr_idx, va_idx = idx[:, :cut].flatten(), idx[:, cut:].flatten()
print("train", tr_idx.numel(), "valid", va_idx.numel())


class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(1, 4, 3, padding=1, bias=False), nn.BatchNorm1d(4), nn.ReLU())
        self.lstm = nn.LSTM(4, 6, num_layers=1, batch_first=True)
        self.out = nn.Linear(6, H)

    def forward(self, x):
        f = self.conv(x).transpose(1, 2)
        o, (h, c) = self.lstm(f)
        return self.out(o[:, -1])


model = Forecaster()
pr = np.random.default_rng(1)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy((0.3 * pr.standard_normal(tuple(p.shape))).astype(np.float32)))


def metrics(pred, y):
    rmse = torch.sqrt(torch.mean((pred - y) ** 2))
    mae = torch.mean(torch.abs(pred - y))
    smape = 100 * torch.mean(2 * (pred - y).abs() / (pred.abs() + y.abs() + 1e-8))
    return round(rmse.item(), 4), round(mae.item(), 4), round(smape.item(), 2)


dl = DataLoader(TensorDataset(X[tr_idx], Y[tr_idx]), batch_size=32, shuffle=False)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1)
swa_model = AveragedModel(model)
swa_sched = SWALR(opt, swa_lr=5e-3, anneal_epochs=2, anneal_strategy="cos")
swa_start = 4
ckdir = tempfile.mkdtemp()
best = float("inf")
for ep in range(7):
    model.train()
    for xb, yb in dl:
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(xb), yb)
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        val = nn.functional.mse_loss(model(X[va_idx]), Y[va_idx]).item()
    if ep >= swa_start:
        swa_model.update_parameters(model)
        swa_sched.step()
    else:
        plateau.step(val)
    if val < best:
        best = val
        torch.save({"epoch": ep, "model": model.state_dict(), "opt": opt.state_dict(),
                    "sched": plateau.state_dict()}, os.path.join(ckdir, "best.pt"))
    print(f"ep {ep} val {val:.4f} lr {opt.param_groups[0]['lr']:.5f}")
print("plateau best", round(plateau.best, 4), "bad epochs", plateau.num_bad_epochs, "last lr", plateau.get_last_lr())
print("swa n_averaged", swa_model.n_averaged.item(), "swa_lr", opt.param_groups[0]["swa_lr"])
bn = swa_model.module.conv[1]
before = bn.running_var.clone()
update_bn(DataLoader(TensorDataset(X[tr_idx]), batch_size=64), swa_model)
print("update_bn changed var", not torch.equal(before, bn.running_var), "momentum restored", bn.momentum)
swa_model.eval()
with torch.no_grad():
    p_swa = swa_model(X[va_idx])
    p_last = model(X[va_idx])
print("last", metrics(p_last, Y[va_idx]), "swa", metrics(p_swa, Y[va_idx]))
ck = torch.load(os.path.join(ckdir, "best.pt"))
print("ckpt", sorted(ck.keys()), "epoch", ck["epoch"], "opt keys", sorted(ck["opt"].keys()))
print("opt state step", ck["opt"]["state"][0]["step"], "param_groups lr", ck["opt"]["param_groups"][0]["lr"])
print("sched state", sorted(k for k in ck["sched"].keys() if not k.startswith("_")))
fresh = Forecaster()
missing = fresh.load_state_dict(ck["model"])
print("load", missing)
opt2 = torch.optim.Adam(fresh.parameters(), lr=1.0)
opt2.load_state_dict(ck["opt"])
print("restored lr", opt2.param_groups[0]["lr"],
      "exp_avg shape", tuple(opt2.state[fresh.conv[0].weight]["exp_avg"].shape))
for f in sorted(os.listdir(ckdir)):
    os.remove(os.path.join(ckdir, f))
os.rmdir(ckdir)
pred = p_swa * sd.repeat_interleave(10, 0) + mu.repeat_interleave(10, 0)
print("denorm pred", tuple(pred.shape), np.round(pred[0].double().numpy(), 2).tolist())
try:
    z.unfold(1, 100, 1)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    model(X[:2].squeeze(1))
except RuntimeError as e:
    print("RuntimeError", str(e)[:90])
torch.set_num_threads(prev)
