"""Event handling in ODE solvers as torchdiffeq's odeint_event does it: a bouncing ball integrated with RK4 until
its height changes sign (sign changes found with torch.sign/diff/nonzero, argmax over a boolean mask), the event time
refined by bisection and by Newton on a cubic Hermite interpolant, the event time's gradient with respect to the
initial state by the implicit function theorem (autograd.grad of the event function) checked against finite
differences, restitution with state resets via index_put, and batched events over many initial heights."""

import torch

torch.manual_seed(0)
f64 = torch.float64
g = 9.81


def ball(t, s):
    return torch.stack([s[..., 1], torch.full_like(s[..., 1], -g)], dim=-1)


def rk4_step(f, t, y, h):
    k1 = f(t, y)
    k2 = f(t + h / 2, y + h / 2 * k1)
    k3 = f(t + h / 2, y + h / 2 * k2)
    k4 = f(t + h, y + h * k3)
    return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def integrate(y0, h=0.05, n=40):
    ys = [y0]
    for k in range(n):
        ys.append(rk4_step(ball, k * h, ys[-1], h))
    return torch.stack(ys, dim=0)


y0 = torch.tensor([2.0, 1.0], dtype=f64)
traj = integrate(y0)
height = traj[:, 0]
crossing = (torch.sign(height).diff() != 0).nonzero().squeeze(-1)
print("first crossing step", crossing.tolist()[:2], "sign", torch.sign(height[:3]).tolist())
below = height < 0
print("argmax of mask", torch.argmax(below.int()).item(), below.any().item(), below.dtype)
k = crossing[0].item()
ta, tb = k * 0.05, (k + 1) * 0.05
ya, yb = traj[k], traj[k + 1]

lo, hi = ta, tb
for _ in range(40):
    mid = 0.5 * (lo + hi)
    ym = rk4_step(ball, ta, ya, mid - ta)
    lo, hi = (mid, hi) if ym[0] > 0 else (lo, mid)
t_bisect = 0.5 * (lo + hi)
t_exact = (1.0 + (1.0 + 2 * g * 2.0) ** 0.5) / g
print("bisection", round(t_bisect, 6), "exact", round(t_exact, 6))

fa, fb = ball(ta, ya), ball(tb, yb)
hstep = tb - ta


def hermite(s):
    s2, s3 = s * s, s * s * s
    return (
        (2 * s3 - 3 * s2 + 1) * ya + (s3 - 2 * s2 + s) * hstep * fa + (-2 * s3 + 3 * s2) * yb + (s3 - s2) * hstep * fb
    )


s = torch.tensor(0.5, dtype=f64, requires_grad=True)
for it in range(8):
    val = hermite(s)[0]
    (ds,) = torch.autograd.grad(val, s)
    with torch.no_grad():
        s -= val / ds
print("newton on hermite", round(ta + s.item() * hstep, 6), "residual", abs(hermite(s.detach())[0].item()) < 1e-10)

# d t_event / d y0 = -(d event / d y0) / (d event / dt) at the event (implicit function theorem)
y0r = y0.clone().requires_grad_(True)
yev = rk4_step(ball, 0.0, y0r, torch.tensor(t_bisect, dtype=f64))
(dz_dy0,) = torch.autograd.grad(yev[0], y0r)
dz_dt = ball(t_bisect, yev.detach())[0]
dt_dy0 = -dz_dy0 / dz_dt
print("dt/dy0 implicit", dt_dy0.round(decimals=5).tolist())
eps = 1e-6
fd = []
for i in range(2):
    e = torch.zeros(2, dtype=f64)
    e[i] = eps
    tp = (1.0 + e[1] + ((1.0 + e[1]) ** 2 + 2 * g * (2.0 + e[0])) ** 0.5) / g
    tm = (1.0 - e[1] + ((1.0 - e[1]) ** 2 + 2 * g * (2.0 - e[0])) ** 0.5) / g
    fd.append(((tp - tm) / (2 * eps)).item())
print("finite differences", [round(v, 5) for v in fd])

state = torch.stack([torch.zeros((), dtype=f64), yev[1].detach()])
state.index_put_((torch.tensor([1]),), -0.8 * state[1:])
print("after bounce", state.round(decimals=4).tolist())

heights = torch.linspace(0.5, 3.0, 6, dtype=f64)
Y0 = torch.stack([heights, torch.zeros_like(heights)], dim=-1)
T = integrate(Y0, n=20)
hit = (T[..., 0] < 0).int().argmax(dim=0)
print("batched first step below", hit.tolist(), "never hit", (T[..., 0] >= 0).all(dim=0).tolist())
t_hit = torch.sqrt(2 * heights / g)
print(
    "exact",
    t_hit.round(decimals=4).tolist(),
    "bucket",
    torch.bucketize(t_hit, torch.arange(21, dtype=f64) * 0.05).tolist(),
)
for call in (
    lambda: torch.argmax(below),
    lambda: state.index_put_((torch.tensor([2]),), torch.zeros(1, dtype=f64)),
    lambda: torch.autograd.grad(hermite(s.detach())[0], s),
):
    try:
        print("ok", call())
    except Exception as e:
        print(type(e).__name__, e)
