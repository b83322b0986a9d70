"""Root finding and Newton-type optimisation with PyTorch's derivative tools: scalar Newton and bisection, Newton on
nonlinear systems with torch.autograd.functional.jacobian (vectorize, strategy) and torch.func.jacfwd/jacrev,
batched Newton with vmap, damped Newton minimisation with hessian and hvp/vhp, Broyden's method, the implicit
function theorem for the derivative of a root w.r.t. a parameter, and continuation along a parameter."""

import numpy as np
import torch
from torch.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp
from torch.func import jacfwd, jacrev, vmap
from torch.func import hessian as fhessian

torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64


def r(x, k=6, nd=4):
    return np.round(x.detach().double().flatten()[:k].numpy(), nd).tolist()


# scalar: x^3 - 2x - 5 = 0 (Newton's own example)
def g(x):
    return x**3 - 2 * x - 5


x = torch.tensor(2.0, dtype=f64, requires_grad=True)
hist = []
for it in range(6):
    y = g(x)
    (dy,) = torch.autograd.grad(y, x)
    with torch.no_grad():
        x -= y / dy
    hist.append(abs(g(x).item()))
print("newton root", round(x.item(), 10), "residuals", [f"{h:.0e}" for h in hist[:3]])

lo, hi = torch.tensor(2.0, dtype=f64), torch.tensor(3.0, dtype=f64)
for _ in range(40):
    mid = (lo + hi) / 2
    left = torch.sign(g(mid)) == torch.sign(g(lo))
    lo, hi = torch.where(left, mid, lo), torch.where(left, hi, mid)
print("bisection", round(((lo + hi) / 2).item(), 8), "agree", abs(((lo + hi) / 2).item() - x.item()) < 1e-9)


# a 3-D nonlinear system
def F(v, p=torch.tensor(1.0, dtype=f64)):
    a, b, c = v.unbind()
    return torch.stack([a**2 + b**2 + c**2 - 4 * p, a * b - c - 0.2, torch.exp(a - 1) + 2 * b - 3 * p])


v = torch.tensor([1.5, 0.5, 0.5], dtype=f64)
J_rev = jacobian(F, v)
J_fwd = jacobian(F, v, vectorize=True, strategy="forward-mode")
J_vec = jacobian(F, v, vectorize=True)
print("jacobian", J_rev.shape, r(J_rev, 9, 3))
print("strategies agree", torch.allclose(J_rev, J_fwd), torch.allclose(J_rev, J_vec))
print("func.jacfwd == jacrev", torch.allclose(jacfwd(F)(v), jacrev(F)(v)))
for it in range(8):
    Fv = F(v)
    step = torch.linalg.solve(jacfwd(F)(v), Fv)
    v = v - step
    if it < 4:
        print("newton sys", it, f"{Fv.norm().item():.2e}")
print("solution", r(v, nd=6), "residual", float(F(v).norm()) < 1e-12)
print("cond", round(torch.linalg.cond(jacobian(F, v)).item(), 3))

# jvp / vjp against the Jacobian
t = torch.tensor([1.0, -1.0, 0.5], dtype=f64)
out, jv = jvp(F, v, t)
out2, vj = vjp(F, v, t)
Jv = jacobian(F, v)
print("jvp", torch.allclose(jv, Jv @ t), "vjp", torch.allclose(vj, t @ Jv), "outputs", torch.allclose(out, out2))
ja = jacobian(lambda a, b: a * b.sum() + b[:3], (torch.ones(3, dtype=f64), torch.arange(4.0, dtype=f64)))
print("tuple inputs", [j.shape for j in ja], r(ja[1], 4))


# batched Newton: sqrt of many numbers at once via vmap
def newton_sqrt(c, iters=6):
    z = torch.ones_like(c)
    for _ in range(iters):
        z = z - (z * z - c) / (2 * z)
    return z


cs = torch.tensor([2.0, 9.0, 10.0, 0.25], dtype=f64)
print("vmap newton sqrt", r(vmap(newton_sqrt)(cs), nd=6), "match", torch.allclose(vmap(newton_sqrt)(cs), cs.sqrt()))
dsqrt = vmap(jacrev(newton_sqrt))(cs)
print("d sqrt / dc through iterations", r(dsqrt, nd=4), "exact", r(0.5 / cs.sqrt(), nd=4))


