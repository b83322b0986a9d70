"""The time-dependent Brier score and its integral (IBS) with inverse-probability-of-censoring weights from a
Kaplan-Meier of the censoring times, read by searchsorted on step functions, with trapezoid/cumulative_trapezoid."""

import torch

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(5)

t = torch.tensor([1.0, 2.0, 2.0, 3.0, 4.0, 5.0, 5.0, 6.0, 7.0, 8.0], dtype=torch.float64)
e = torch.tensor([1, 0, 1, 1, 0, 1, 0, 1, 0, 1], dtype=torch.bool)
grid = torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], dtype=torch.float64)
rate = torch.rand(10, dtype=torch.float64) * 0.3 + 0.05
surv = torch.exp(-rate[:, None] * grid[None, :])  # (n, n_times)


def km(times, observed):
    uniq, inv = torch.unique(times, return_inverse=True)
    d = torch.bincount(inv, weights=observed.to(times.dtype))
    n = torch.bincount(inv).to(times.dtype).flip(0).cumsum(0).flip(0)
    return uniq, torch.cumprod(1 - d / n, 0)


def step_eval(x, y, at, left=False):
    """value of a right-continuous step function (or its left limit) at `at`."""
    idx = torch.searchsorted(x, at, right=not left) - 1
    y_pad = torch.cat([y.new_ones(1), y])
    return y_pad[idx + 1]


cx, cy = km(t, ~e)
print("censoring KM", cx, cy)
G_t = step_eval(cx, cy, t, left=True).clamp_min(1e-12)
G_grid = step_eval(cx, cy, grid)
print("G(t-)", G_t)
print("G(grid)", G_grid)


def brier(surv, t, e, grid, G_t, G_grid):
    died = (t[:, None] <= grid[None, :]) & e[:, None]
    alive = t[:, None] > grid[None, :]
    w_died = died.to(surv.dtype) / G_t[:, None]
    w_alive = alive.to(surv.dtype) / G_grid[None, :]
    return (surv.pow(2) * w_died + (1 - surv).pow(2) * w_alive).mean(0)


bs = brier(surv, t, e, grid, G_t, G_grid)
print("brier", bs)
ibs = torch.trapezoid(bs, grid) / (grid[-1] - grid[0])
print("ibs", ibs, torch.trapz(bs, grid) / 8, torch.trapezoid(bs, dx=1.0) / 8)
print("cumulative", torch.cumulative_trapezoid(bs, grid))
print(torch.trapezoid(torch.tensor([[1, 2, 3], [4, 5, 6]]), dim=0), torch.trapezoid(torch.tensor([1, 2, 3])).dtype)
print(torch.trapezoid(torch.tensor([1.0, 2.0]), torch.tensor([[0.0, 1.0], [0.0, 2.0]])))
print(torch.cumulative_trapezoid(torch.ones(3, 1), dim=0), torch.cumulative_trapezoid(torch.ones(1)).shape)
print(torch.trapezoid(torch.empty(0)), torch.trapezoid(torch.ones(1)))
try:
    torch.trapezoid(torch.ones(3), torch.ones(2))
except RuntimeError as err:
    print(type(err).__name__, err)

# binomial log-likelihood (integrated) with clamped probabilities
eps = 1e-7
s = surv.clamp(eps, 1 - eps)
died = ((t[:, None] <= grid[None, :]) & e[:, None]).double()
alive = (t[:, None] > grid[None, :]).double()
bll = (torch.log(1 - s) * died / G_t[:, None] + torch.log(s) * alive / G_grid[None, :]).mean(0)
print("bll", bll)
print("ibll", torch.trapezoid(bll, grid) / 8)

# a surrogate whose Brier is differentiable in the rates
r = rate.clone().requires_grad_()
sv = torch.exp(-r[:, None] * grid[None, :])
loss = torch.trapezoid(brier(sv, t, e, grid, G_t, G_grid), grid)
loss.backward()
print("dIBS/drate", r.grad)

# an admin-censoring edge: G hits 0 after the last censored time
t2 = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
e2 = torch.tensor([True, True, False])
cx2, cy2 = km(t2, ~e2)
print(cx2, cy2, step_eval(cx2, cy2, torch.tensor([3.5], dtype=torch.float64)))
w = 1 / step_eval(cx2, cy2, torch.tensor([2.5, 3.5], dtype=torch.float64))
print("weights", w, torch.isinf(w), torch.where(torch.isfinite(w), w, torch.zeros_like(w)))
print(torch.searchsorted(cx2, torch.tensor([3.0]), right=True), torch.searchsorted(cx2, cx2))
print(torch.searchsorted(cx2.float(), torch.tensor([float("nan"), float("inf"), -float("inf")])))
print(torch.searchsorted(torch.tensor([1.0, float("nan")]), torch.tensor([float("nan"), 2.0])))
try:
    torch.searchsorted(cx2, torch.tensor([1.0]))
except RuntimeError as err:
    print(type(err).__name__, err)
print(torch.searchsorted(cx2, torch.tensor([1.0], dtype=torch.float64).expand(3)).tolist())
