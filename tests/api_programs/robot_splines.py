"""Trajectory interpolation as motion-planning code writes it: natural and clamped cubic splines by a tridiagonal
solve, evaluation through bucketize/searchsorted and gather, uniform cubic B-splines as a basis-matrix product and by
Cox-de Boor recursion, Catmull-Rom through waypoints, quintic minimum-jerk segments from vander + solve, velocity
and acceleration by torch.gradient and diff with prepend/append, arc length by trapezoid/cumulative_trapezoid, and
time-optimal resampling with interp-style lerp."""

import torch

torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64


def natural_cubic_coeffs(t, y, clamped=None):
    n = t.shape[0] - 1
    h = torch.diff(t)
    A = torch.zeros(n + 1, n + 1, dtype=t.dtype)
    rhs = torch.zeros(n + 1, *y.shape[1:], dtype=t.dtype)
    idx = torch.arange(1, n)
    A[idx, idx - 1] = h[:-1]
    A[idx, idx] = 2 * (h[:-1] + h[1:])
    A[idx, idx + 1] = h[1:]
    slope = torch.diff(y, dim=0) / h.unsqueeze(-1)
    rhs[1:n] = 6 * (slope[1:] - slope[:-1])
    if clamped is None:
        A[0, 0] = A[n, n] = 1.0
    else:
        v0, vn = clamped
        A[0, :2] = torch.stack([2 * h[0], h[0]])
        A[n, n - 1:] = torch.stack([h[-1], 2 * h[-1]])
        rhs[0] = 6 * (slope[0] - v0)
        rhs[n] = 6 * (vn - slope[-1])
    M = torch.linalg.solve(A, rhs)
    return M, h


def cubic_eval(t, y, M, h, tq):
    i = (torch.bucketize(tq, t, right=True) - 1).clamp(0, len(h) - 1)
    ti, hi = t[i], h[i].unsqueeze(-1)
    a = (t[i + 1] - tq).unsqueeze(-1)
    b = (tq - ti).unsqueeze(-1)
    return (M[i] * a ** 3 + M[i + 1] * b ** 3) / (6 * hi) + (y[i] / hi - M[i] * hi / 6) * a + \
        (y[i + 1] / hi - M[i + 1] * hi / 6) * b


t = torch.tensor([0.0, 1.0, 2.5, 3.0, 4.5, 6.0], dtype=f64)
way = torch.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, 2.5], [3.5, 1.0], [5.0, 0.5], [6.0, 2.0]], dtype=f64)
M, h = natural_cubic_coeffs(t, way)
tq = torch.linspace(0, 6, 13, dtype=f64)
pts = cubic_eval(t, way, M, h, tq)
print("natural M", M[:, 0].round(decimals=4).tolist())
print("interpolates", torch.allclose(cubic_eval(t, way, M, h, t), way))
print("path", pts[::3].round(decimals=4).tolist())
Mc, _ = natural_cubic_coeffs(t, way, clamped=(torch.zeros(2, dtype=f64), torch.zeros(2, dtype=f64)))
eps = 1e-6
v_start = (cubic_eval(t, way, Mc, h, torch.tensor([eps], dtype=f64)) - way[:1]) / eps
print("clamped start velocity ~0", v_start.abs().max().item() < 1e-4)

dense_t = torch.linspace(0, 6, 601, dtype=f64)
dense = cubic_eval(t, way, M, h, dense_t)
vel, = torch.gradient(dense[:, 0], spacing=(dense_t,))
acc = torch.diff(dense[:, 0], n=2, prepend=dense[:1, 0], append=dense[-1:, 0]) / 0.01 ** 2
print("gradient", vel.shape, vel[::150].round(decimals=3).tolist(), "acc shape", acc.shape)
vel2 = torch.gradient(dense, spacing=0.01, dim=0, edge_order=2)[0]
speed = vel2.norm(dim=-1)
print("arc length", round(torch.trapezoid(speed, dense_t).item(), 4), round(torch.trapezoid(speed, dx=0.01).item(), 4))
s = torch.cumulative_trapezoid(speed, dense_t)
print("cumulative", s.shape, s[[99, 299, 599]].round(decimals=4).tolist())

