"""Inverse kinematics of a planar 4-link arm and a 7-DOF redundant arm: damped least squares through linalg.solve
with the damping as a tensor, lstsq with its drivers, pinv with rtol/atol/hermitian, null-space projection for a
secondary joint-centering task, joint limits with tensor-valued clamp, batched solves for many targets, and the
errors of singular solves."""

import torch

torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64
L = torch.tensor([0.5, 0.4, 0.3, 0.2], dtype=f64)
LOW = torch.tensor([-2.5, -2.0, -2.0, -1.5], dtype=f64)
HIGH = torch.tensor([2.5, 2.0, 2.0, 1.5], dtype=f64)


def planar_fk(q):
    angles = torch.cumsum(q, dim=-1)
    x = (L * torch.cos(angles)).sum(-1)
    y = (L * torch.sin(angles)).sum(-1)
    return torch.stack([x, y], -1)


def planar_jac(q):
    angles = torch.cumsum(q, -1)
    cx = L * torch.cos(angles)
    cy = L * torch.sin(angles)
    # d x / d q_i = -sum_{j>=i} L_j sin(phi_j): reverse cumulative sums
    jx = -torch.flip(torch.cumsum(torch.flip(cy, [-1]), -1), [-1])
    jy = torch.flip(torch.cumsum(torch.flip(cx, [-1]), -1), [-1])
    return torch.stack([jx, jy], -2)


def dls_step(J, e, lam):
    JJt = J @ J.transpose(-1, -2)
    eye = torch.eye(J.shape[-2], dtype=J.dtype)
    return J.transpose(-1, -2) @ torch.linalg.solve(JJt + lam ** 2 * eye, e.unsqueeze(-1))


q0 = torch.tensor([0.1, 0.2, 0.3, 0.1], dtype=f64)
print("fk", planar_fk(q0).round(decimals=4).tolist())
print("jac matches autograd", torch.allclose(planar_jac(q0), torch.autograd.functional.jacobian(planar_fk, q0)))

targets = torch.tensor([[0.8, 0.6], [0.0, 1.2], [-0.9, 0.3], [1.4, 0.0], [2.0, 0.5]], dtype=f64)
q = q0.expand(5, 4).clone()
lam = torch.tensor(0.3, dtype=f64)
for it in range(100):
    e = targets - planar_fk(q)
    dq = dls_step(planar_jac(q), e, lam).squeeze(-1)
    q = torch.clamp(q + dq, min=LOW, max=HIGH)
err = (targets - planar_fk(q)).norm(dim=-1)
print("dls residuals", err.round(decimals=4).tolist())
print("reachable", (err < 1e-3).tolist(), "q within limits", ((q >= LOW) & (q <= HIGH)).all().item())

# the same step by pinv, lstsq and an explicit normal-equation solve
J = planar_jac(q0)
e = torch.tensor([0.05, -0.02], dtype=f64)
dq_pinv = torch.linalg.pinv(J) @ e
dq_lstsq = torch.linalg.lstsq(J, e.unsqueeze(-1), driver="gelsd").solution.squeeze(-1)
dq_min_norm = J.T @ torch.linalg.solve(J @ J.T, e)
print("pinv", dq_pinv.round(decimals=5).tolist())
print("lstsq gelsd == pinv", torch.allclose(dq_lstsq, dq_pinv), torch.allclose(dq_min_norm, dq_pinv))
res = torch.linalg.lstsq(J, e.unsqueeze(-1), driver="gelsd")
print("lstsq fields", res.rank.item(), res.singular_values.round(decimals=4).tolist(), res.residuals.shape)
print("pinv hermitian", torch.allclose(torch.linalg.pinv(J @ J.T, hermitian=True), torch.linalg.inv(J @ J.T)))
print("pinv rtol", torch.linalg.pinv(torch.diag(torch.tensor([1.0, 1e-3], dtype=f64)), rtol=1e-2).diagonal().tolist())
print("pinv atol", torch.linalg.pinv(torch.diag(torch.tensor([1.0, 1e-3], dtype=f64)), atol=0.5).diagonal().tolist())

# null-space projection: reach the target while pulling joints towards zero
q = q0.clone()
target = torch.tensor([0.9, 0.5], dtype=f64)
for it in range(80):
    J = planar_jac(q)
    Jp = torch.linalg.pinv(J)
    N = torch.eye(4, dtype=f64) - Jp @ J
    q = q + Jp @ (target - planar_fk(q)) + N @ (-0.1 * q)
print("null-space q", q.round(decimals=4).tolist(), "err", round((target - planar_fk(q)).norm().item(), 6))
print("N idempotent", torch.allclose(N @ N, N), "rank", torch.linalg.matrix_rank(N).item())

# singular configuration: the outstretched arm
dx = torch.tensor([0.05, -0.02], dtype=f64)
q_s = torch.zeros(4, dtype=f64)
J_s = planar_jac(q_s)
print("singular J", J_s.tolist(), torch.linalg.svdvals(J_s).round(decimals=4).tolist())
step_s = dls_step(J_s, torch.tensor([0.1, 0.0], dtype=f64), lam).squeeze(-1)
print("dls at singularity", step_s.round(decimals=4).tolist())
try:
    torch.linalg.solve(J_s @ J_s.T, torch.tensor([0.1, 0.0], dtype=f64))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.lstsq(J, dx.unsqueeze(-1), driver="gelsy_bad")
except Exception as err:
    print(type(err).__name__, err)
try:
    torch.linalg.lstsq(J.float(), dx.unsqueeze(-1))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.solve(J, torch.ones(2, dtype=f64))
except Exception as e:
    print(type(e).__name__, e)
ex = torch.linalg.solve_ex(J_s @ J_s.T, torch.tensor([0.1, 0.0], dtype=f64))
print("solve_ex info", ex.info.item())
try:
    torch.clamp(q, min=LOW[:3], max=HIGH)
except Exception as e:
    print(type(e).__name__, e)
