"""Adaptive Dormand-Prince (RK45) with per-sample error control, as batched neural-ODE code writes it: the
embedded 5(4) pair, a mixed rtol/atol RMS error norm, accepted steps selected per row with torch.where, step sizes
updated by a clamped safety factor, dense outputs at requested times by Hermite interpolation, a stiff problem's
rejection count, and the statistics printed per batch element."""

import torch

torch.manual_seed(0)
f64 = torch.float64

C = torch.tensor([0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1, 1], dtype=f64)
A = [
    [],
    [1 / 5],
    [3 / 40, 9 / 40],
    [44 / 45, -56 / 15, 32 / 9],
    [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
    [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
    [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84],
]
B5 = torch.tensor([35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0], dtype=f64)
B4 = torch.tensor([5179 / 57600, 0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40], dtype=f64)


def dopri_step(f, t, y, h):
    """One step for a batch: y (B, D), t and h (B,). Returns y5, error estimate, stages."""
    ks = []
    for i in range(7):
        yi = y
        for j, a in enumerate(A[i]):
            if a != 0:
                yi = yi + (h * a).unsqueeze(-1) * ks[j]
        ks.append(f(t + C[i] * h, yi))
    K = torch.stack(ks, dim=-1)  # (B, D, 7)
    y5 = y + h[:, None] * (K @ B5)
    err = h[:, None] * torch.einsum("bds,s->bd", K, B5 - B4)
    return y5, err, K


def rms_norm(err, y0, y1, rtol, atol):
    scale = atol + rtol * torch.maximum(y0.abs(), y1.abs())
    return (err / scale).pow(2).mean(dim=-1).sqrt()


def solve(f, y0, t_end, rtol=1e-6, atol=1e-8, h0=0.01, max_steps=2000):
    B = y0.shape[0]
    t = torch.zeros(B, dtype=f64)
    h = torch.full((B,), h0, dtype=f64)
    y = y0.clone()
    accepted = torch.zeros(B, dtype=torch.long)
    rejected = torch.zeros(B, dtype=torch.long)
    for _ in range(max_steps):
        active = t < t_end - 1e-12
        if not active.any():
            break
        h = torch.minimum(h, t_end - t).clamp(min=1e-10)
        y_new, err, _ = dopri_step(f, t, y, h)
        en = rms_norm(err, y, y_new, rtol, atol)
        ok = (en <= 1.0) & active
        y = torch.where(ok.unsqueeze(-1), y_new, y)
        t = torch.where(ok, t + h, t)
        accepted += ok.long()
        rejected += (~ok & active).long()
        factor = (0.9 * en.clamp(min=1e-10).pow(-0.2)).clamp(0.2, 10.0)
        h = torch.where(active, h * factor, h)
    return y, t, accepted, rejected


def lotka(t, y):
    x, p = y.unbind(-1)
    return torch.stack([1.5 * x - x * p, -3.0 * p + x * p], dim=-1)


y0 = torch.tensor([[1.0, 1.0], [2.0, 0.5], [0.5, 3.0], [5.0, 5.0]], dtype=f64)
y, t, acc, rej = solve(lotka, y0, 4.0)
print("y(4)", y.round(decimals=4).tolist())
print("t", t.tolist(), "accepted", acc.tolist(), "rejected", rej.tolist())

# Lotka-Volterra conserves V = x - 3 log x + p - 1.5 log p
V = lambda y: y[:, 0] - 3.0 * y[:, 0].log() + y[:, 1] - 1.5 * y[:, 1].log()
print("invariant drift < 1e-4", (V(y) - V(y0)).abs().max().item() < 1e-4)

# tolerances sweep: steps scale like tol^(-1/5)
for rtol in (1e-3, 1e-5, 1e-7):
    _, _, acc, _ = solve(lotka, y0[:1], 4.0, rtol=rtol, atol=rtol * 1e-2)
    print("rtol", rtol, "steps", acc.item())

# a stiff Van der Pol oscillator rejects steps
mu = torch.tensor([0.5, 5.0, 20.0], dtype=f64)


def vdp(t, y):
    x, v = y.unbind(-1)
    return torch.stack([v, mu * (1 - x**2) * v - x], dim=-1)


y, t, acc, rej = solve(vdp, torch.tensor([[2.0, 0.0]] * 3, dtype=f64), 2.0, rtol=1e-5, atol=1e-7)
print("vdp", y.round(decimals=3).tolist())
print("accepted", acc.tolist(), "rejected>0", (rej > 0).tolist(), "stiffer costs more", bool(acc[2] > acc[0]))

# dense output: cubic Hermite between two accepted points
y0 = torch.tensor([[1.0, 0.0]], dtype=f64)
osc = lambda t, y: torch.stack([y[..., 1], -y[..., 0]], dim=-1)
h = torch.tensor([0.5], dtype=f64)
y1, err, K = dopri_step(osc, torch.zeros(1, dtype=f64), y0, h)
f0, f1 = osc(0, y0), osc(0, y1)
for s in torch.linspace(0, 1, 5, dtype=f64):
    h00, h10, h01, h11 = 2 * s**3 - 3 * s**2 + 1, s**3 - 2 * s**2 + s, -2 * s**3 + 3 * s**2, s**3 - s**2
    yi = h00 * y0 + h10 * h * f0 + h01 * y1 + h11 * h * f1
    print("dense", round(s.item(), 2), yi.round(decimals=4).tolist(), round(torch.cos(s * 0.5).item(), 4))
print("err norm", f"{err.norm().item():.2e}", "K", tuple(K.shape), K.dtype)
print("nan guard", torch.where(torch.tensor([True, False]), torch.tensor([1.0, float("nan")]), 0.0).tolist())
try:
    torch.where(torch.tensor([1, 0]), y0[0], y0[0])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.zeros(3).clamp(min=torch.zeros(2))
except Exception as e:
    print(type(e).__name__, e)
print(torch.tensor([0.1, 5.0]).clamp(max=torch.tensor([1.0, 2.0]), min=torch.tensor(0.5)).tolist())
print(torch.clamp(torch.tensor([1, 7, -3]), 0, 5), torch.clamp(torch.tensor([1, 7]), min=2.5).dtype)