# damped Newton minimisation of the Rosenbrock function
def rosen(z):
    return (1 - z[0]) ** 2 + 100 * (z[1] - z[0] ** 2) ** 2


z = torch.tensor([-1.2, 1.0], dtype=f64)
for it in range(30):
    gz = jacrev(rosen)(z)
    Hz = hessian(rosen, z)
    dz = torch.linalg.solve(Hz + 1e-8 * torch.eye(2, dtype=f64), gz)
    t_ = 1.0
    while rosen(z - t_ * dz) > rosen(z) - 1e-4 * t_ * gz.dot(dz):
        t_ *= 0.5
    z = z - t_ * dz
    if gz.norm() < 1e-10:
        break
print("rosenbrock min", r(z, nd=6), "iters", it, "f", f"{rosen(z).item():.1e}")
Hf = fhessian(rosen)(torch.tensor([1.0, 1.0], dtype=f64))
print("hessian at min", Hf.tolist(), "eigvalsh", r(torch.linalg.eigvalsh(Hf), 2, 3))
w = torch.tensor([1.0, 2.0], dtype=f64)
_, hv = hvp(rosen, torch.tensor([1.0, 1.0], dtype=f64), w)
_, vh = vhp(rosen, torch.tensor([1.0, 1.0], dtype=f64), w)
print("hvp", hv.tolist(), "vhp", vh.tolist(), "== H @ v", torch.allclose(hv, Hf @ w))


# Broyden's method: no Jacobian after the first
def broyden(Fn, x0, iters=30):
    x_ = x0.clone()
    B = jacobian(Fn, x_)
    f_ = Fn(x_)
    for k in range(iters):
        dx = -torch.linalg.solve(B, f_)
        x_new = x_ + dx
        f_new = Fn(x_new)
        df = f_new - f_
        B = B + torch.outer(df - B @ dx, dx) / dx.dot(dx)
        x_, f_ = x_new, f_new
        if f_.norm() < 1e-12:
            return x_, k + 1
    return x_, iters


xb, kb = broyden(F, torch.tensor([1.5, 0.5, 0.5], dtype=f64))
print("broyden", r(xb, nd=6), "iterations > newton", kb > 5, "same root", torch.allclose(xb, v, atol=1e-8))

# implicit function theorem: dx*/dp = -(dF/dx)^-1 dF/dp
p0 = torch.tensor(1.0, dtype=f64)
Jx = jacobian(lambda vv: F(vv, p0), v)
Jp = jacobian(lambda pp: F(v, pp), p0)
dxdp = -torch.linalg.solve(Jx, Jp)
eps = 1e-6
v_eps = v.clone()
for _ in range(10):
    v_eps = v_eps - torch.linalg.solve(jacobian(lambda vv: F(vv, p0 + eps), v_eps), F(v_eps, p0 + eps))
print("implicit dx/dp", r(dxdp, nd=4), "finite diff", r((v_eps - v) / eps, nd=4))

# continuation in p: track the root with a predictor-corrector
path = []
vc = v.clone()
for pv in torch.linspace(1.0, 1.5, 6, dtype=f64):
    pred = vc + (-torch.linalg.solve(jacobian(lambda vv: F(vv, pv), vc), jacobian(lambda pp: F(vc, pp), pv))) * 0
    for _ in range(6):
        pred = pred - torch.linalg.solve(jacobian(lambda vv: F(vv, pv), pred), F(pred, pv))
    vc = pred
    path.append(round(vc[0].item(), 4))
print("continuation a(p)", path)

# typical mistakes
try:
    jacobian(F, v, strategy="forward-mode")
except Exception as e:
    print(type(e).__name__, e)
try:
    jacobian(F, v, strategy="sideways")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.solve(torch.zeros(3, 3, dtype=f64), v)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
try:
    hessian(lambda z: z * 2, z)
except Exception as e:
    print(type(e).__name__, e)
