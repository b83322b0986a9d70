"""Neural ODE with a hand-written RK4 and adjoint-free backprop, time-series forecasting (sliding windows via
unfold, Conv1d with dilation/causal padding, bidirectional LSTM/GRU with batch_first), bf16 autocast on CPU,
torch.amp.GradScaler, activation checkpointing (use_reentrant=False), OneCycleLR and ReduceLROnPlateau."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


def init(m, scale=0.3):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * scale)
    return m


class ODEFunc(nn.Module):
    def __init__(self, dim=2, hidden=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim + 1, hidden), nn.Tanh(), nn.Linear(hidden, dim))
        self.nfe = 0

    def forward(self, t, y):
        self.nfe += 1
        tt = torch.ones_like(y[..., :1]) * t
        return self.net(torch.cat([tt, y], dim=-1))


def rk4(func, y0, t):
    ys = [y0]
    y = y0
    for i in range(len(t) - 1):
        t0, dt = t[i], t[i + 1] - t[i]
        k1 = func(t0, y)
        k2 = func(t0 + dt / 2, y + dt * k1 / 2)
        k3 = func(t0 + dt / 2, y + dt * k2 / 2)
        k4 = func(t0 + dt, y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        ys.append(y)
    return torch.stack(ys)


func = init(ODEFunc())
t = torch.linspace(0.0, 1.0, 6)
true_y0 = torch.tensor([[2.0, 0.0]])
A = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]])
true_y = rk4(lambda t, y: (y**3) @ A, true_y0, torch.linspace(0.0, 1.0, 6))
print("true_traj", tuple(true_y.shape), r(true_y[-1]))
opt = torch.optim.RMSprop(func.parameters(), lr=1e-2, alpha=0.9)
for it in range(3):
    opt.zero_grad()
    pred = rk4(func, true_y0, t)
    loss = torch.mean(torch.abs(pred - true_y))
    loss.backward()
    opt.step()
    print("node", it, round(loss.item(), 4), func.nfe)
exact = rk4(lambda t, y: -y, torch.ones(1), torch.linspace(0, 1, 11))[-1]
print("rk4_exp", round(exact.item(), 6), round(torch.exp(torch.tensor(-1.0)).item(), 6))

# sliding windows
series = torch.sin(torch.arange(40, dtype=torch.float32) * 0.3) + 0.05 * T(40)
win = series.unfold(0, 8, 2)
print("unfold", tuple(win.shape), r(win[1]), win.stride(), win.is_contiguous())
Xw, yw = win[:, :-1].unsqueeze(-1), win[:, -1:]
mean, std = Xw.mean(dim=(0, 1), keepdim=True), Xw.std(dim=(0, 1), keepdim=True, unbiased=True)
Xn = (Xw - mean) / (std + 1e-8)
print("norm", r(mean), r(std), round(Xn.std(correction=0).item(), 4))


class Forecaster(nn.Module):
    def __init__(self, hidden=6):
        super().__init__()
        self.conv = nn.Conv1d(1, 4, kernel_size=3, dilation=2, padding=0)
        self.lstm = nn.LSTM(4, hidden, num_layers=2, batch_first=True, bidirectional=True, dropout=0.0)
        self.gru = nn.GRU(2 * hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        h = F.pad(x.transpose(1, 2), (4, 0))
        h = F.relu(self.conv(h)).transpose(1, 2)
        out, (hn, cn) = self.lstm(h)
        out2, hg = self.gru(out)
        return self.head(out2[:, -1]), hn, cn, hg


fc = init(Forecaster(), 0.4)
pred, hn, cn, hg = fc(Xn)
print("forecast", tuple(pred.shape), tuple(hn.shape), tuple(cn.shape), tuple(hg.shape), r(pred))
fwd_last, bwd_first = hn[-2], hn[-1]
print("bidir", r(fwd_last[0]), r(bwd_first[0]))
sched_opt = torch.optim.SGD(fc.parameters(), lr=0.1, momentum=0.9, nesterov=True)
onecycle = torch.optim.lr_scheduler.OneCycleLR(sched_opt, max_lr=0.1, total_steps=6, pct_start=0.3)
lrs = []
for step in range(6):
    sched_opt.zero_grad()
    loss = F.huber_loss(fc(Xn)[0], yw, delta=0.5)
    loss.backward()
    nn.utils.clip_grad_value_(fc.parameters(), 0.5)
    sched_opt.step()
    onecycle.step()
    lrs.append(round(sched_opt.param_groups[0]["lr"], 6))
print("onecycle", lrs, round(sched_opt.param_groups[0]["momentum"], 4), round(loss.item(), 4))
plateau_opt = torch.optim.Adam([nn.Parameter(torch.zeros(1))], lr=1.0)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(plateau_opt, mode="min", factor=0.5, patience=1, threshold=1e-3)
for v in [1.0, 0.9, 0.9, 0.9, 0.9, 0.5, 0.5, 0.5]:
    plateau.step(v)
print("plateau", plateau_opt.param_groups[0]["lr"], plateau.num_bad_epochs, plateau.best, plateau.get_last_lr())

# mixed precision
mlp = init(nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1)))
xa = T(4, 8)
with torch.autocast("cpu", dtype=torch.bfloat16):
    h = mlp[0](xa)
    o = mlp(xa)
    s = torch.softmax(o, dim=0)
    lo = F.mse_loss(o, torch.zeros_like(o))
print("autocast", h.dtype, o.dtype, s.dtype, lo.dtype, torch.is_autocast_enabled("cpu"),
      torch.get_autocast_dtype("cpu"))
print("bf16_close", torch.allclose(o.float(), mlp(xa), atol=0.05), round(lo.item(), 1))
scaler = torch.amp.GradScaler("cpu", init_scale=2.0**8, growth_interval=2)
aopt = torch.optim.SGD(mlp.parameters(), lr=0.01)
for i in range(3):
    aopt.zero_grad()
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        loss = mlp(xa).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(aopt)
    gn = nn.utils.clip_grad_norm_(mlp.parameters(), 1.0)
    scaler.step(aopt)
    scaler.update()
    print("scaler", i, scaler.get_scale(), gn.item() > 0)
print("scaler_sd", sorted(scaler.state_dict().keys()))

# activation checkpointing
deep = init(nn.Sequential(*[nn.Sequential(nn.Linear(6, 6), nn.GELU()) for _ in range(4)]))
xc = T(3, 6).requires_grad_()
y1 = checkpoint(deep[0], xc, use_reentrant=False)
y1 = checkpoint_sequential(deep[1:], 2, y1, use_reentrant=False)
y1.sum().backward()
g_ckpt, w_ckpt = xc.grad.clone(), deep[2][0].weight.grad.clone()
xc.grad = None
deep.zero_grad()
deep(xc).sum().backward()
print("checkpoint", torch.allclose(g_ckpt, xc.grad, atol=1e-6),
      torch.allclose(w_ckpt, deep[2][0].weight.grad, atol=1e-6), r(g_ckpt))


def block(a, b, scale=1.0):
    return torch.tanh(a @ b) * scale


wb = T(6, 6).requires_grad_()
out = checkpoint(block, xc, wb, scale=2.0, use_reentrant=False)
out.mean().backward()
print("ckpt_kwargs", r(wb.grad))
