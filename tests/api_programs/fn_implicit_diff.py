"""Implicit differentiation as research code writes it: ridge regression's solution differentiated through
the implicit function theorem (vjp + linear solve), a fixed-point layer (DEQ) with a backward hook solving
the adjoint, and hyperparameter gradients checked against unrolled differentiation and gradcheck."""

import torch
from torch.autograd import gradcheck
from torch.func import jacrev, vjp

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
dt = torch.float64

# ---- ridge regression: w*(lam) = argmin ||Xw - y||^2 + lam ||w||^2
X = torch.randn(20, 4, dtype=dt)
y = torch.randn(20, dtype=dt)
Xv = torch.randn(10, 4, dtype=dt)
yv = torch.randn(10, dtype=dt)


def inner_grad(w, lam):
    # optimality condition F(w, lam) = 0
    return 2 * X.T @ (X @ w - y) + 2 * lam * w


def solve(lam):
    A = X.T @ X + lam * torch.eye(4, dtype=dt)
    return torch.linalg.solve(A, X.T @ y)


class RidgeSolution(torch.autograd.Function):
    """w*(lam) with its gradient from the implicit function theorem: dw/dlam = -(dF/dw)^-1 dF/dlam."""

    @staticmethod
    def forward(lam):
        return solve(lam.detach())

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output, inputs[0])

    @staticmethod
    def backward(ctx, g):
        w, lam = ctx.saved_tensors
        H = jacrev(inner_grad, argnums=0)(w, lam)
        u = torch.linalg.solve(H.T, g)
        _, fn = vjp(lambda lam_: inner_grad(w, lam_), lam)
        return -fn(u)[0]


def val_loss(w):
    return ((Xv @ w - yv) ** 2).mean()


lam = torch.tensor(0.7, dtype=dt, requires_grad=True)
w_star = RidgeSolution.apply(lam)
print("w*", w_star.detach())
print("optimality residual", round(inner_grad(w_star.detach(), lam.detach()).norm().item(), 8))
loss = val_loss(w_star)
loss.backward()
print("val loss", round(loss.item(), 6), "d/dlam implicit", round(lam.grad.item(), 6))

# against differentiating straight through the solve
lam2 = torch.tensor(0.7, dtype=dt, requires_grad=True)
val_loss(solve(lam2)).backward()
print("d/dlam through solve", round(lam2.grad.item(), 6))

# against unrolled gradient descent (approximate)
lam3 = torch.tensor(0.7, dtype=dt, requires_grad=True)
w = torch.zeros(4, dtype=dt)
for _ in range(300):
    w = w - 0.01 * inner_grad(w, lam3)
val_loss(w).backward()
print("d/dlam unrolled", round(lam3.grad.item(), 4))
print("gradcheck implicit", gradcheck(RidgeSolution.apply, (torch.tensor(0.7, dtype=dt, requires_grad=True),)))

# a hyperparameter descent loop on log(lam)
log_lam = torch.tensor(0.0, dtype=dt, requires_grad=True)
opt = torch.optim.SGD([log_lam], lr=0.5)
for step in range(5):
    opt.zero_grad()
    vl = val_loss(RidgeSolution.apply(log_lam.exp()))
    vl.backward()
    opt.step()
    print(f"hyper step {step} lam {log_lam.exp().item():.4f} val {vl.item():.6f}")

# ---- a fixed-point layer z = tanh(W z + U x), implicit backward through a hook
W = 0.3 * torch.randn(5, 5, dtype=dt) / 5 ** 0.5
U = torch.randn(5, 3, dtype=dt, requires_grad=True)
x = torch.randn(3, dtype=dt)


def f(z, inp):
    return torch.tanh(W @ z + U @ inp)


def fixed_point(inp, iters=60):
    with torch.no_grad():
        z = torch.zeros(5, dtype=dt)
        for _ in range(iters):
            z = f(z, inp)
    z = f(z, inp)  # one differentiable step re-attaches the graph to U
    z0 = z.clone().detach().requires_grad_()
    f0 = f(z0, inp)

    def backward_hook(grad):
        # solve g = grad + J^T g by fixed-point iteration
        gk = grad
        for _ in range(60):
            gk = torch.autograd.grad(f0, z0, gk, retain_graph=True)[0] + grad
        return gk

    z.register_hook(backward_hook)
    return z


z = fixed_point(x)
print("fixed point", z.detach())
print("residual", round((z - f(z, x)).norm().item(), 8))
(z ** 2).sum().backward()
g_implicit = U.grad.clone()

# reference: differentiate through 60 unrolled iterations
U.grad = None
zz = torch.zeros(5, dtype=dt)
for _ in range(60):
    zz = f(zz, x)
(zz ** 2).sum().backward()
print("dU implicit vs unrolled", torch.allclose(g_implicit, U.grad, atol=1e-8))
print("dU row 0", g_implicit[0])
