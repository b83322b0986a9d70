"""Rigid and similarity alignment as registration code writes it: batched Kabsch with torch.linalg.svd and the
determinant sign fix, Umeyama scale, weighted Procrustes, a reflection case, ICP with nearest neighbours from
cdist/argmin, RMSD, gradients through the SVD, and orthogonal Procrustes over float64 batches."""

import math

import torch

torch.manual_seed(8)
torch.set_printoptions(precision=4, sci_mode=False)


def random_rotation(n, dtype=torch.float32):
    A = torch.randn(n, 3, 3, dtype=dtype)
    Q, R = torch.linalg.qr(A)
    Q = Q * torch.sign(torch.diagonal(R, dim1=-2, dim2=-1)).unsqueeze(-2)
    d = torch.linalg.det(Q)
    Q[..., :, 0] *= d.sign().unsqueeze(-1)
    return Q


def kabsch(P, Q, weights=None):
    """R, t minimizing sum w ||R p + t - q||^2 for batched (B, N, 3)."""
    if weights is None:
        weights = torch.ones(P.shape[:-1], dtype=P.dtype)
    w = (weights / weights.sum(-1, keepdim=True)).unsqueeze(-1)
    mu_p = (w * P).sum(-2, keepdim=True)
    mu_q = (w * Q).sum(-2, keepdim=True)
    Pc, Qc = P - mu_p, Q - mu_q
    Hm = (w * Pc).transpose(-1, -2) @ Qc
    U, S, Vh = torch.linalg.svd(Hm)
    d = torch.sign(torch.linalg.det(Vh.transpose(-1, -2) @ U.transpose(-1, -2)))
    D = torch.diag_embed(torch.stack([torch.ones_like(d), torch.ones_like(d), d], -1))
    R = Vh.transpose(-1, -2) @ D @ U.transpose(-1, -2)
    t = mu_q.squeeze(-2) - (R @ mu_p.transpose(-1, -2)).squeeze(-1)
    return R, t, S


def umeyama(P, Q):
    n = P.shape[-2]
    mu_p, mu_q = P.mean(-2, keepdim=True), Q.mean(-2, keepdim=True)
    Pc, Qc = P - mu_p, Q - mu_q
    cov = Qc.transpose(-1, -2) @ Pc / n
    U, S, Vh = torch.linalg.svd(cov)
    d = torch.linalg.det(U) * torch.linalg.det(Vh)
    E = torch.ones_like(S)
    E[..., -1] = torch.sign(d)
    R = U @ torch.diag_embed(E) @ Vh
    var_p = Pc.pow(2).sum((-1, -2)) / n
    s = (S * E).sum(-1) / var_p
    t = mu_q.squeeze(-2) - s[..., None] * (R @ mu_p.transpose(-1, -2)).squeeze(-1)
    return s, R, t


def rmsd(A, B):
    return (A - B).pow(2).sum(-1).mean(-1).sqrt()


B, N = 4, 30
P = torch.randn(B, N, 3)
R_true = random_rotation(B)
t_true = torch.randn(B, 3)
print("true dets", [round(x, 4) for x in torch.linalg.det(R_true).tolist()])
Q = P @ R_true.transpose(-1, -2) + t_true.unsqueeze(1)
Qn = Q + 0.01 * torch.randn_like(Q)

R, t, S = kabsch(P, Qn)
print("R", R.shape, "singular values", S[0])
print("rotation err", (R - R_true).abs().amax(dim=(-1, -2)) < 1e-2)
print("t err", (t - t_true).norm(dim=-1) < 1e-2)
aligned = P @ R.transpose(-1, -2) + t.unsqueeze(1)
print("rmsd before/after", rmsd(P, Qn).round(decimals=3), rmsd(aligned, Qn).round(decimals=3))
angle = torch.acos(((R.transpose(-1, -2) @ R_true).diagonal(dim1=-2, dim2=-1).sum(-1) - 1).div(2).clamp(-1, 1))
print("angular error deg < 1", (torch.rad2deg(angle) < 1).tolist())

# a reflected target: without the sign fix the SVD solution would be a reflection
M = torch.diag(torch.tensor([1.0, 1.0, -1.0]))
Qr = P[:1] @ M
U, S_, Vh = torch.linalg.svd((P[:1] - P[:1].mean(1, keepdim=True)).mT @ (Qr - Qr.mean(1, keepdim=True)))
naive = Vh.mT @ U.mT
print("naive det", round(torch.linalg.det(naive).item(), 4))
Rf, _, _ = kabsch(P[:1], Qr)
print("fixed det", round(torch.linalg.det(Rf).item(), 4))

# weighted Procrustes ignores outliers with zero weight
Qo = Q.clone()
Qo[:, :5] += 5.0
w = torch.ones(B, N)
w[:, :5] = 0
Rw, tw, _ = kabsch(P, Qo, w)
Ru, tu, _ = kabsch(P, Qo)
print("weighted err", (Rw - R_true).abs().max().item() < 1e-4)
print("unweighted err", round((Ru - R_true).abs().max().item(), 2))

# similarity transform
scale = torch.tensor([0.5, 1.0, 2.0, 3.0])
Qs = scale[:, None, None] * (P @ R_true.mT) + t_true[:, None]
s, Rs, ts = umeyama(P.double(), Qs.double())
print("scale", s.float(), s.dtype)
print("umeyama R err", (Rs.float() - R_true).abs().max().item() < 1e-5)

# ICP on a shuffled, transformed copy (no correspondences given)
torch.manual_seed(1)
src = torch.randn(60, 3) * torch.tensor([2.0, 1.0, 0.5])
ang = math.radians(15)
Rz = torch.tensor([[math.cos(ang), -math.sin(ang), 0.0], [math.sin(ang), math.cos(ang), 0.0], [0.0, 0.0, 1.0]])
dst = (src @ Rz.T + torch.tensor([0.2, -0.1, 0.05]))[torch.randperm(60)]
cur = src.clone()
R_acc, t_acc = torch.eye(3), torch.zeros(3)
for it in range(15):
    nn_idx = torch.cdist(cur, dst).argmin(dim=1)
    Ri, ti, _ = kabsch(cur[None], dst[nn_idx][None])
    cur = cur @ Ri[0].T + ti[0]
    R_acc, t_acc = Ri[0] @ R_acc, Ri[0] @ t_acc + ti[0]
    if it % 5 == 0 or it == 14:
        err = torch.cdist(cur, dst).min(1).values.mean()
        print(f"icp {it:2d} mean nn dist {err.item():.4f}")
yaw = torch.rad2deg(torch.atan2(R_acc[1, 0], R_acc[0, 0]))
print("recovered yaw", round(yaw.item(), 2), "t", t_acc.round(decimals=3))

# gradients through the SVD-based alignment (distinct singular values)
Pg = P[:1].clone().requires_grad_(True)
Rg, tg, _ = kabsch(Pg, Qn[:1])
loss = rmsd(Pg @ Rg.mT + tg[:, None], Qn[:1]).sum()
loss.backward()
print("loss", round(loss.item(), 4), "grad", Pg.grad.shape, round(Pg.grad.norm().item(), 4))

# orthogonal Procrustes: nearest orthogonal matrix
A = torch.randn(2, 3, 3, dtype=torch.float64)
U, _, Vh = torch.linalg.svd(A)
O = U @ Vh
print("orthogonal", torch.allclose(O @ O.mT, torch.eye(3, dtype=torch.float64)), O.dtype)
print("polar factor", torch.allclose(A, O @ (Vh.mT @ torch.diag_embed(torch.linalg.svdvals(A)) @ Vh)))
