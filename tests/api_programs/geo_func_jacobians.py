"""Geometric Jacobians with torch.func as bundle-adjustment code computes them: the projection Jacobian by jacrev
and jacfwd checked against the closed form, vmap over cameras and points, the rotation Jacobian of an se(3)
perturbation, a Gauss-Newton step with torch.linalg.solve, hessian of a point-to-plane cost, and the same
Jacobians from torch.autograd.functional."""

import torch
from torch.func import grad, hessian, jacfwd, jacrev, vmap

torch.manual_seed(9)
torch.set_printoptions(precision=4, sci_mode=False)

K = torch.tensor([[120.0, 0.0, 32.0], [0.0, 118.0, 24.0], [0.0, 0.0, 1.0]])


def hat(w):
    z = w.new_zeros(())
    return torch.stack([
        torch.stack([z, -w[2], w[1]]),
        torch.stack([w[2], z, -w[0]]),
        torch.stack([-w[1], w[0], z]),
    ])


def exp_so3(w):
    theta = torch.linalg.vector_norm(w) + 1e-12
    Kx = hat(w / theta)
    return torch.eye(3) + torch.sin(theta) * Kx + (1 - torch.cos(theta)) * (Kx @ Kx)


def project(X):
    uvw = K @ X
    return uvw[:2] / uvw[2]


def project_closed_form(X):
    x, y, z = X
    fx, fy = K[0, 0], K[1, 1]
    return torch.stack([
        torch.stack([fx / z, torch.zeros(()), -fx * x / z**2]),
        torch.stack([torch.zeros(()), fy / z, -fy * y / z**2]),
    ])


X = torch.tensor([0.3, -0.2, 4.0])
J_rev = jacrev(project)(X)
J_fwd = jacfwd(project)(X)
print("project", project(X))
print("J rev", J_rev)
print("rev == fwd", torch.allclose(J_rev, J_fwd), "== closed", torch.allclose(J_rev, project_closed_form(X)))

pts = torch.randn(6, 3) + torch.tensor([0.0, 0.0, 5.0])
Js = vmap(jacrev(project))(pts)
print("batched J", Js.shape, Js[0, 0])
uv = vmap(project)(pts)
print("uv", uv[:3])


def transform(params, X):
    R = exp_so3(params[:3])
    return R @ X + params[3:]


def residual(params, X, obs):
    return project(transform(params, X)) - obs


params_true = torch.tensor([0.05, -0.1, 0.08, 0.1, -0.05, 0.2])
obs = vmap(lambda p: project(transform(params_true, p)))(pts)
print("observations", obs[:2])

# Gauss-Newton from a nearby start
params = torch.tensor([1e-3, 1e-3, 1e-3, 0.0, 0.0, 0.0])
for it in range(5):
    r = vmap(residual, in_dims=(None, 0, 0))(params, pts, obs).reshape(-1)
    J = vmap(jacrev(residual), in_dims=(None, 0, 0))(params, pts, obs).reshape(-1, 6)
    H = J.T @ J
    g = J.T @ r
    step = torch.linalg.solve(H + 1e-6 * torch.eye(6), -g)
    params = params + step
    print(f"gn {it} cost {0.5 * r.pow(2).sum().item():.4f} |step| {step.norm().item():.4f}")
print("recovered", params, torch.allclose(params, params_true, atol=1e-3))

# the se(3) left-perturbation Jacobian d(exp(w) X)/dw at w=0 equals -[X]x
J0 = jacfwd(lambda w: exp_so3(w) @ X)(torch.full((3,), 1e-7))
print("dRX/dw", J0.round(decimals=4) + 0.0)
print("== -hat(X)", torch.allclose(J0, -hat(X), atol=1e-4))

# point-to-plane cost: gradient and hessian in the point
n = torch.nn.functional.normalize(torch.tensor([0.2, 0.3, 1.0]), dim=0)
d = 0.5


def plane_cost(p):
    return 0.5 * (p @ n - d) ** 2


p0 = torch.tensor([1.0, 2.0, 3.0])
print("grad", grad(plane_cost)(p0))
Hp = hessian(plane_cost)(p0)
print("hessian", Hp)
print("rank-1 n n^T", torch.allclose(Hp, torch.outer(n, n)), torch.linalg.matrix_rank(Hp).item())
print("per-point grads", vmap(grad(plane_cost))(pts[:3]))

# torch.autograd.functional gives the same answers
J_af = torch.autograd.functional.jacobian(project, X)
H_af = torch.autograd.functional.hessian(plane_cost, p0)
print("functional jacobian", torch.allclose(J_af, J_rev), "hessian", torch.allclose(H_af, Hp))
J_vec = torch.autograd.functional.jacobian(project, X, vectorize=True, strategy="forward-mode")
print("forward-mode vectorized", torch.allclose(J_vec, J_rev))
_, jvp_out = torch.autograd.functional.jvp(project, X, torch.tensor([1.0, 0.0, 0.0]))
print("jvp", jvp_out)
_, vjp_out = torch.autograd.functional.vjp(project, X, torch.tensor([1.0, 1.0]))
print("vjp", vjp_out)

# jacobians with has_aux and argnums
def proj_aux(X, scale):
    out = project(X * scale)
    return out, out.norm()


(jx, js), aux = jacrev(proj_aux, argnums=(0, 1), has_aux=True)(X, torch.tensor(2.0))
print("argnums", jx.shape, js.abs().max().item() < 1e-4, "aux", aux)

# per-point voxel ids are fine under vmap; unique voxels per cloud are not (dynamic shapes)
clouds = torch.rand(3, 16, 3)
print("voxel ids", vmap(lambda c: (c * 2).floor().long() @ torch.tensor([4, 2, 1]))(clouds)[:, :6])
for label, fn in [("unique", lambda c: torch.unique((c * 2).floor(), dim=0)),
                  ("nonzero", lambda c: torch.nonzero(c[:, 0] > 0.5)), ("argwhere", lambda c: torch.argwhere(c > 2))]:
    try:
        print(label, vmap(fn)(clouds).shape)
    except RuntimeError as e:
        print(label, "!!", str(e).split(". Please")[0])
