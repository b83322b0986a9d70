"""Protein structure geometry: backbone frames from N/CA/C by Gram-Schmidt, composing and inverting rigid transforms,
quaternion-to-rotation for IPA updates, dihedral (phi/psi/omega) angles with atan2, Kabsch superposition by SVD with
the determinant sign fix, RMSD and its gradient, distogram binning with bucketize and a distogram cross-entropy,
lDDT-style scores, and FAPE with clamping."""

import math

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
f64 = torch.float64
n_res = 8
t = torch.arange(n_res, dtype=f64)
ca = torch.stack([2.3 * torch.cos(t * 1.75), 2.3 * torch.sin(t * 1.75), 1.5 * t], -1)
n_at = ca + torch.tensor([-0.5, 1.2, -0.4], dtype=f64) + 0.05 * torch.randn(n_res, 3, dtype=f64)
c_at = ca + torch.tensor([1.3, 0.3, 0.5], dtype=f64) + 0.05 * torch.randn(n_res, 3, dtype=f64)
print("backbone", ca.shape, ca.dtype, ca[:2].round(decimals=4).tolist())


def frames(n, ca, c):
    e1 = F.normalize(c - ca, dim=-1)
    u = n - ca
    e2 = F.normalize(u - (u * e1).sum(-1, keepdim=True) * e1, dim=-1)
    e3 = torch.linalg.cross(e1, e2, dim=-1)
    return torch.stack([e1, e2, e3], dim=-1), ca


R, T = frames(n_at, ca, c_at)
print(
    "frames orthonormal",
    torch.allclose(R.transpose(-1, -2) @ R, torch.eye(3, dtype=f64).expand(n_res, 3, 3)),
    torch.linalg.det(R).round(decimals=6).unique().tolist(),
)


def compose(r1, t1, r2, t2):
    return r1 @ r2, (r1 @ t2.unsqueeze(-1)).squeeze(-1) + t1


def invert(r, t):
    rt = r.transpose(-1, -2)
    return rt, -(rt @ t.unsqueeze(-1)).squeeze(-1)


ri, ti = invert(R, T)
rc, tc = compose(R, T, ri, ti)
print("compose with inverse", torch.allclose(rc, torch.eye(3, dtype=f64)), tc.abs().max().item() < 1e-12)
local = torch.einsum("rji,rj->ri", R, ca[3] - T)
print("ca[3] in local frames", local[:3].round(decimals=4).tolist())


def quat_to_rot(q):
    q = F.normalize(q, dim=-1)
    w, x, y, z = q.unbind(-1)
    return torch.stack(
        [
            1 - 2 * (y * y + z * z),
            2 * (x * y - w * z),
            2 * (x * z + w * y),
            2 * (x * y + w * z),
            1 - 2 * (x * x + z * z),
            2 * (y * z - w * x),
            2 * (x * z - w * y),
            2 * (y * z + w * x),
            1 - 2 * (x * x + y * y),
        ],
        -1,
    ).unflatten(-1, (3, 3))


upd = torch.cat([torch.ones(n_res, 1, dtype=f64), 0.1 * torch.randn(n_res, 3, dtype=f64)], -1)
Rq = quat_to_rot(upd)
print("quat rot det", torch.linalg.det(Rq).round(decimals=6).tolist()[:3], Rq.shape)


def dihedral(p0, p1, p2, p3):
    b0, b1, b2 = p0 - p1, p2 - p1, p3 - p2
    b1n = F.normalize(b1, dim=-1)
    v = b0 - (b0 * b1n).sum(-1, keepdim=True) * b1n
    w = b2 - (b2 * b1n).sum(-1, keepdim=True) * b1n
    x = (v * w).sum(-1)
    y = (torch.linalg.cross(b1n, v, dim=-1) * w).sum(-1)
    return torch.atan2(y, x)


phi = dihedral(c_at[:-1], n_at[1:], ca[1:], c_at[1:])
psi = dihedral(n_at[:-1], ca[:-1], c_at[:-1], n_at[1:])
omega = dihedral(ca[:-1], c_at[:-1], n_at[1:], ca[1:])
print("phi deg", torch.rad2deg(phi).round(decimals=2).tolist())
print("psi sin/cos", torch.stack([psi.sin(), psi.cos()], -1)[:2].round(decimals=4).tolist())
print("omega wrapped", torch.remainder(omega + math.pi, 2 * math.pi).sub(math.pi).round(decimals=4).tolist()[:3])
print("atan2 corners", torch.atan2(torch.tensor([0.0, -0.0, 0.0, 1.0]), torch.tensor([-1.0, -1.0, 0.0, 0.0])).tolist())


