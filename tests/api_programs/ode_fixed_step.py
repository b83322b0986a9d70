"""Fixed-step neural ODE solvers as torchdiffeq-style research code writes them: Butcher tableaux for Euler,
midpoint, Heun and RK4 stepped through one generic loop, trajectories stacked over a time grid, empirical
convergence orders on a linear system against matrix_exp, a batched MLP vector field trained by backpropagating
through RK4, and the shape mistakes such code makes."""

import math

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
f64 = torch.float64

TABLEAUX = {
    "euler": ([[]], [1.0], [0.0]),
    "midpoint": ([[], [0.5]], [0.0, 1.0], [0.0, 0.5]),
    "heun": ([[], [1.0]], [0.5, 0.5], [0.0, 1.0]),
    "rk4": ([[], [0.5], [0.0, 0.5], [0.0, 0.0, 1.0]], [1 / 6, 1 / 3, 1 / 3, 1 / 6], [0.0, 0.5, 0.5, 1.0]),
}


def rk_step(func, t, y, h, tableau):
    a, b, c = tableau
    ks = []
    for i, row in enumerate(a):
        yi = y
        for aij, kj in zip(row, ks):
            yi = yi + h * aij * kj
        ks.append(func(t + c[i] * h, yi))
    return y + h * sum(bi * ki for bi, ki in zip(b, ks))


def odeint(func, y0, t, method="rk4", substeps=1):
    tab = TABLEAUX[method]
    ys = [y0]
    y = y0
    for t0, t1 in zip(t[:-1], t[1:]):
        h = (t1 - t0) / substeps
        for s in range(substeps):
            y = rk_step(func, t0 + s * h, y, h, tab)
        ys.append(y)
    return torch.stack(ys, dim=0)


# a linear system dy/dt = A y with its exact flow
A = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]], dtype=f64)
y0 = torch.tensor([1.0, 0.0], dtype=f64)
lin = lambda t, y: y @ A.T
t = torch.linspace(0, 2, 5, dtype=f64)
exact = torch.stack([torch.linalg.matrix_exp(A * ti) @ y0 for ti in t])
print("exact", exact[-1].round(decimals=4).tolist())
for m in TABLEAUX:
    errs = []
    for n in (4, 8, 16, 32):
        sol = odeint(lin, y0, t, m, substeps=n)
        errs.append((sol - exact).norm(dim=-1).max().item())
    orders = [math.log2(e0 / e1) for e0, e1 in zip(errs[:-1], errs[1:])]
    print(m, "order", round(orders[-1], 1), "err", f"{errs[-1]:.3e}")

sol = odeint(lin, y0, t, "rk4", substeps=8)
print("traj", tuple(sol.shape), sol.dtype, sol[:, 0].round(decimals=4).tolist())
energy = sol.pow(2).sum(-1)
print("decay", energy.log().diff().div(t.diff()).round(decimals=4).tolist())


class ODEFunc(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim + 1, hidden), nn.Tanh(), nn.Linear(hidden, dim))
        self.nfe = 0

    def forward(self, t, y):
        self.nfe += 1
        tt = torch.full_like(y[..., :1], float(t))
        return self.net(torch.cat([y, tt], dim=-1))


func = ODEFunc(2, 32)
y0b = torch.randn(16, 2)
tt = torch.linspace(0.0, 1.0, 6)
with torch.no_grad():
    target = odeint(lambda t, y: y @ A.float().T, y0b, tt, "rk4", substeps=4)
opt = torch.optim.Adam(func.parameters(), lr=1e-2)
for step in range(30):
    opt.zero_grad()
    pred = odeint(func, y0b, tt, "rk4")
    loss = F.mse_loss(pred, target)
    loss.backward()
    opt.step()
    if step % 10 == 0 or step == 29:
        print("step", step, round(loss.item(), 4), "nfe", func.nfe)
print("pred", tuple(pred.shape), pred.grad_fn.name())
gn = torch.cat([p.grad.flatten() for p in func.parameters()]).norm()
print("grad norm", round(gn.item(), 4))

# midpoint with a tensor time grid, solutions at float64, time must be 1-d
sol = odeint(lin, y0.unsqueeze(0).expand(3, 2), t, "midpoint", substeps=16)
print("batched", tuple(sol.shape), sol.is_contiguous(), sol[-1, 0].round(decimals=4).tolist())
try:
    odeint(lin, y0.float(), t, "rk4")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.stack([y0, torch.zeros(3, dtype=f64)])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.matrix_exp(torch.zeros(2, 3))
except Exception as e:
    print(type(e).__name__, e)
