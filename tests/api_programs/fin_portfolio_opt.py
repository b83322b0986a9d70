"""Mean-variance portfolio construction as an asset manager's research code does it: the global minimum-variance
and tangency portfolios with torch.linalg.solve, the efficient frontier from the two-fund theorem, long-only weights
by Euclidean projection onto the simplex (sort/cumsum/searchsorted), projected gradient descent, softmax-
parameterised weights trained with Adam under a turnover penalty, risk contributions via autograd, and risk parity
by Newton on log-weights with torch.func.jacrev."""

import torch
from torch.func import jacrev

torch.manual_seed(0)
dtype = torch.float64
mu = torch.tensor([0.08, 0.10, 0.12, 0.07, 0.15], dtype=dtype)
vol = torch.tensor([0.15, 0.20, 0.25, 0.12, 0.35], dtype=dtype)
C = torch.full((5, 5), 0.3, dtype=dtype).fill_diagonal_(1.0)
C[0, 3] = C[3, 0] = 0.6
Sigma = vol[:, None] * C * vol[None, :]
ones = torch.ones(5, dtype=dtype)
print("sigma pd", bool((torch.linalg.eigvalsh(Sigma) > 0).all()), Sigma.dtype)

x = torch.linalg.solve(Sigma, torch.stack([ones, mu], dim=1))
w_gmv = x[:, 0] / x[:, 0].sum()
rf = 0.03
w_tan = torch.linalg.solve(Sigma, mu - rf)
w_tan = w_tan / w_tan.sum()
print("gmv", w_gmv.round(decimals=4).tolist(), round(torch.sqrt(w_gmv @ Sigma @ w_gmv).item(), 4))
print("tangency", w_tan.round(decimals=4).tolist())
print("sharpe tan", round(((w_tan @ mu - rf) / torch.sqrt(w_tan @ Sigma @ w_tan)).item(), 4))
print(
    "solve left",
    torch.allclose(
        torch.linalg.solve(Sigma, ones.unsqueeze(0), left=False), torch.linalg.solve(Sigma, ones).unsqueeze(0)
    ),
)

A, B, Cc = ones @ x[:, 0], ones @ x[:, 1], mu @ x[:, 1]
targets = torch.linspace(0.08, 0.14, 4, dtype=dtype)
D = A * Cc - B**2
frontier = torch.sqrt((A * targets**2 - 2 * B * targets + Cc) / D)
print("frontier vols", frontier.round(decimals=4).tolist())


def project_simplex(v, z=1.0):
    u, _ = torch.sort(v, descending=True, dim=-1)
    css = u.cumsum(-1) - z
    k = torch.arange(1, v.shape[-1] + 1, dtype=v.dtype)
    cond = u - css / k > 0
    rho = cond.to(torch.int64).cumsum(-1).argmax(-1, keepdim=True)
    tau = css.gather(-1, rho) / (rho + 1).to(v.dtype)
    return torch.clamp(v - tau, min=0)


p = project_simplex(torch.tensor([[0.5, 0.8, -0.2, 0.1, 0.0], [2.0, 0.0, 0.0, 0.0, 0.0]], dtype=dtype))
print("projection", p.round(decimals=4).tolist(), p.sum(-1).tolist())

lam = 4.0
w = ones / 5
for _ in range(300):
    grad = lam * Sigma @ w - mu
    w = project_simplex(w - 0.2 * grad)
print("long-only mv", w.round(decimals=3).tolist(), int((w > 1e-8).sum()))

logits = torch.zeros(5, dtype=dtype, requires_grad=True)
prev = torch.softmax(torch.zeros(5, dtype=dtype), 0)
opt = torch.optim.Adam([logits], lr=0.05)
for step in range(400):
    wt = torch.softmax(logits, dim=0)
    utility = wt @ mu - 0.5 * lam * wt @ Sigma @ wt - 0.01 * (wt - prev).abs().sum()
    opt.zero_grad()
    (-utility).backward()
    opt.step()
print("softmax weights", torch.softmax(logits, 0).detach().round(decimals=2).tolist(), round(utility.item(), 3))

wv = w_gmv.clone().requires_grad_(True)
sigma_p = torch.sqrt(wv @ Sigma @ wv)
(mrc,) = torch.autograd.grad(sigma_p, wv)
rc = wv.detach() * mrc
print("risk contrib sum ok", torch.allclose(rc.sum(), sigma_p.detach()), sigma_p.grad_fn.name())


def rp_residual(y):
    wr = torch.exp(y)
    return wr * (Sigma @ wr) - 1.0 / 5


y = torch.zeros(5, dtype=dtype)
for it in range(20):
    J = jacrev(rp_residual)(y)
    y = y - torch.linalg.solve(J, rp_residual(y))
w_rp = torch.exp(y) / torch.exp(y).sum()
rc_rp = w_rp * (Sigma @ w_rp)
print("risk parity", w_rp.round(decimals=4).tolist())
print("equal contributions", torch.allclose(rc_rp, rc_rp.mean().expand(5), atol=1e-10))
print("jacobian", tuple(J.shape), J.dtype)

batch = torch.stack([Sigma, Sigma * 2, Sigma + torch.eye(5, dtype=dtype) * 0.01])
wb = torch.linalg.solve(batch, ones.expand(3, 5))
print("batched gmv", (wb / wb.sum(-1, keepdim=True))[:, 0].round(decimals=4).tolist())
try:
    torch.linalg.solve(torch.zeros(5, 5, dtype=dtype), ones)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.solve(Sigma, torch.ones(4, dtype=dtype))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.solve(Sigma.float(), ones)
except Exception as e:
    print(type(e).__name__, e)
