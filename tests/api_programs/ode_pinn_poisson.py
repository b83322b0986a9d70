"""A physics-informed network for the 2-D Poisson problem -lap u = f on the unit square: collocation points from
linspace/meshgrid(indexing='ij') with requires_grad_, first and second derivatives by autograd.grad with
create_graph, the Laplacian summed per dimension, Dirichlet boundary points gathered from the grid's edges, a
hand-written SGD step over autograd.grad with a dict of named parameters, the residual's Jacobian in one call with
is_grads_batched, and the errors of autograd on collocation tensors."""

import math
import warnings

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
torch.set_default_dtype(torch.float64)  # PINN residuals are small differences of large terms

n = 9
xs = torch.linspace(0.0, 1.0, n)
X, Y = torch.meshgrid(xs, xs, indexing="ij")
Xxy, Yxy = torch.meshgrid(xs, xs, indexing="xy")
print("ij vs xy", torch.equal(X, Xxy.T), X[1, 0].item(), Xxy[1, 0].item(), tuple(X.shape))
grid = torch.stack([X, Y], dim=-1)
interior = grid[1:-1, 1:-1].reshape(-1, 2)
edge = torch.ones(n, n, dtype=torch.bool)
edge[1:-1, 1:-1] = False
boundary = grid[edge]
print("interior", tuple(interior.shape), "boundary", tuple(boundary.shape), int(edge.sum()))

u_exact = lambda p: torch.sin(math.pi * p[..., 0]) * torch.sin(math.pi * p[..., 1])
f_rhs = lambda p: 2 * math.pi**2 * u_exact(p)


class PINN(nn.Module):
    def __init__(self, width=24):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(2, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh(), nn.Linear(width, 1)
        )

    def forward(self, p):
        return self.body(p).squeeze(-1)


def laplacian(model, p):
    p = p.clone().requires_grad_(True)
    u = model(p)
    (du,) = torch.autograd.grad(u, p, grad_outputs=torch.ones_like(u), create_graph=True)
    lap = torch.zeros_like(u)
    for d in range(p.shape[1]):
        (d2,) = torch.autograd.grad(du[:, d], p, grad_outputs=torch.ones_like(du[:, d]), create_graph=True)
        lap = lap + d2[:, d]
    return u, du, lap


model = PINN()
u, du, lap = laplacian(model, interior)
print("u", u.shape, u.grad_fn.name(), "du", du.shape, du.grad_fn.name(), "lap", lap.grad_fn.name())

# check the Laplacian operator on a known function through a tiny analytic "model"
quad = lambda p: (p**2).sum(-1) + p[..., 0] * p[..., 1] ** 2
_, dq, lq = laplacian(quad, interior[:3])
print("analytic lap", lq.tolist(), "expected", (4 + 2 * interior[:3, 0]).round(decimals=4).tolist())
print("analytic grad", dq.round(decimals=4).tolist())

params = dict(model.named_parameters())
lr = 2e-3
for step in range(60):
    _, _, lap = laplacian(model, interior)
    res = -lap - f_rhs(interior)
    loss = res.pow(2).mean() + 10.0 * model(boundary).pow(2).mean()
    grads = torch.autograd.grad(loss, params)
    with torch.no_grad():
        for name, p in params.items():
            p.sub_(lr * grads[name].clamp(-50, 50))
    if step % 20 == 0 or step == 59:
        print("step", step, round(loss.item(), 4), type(grads).__name__, sorted(grads)[:2])

with torch.no_grad():
    err = (model(grid.reshape(-1, 2)) - u_exact(grid.reshape(-1, 2))).abs()
print("max err", round(err.max().item(), 4), "boundary mean", round(model(boundary).abs().mean().item(), 4))

# the Jacobian of the residual w.r.t. a weight by batched vector-Jacobian products
w = model.body[4].weight
_, _, lap = laplacian(model, interior[:4])
res = -lap - f_rhs(interior[:4])
(J,) = torch.autograd.grad(res, w, grad_outputs=torch.eye(4), is_grads_batched=True, retain_graph=True)
print("batched jac", tuple(J.shape), J.sum(dim=(1, 2)).round(decimals=4).tolist())
rows = [torch.autograd.grad(res[i], w, retain_graph=True)[0] for i in range(4)]
print("matches rows", torch.allclose(torch.stack(rows), J, atol=1e-6))

# finite-difference Laplacian of the exact solution on the grid
h = 1.0 / (n - 1)
Ug = u_exact(grid)
lap_fd = (Ug[2:, 1:-1] + Ug[:-2, 1:-1] + Ug[1:-1, 2:] + Ug[1:-1, :-2] - 4 * Ug[1:-1, 1:-1]) / h**2
print("fd lap err", round((lap_fd + f_rhs(grid[1:-1, 1:-1])).abs().max().item(), 3))
gx, gy = torch.gradient(Ug, spacing=h, dim=(0, 1))
print("torch.gradient", tuple(gx.shape), round(gx[0, 4].item(), 4), round(gy[4, -1].item(), 4))

try:
    torch.autograd.grad(model(interior).sum(), interior)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.autograd.grad(loss, params)
except Exception as e:
    print(type(e).__name__, str(e)[:60])
try:
    torch.meshgrid(xs, xs, indexing="ji")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.autograd.grad(res, w, grad_outputs=torch.eye(3), is_grads_batched=True)
except Exception as e:
    print(type(e).__name__, e)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.autograd.grad(model(interior[:2]).sum(), [w], only_inputs=False)
    print([c.category.__name__ for c in caught])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    A, B = torch.meshgrid(xs[:2], xs[:3])
    print(A.shape, len(caught) > 0 and caught[0].category.__name__)