# uniform cubic B-spline: basis matrix form and Cox-de Boor
Bm = torch.tensor([[-1, 3, -3, 1], [3, -6, 3, 0], [-3, 0, 3, 0], [1, 4, 1, 0]], dtype=f64) / 6
u = torch.linspace(0, 1, 5, dtype=f64)
U = torch.linalg.vander(u, N=4).flip(-1)
ctrl = way[:4]
print("bspline seg", (U @ Bm @ ctrl).round(decimals=4).tolist())
print("vander", torch.vander(u, N=3).tolist()[-1], torch.vander(u, N=3, increasing=True).tolist()[-1])


def cox_de_boor(x, knots, k, degree):
    if degree == 0:
        return ((knots[k] <= x) & (x < knots[k + 1])).to(x.dtype)
    left = (x - knots[k]) / (knots[k + degree] - knots[k]) * cox_de_boor(x, knots, k, degree - 1)
    right = (knots[k + degree + 1] - x) / (knots[k + degree + 1] - knots[k + 1])
    right = right * cox_de_boor(x, knots, k + 1, degree - 1)
    return left + right


knots = torch.arange(-3.0, 10.0, dtype=f64)
xs = torch.linspace(0, 5.99, 7, dtype=f64)
basis = torch.stack([cox_de_boor(xs, knots, k, 3) for k in range(9)], -1)
print("partition of unity", basis.sum(-1).round(decimals=6).tolist())
print("basis row", basis[1].round(decimals=4).tolist())

# Catmull-Rom through waypoints with end points repeated
P = torch.cat([way[:1], way, way[-1:]])
seg = P.unfold(0, 4, 1)  # (n_segments, 2, 4)
print("unfold", seg.shape)
tt = torch.tensor([0.0, 0.5, 1.0], dtype=f64)
T3 = torch.stack([torch.ones_like(tt), tt, tt ** 2, tt ** 3], -1)
CR = 0.5 * torch.tensor([[0, 2, 0, 0], [-1, 0, 1, 0], [2, -5, 4, -1], [-1, 3, -3, 1]], dtype=f64)
cr = torch.einsum("tk,kj,sdj->std", T3, CR, seg)
print("catmull-rom", cr.shape, cr[1].round(decimals=4).tolist())

# quintic minimum-jerk segment: boundary conditions solved through a 6x6 system
T = 2.0
rows = torch.stack([
    torch.tensor([1, 0, 0, 0, 0, 0], dtype=f64), torch.tensor([0, 1, 0, 0, 0, 0], dtype=f64),
    torch.tensor([0, 0, 2, 0, 0, 0], dtype=f64), torch.tensor([1, T, T ** 2, T ** 3, T ** 4, T ** 5], dtype=f64),
    torch.tensor([0, 1, 2 * T, 3 * T ** 2, 4 * T ** 3, 5 * T ** 4], dtype=f64),
    torch.tensor([0, 0, 2, 6 * T, 12 * T ** 2, 20 * T ** 3], dtype=f64)])
coef = torch.linalg.solve(rows, torch.tensor([[0.0, 1.0], [0, 0], [0, 0], [1.0, -1.0], [0, 0], [0, 0]], dtype=f64))
tau = torch.linspace(0, T, 5, dtype=f64)
q = torch.linalg.vander(tau, N=6) @ coef
print("min-jerk", q.round(decimals=4).tolist())
ref = 10 * (tau / T) ** 3 - 15 * (tau / T) ** 4 + 6 * (tau / T) ** 5
print("closed form", torch.allclose(q[:, 0], ref))
weights = torch.tensor([[0.25], [0.5], [0.75], [1.0], [0.0]], dtype=f64)
print("lerp resample", torch.lerp(way[:-1], way[1:], weights).round(decimals=3).tolist())
try:
    torch.gradient(dense[:, 0], spacing=(dense_t[:5],))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.gradient(torch.ones(1))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.trapezoid(speed, dense_t[:10])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.diff(dense[:, 0], n=-1)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.bucketize(tq, torch.tensor([[0.0, 1.0]], dtype=f64))
except Exception as e:
    print(type(e).__name__, e)