def kabsch(P, Q):
    pc, qc = P.mean(-2, keepdim=True), Q.mean(-2, keepdim=True)
    H = (P - pc).transpose(-1, -2) @ (Q - qc)
    U, S, Vh = torch.linalg.svd(H)
    d = torch.sign(torch.linalg.det(Vh.transpose(-1, -2) @ U.transpose(-1, -2)))
    D = torch.diag_embed(torch.stack([torch.ones_like(d), torch.ones_like(d), d], -1))
    Rk = Vh.transpose(-1, -2) @ D @ U.transpose(-1, -2)
    return Rk, qc - pc @ Rk.transpose(-1, -2)


rot = quat_to_rot(torch.tensor([0.8, 0.3, -0.2, 0.4], dtype=f64))
moved = ca @ rot.T + torch.tensor([1.0, -2.0, 0.5], dtype=f64)
Rk, tk = kabsch(ca, moved)
print("kabsch recovers", torch.allclose(Rk, rot), (ca @ Rk.T + tk - moved).abs().max().item() < 1e-10)
mirror = moved * torch.tensor([-1.0, 1.0, 1.0], dtype=f64)
Rm, _ = kabsch(ca, mirror)
print(
    "mirror det",
    round(torch.linalg.det(Rm).item(), 6),
    torch.linalg.svdvals(ca - ca.mean(0)).round(decimals=4).tolist(),
)

pred = (moved + 0.3 * torch.randn(n_res, 3, dtype=f64)).requires_grad_(True)
Rk, tk = kabsch(pred, ca)
aligned = pred @ Rk.T + tk
rmsd = ((aligned - ca) ** 2).sum(-1).mean().sqrt()
rmsd.backward()
print(
    "rmsd",
    round(rmsd.item(), 4),
    "grad",
    pred.grad.shape,
    round(pred.grad.norm().item(), 4),
    type(rmsd.grad_fn).__name__,
)

d = torch.cdist(ca, ca)
edges = torch.linspace(2.0, 22.0, 15, dtype=f64)
bins = torch.bucketize(d, edges)
print(
    "bucketize",
    bins[0].tolist(),
    torch.bucketize(torch.tensor([2.0, 3.0]), torch.tensor([2.0, 3.0]), right=True).tolist(),
)
print(
    "searchsorted",
    torch.searchsorted(edges, d[0].contiguous(), side="left").tolist() == bins[0].tolist(),
    torch.bucketize(d, edges, out_int32=True).dtype,
)
logits = torch.randn(n_res, n_res, 16, dtype=f64)
ce = F.cross_entropy(logits.permute(2, 0, 1).unsqueeze(0), bins.unsqueeze(0))
centers = torch.cat([edges[:1] - 0.5, (edges[1:] + edges[:-1]) / 2, edges[-1:] + 0.5])
expected = (logits.softmax(-1) * centers).sum(-1)
print("distogram ce", round(ce.item(), 4), "expected d", expected[0, :3].round(decimals=4).tolist())

d_pred = torch.cdist(aligned.detach(), aligned.detach())
cut = (d < 15.0) & ~torch.eye(n_res, dtype=torch.bool)
diff = (d - d_pred).abs()
lddt = torch.stack([(diff < t).to(f64) for t in (0.5, 1.0, 2.0, 4.0)]).mean(0)
per_res = (lddt * cut).sum(-1) / cut.sum(-1)
print("lddt", per_res.round(decimals=4).tolist())
plddt_bins = torch.bucketize(per_res * 100, torch.arange(2, 100, 2, dtype=f64))
print("plddt bins", plddt_bins.tolist())

Rp, Tp = frames(n_at + 0.1, pred.detach(), c_at)
x_true = torch.einsum("fji,faj->fai", R, ca[None] - T[:, None])
x_pred = torch.einsum("fji,faj->fai", Rp, pred.detach()[None] - Tp[:, None])
fape = torch.sqrt(((x_true - x_pred) ** 2).sum(-1) + 1e-8).clamp(max=10.0).mean() / 10.0
print("fape", round(fape.item(), 4))
try:
    torch.linalg.cross(ca[:, :2], ca[:, :2])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.bucketize(d, edges.view(3, 5))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.det(ca)
except Exception as e:
    print(type(e).__name__, e)
