"""Point-cloud augmentation as training pipelines write it: uniform random rotations from the QR of a Gaussian
matrix with the sign fix on R's diagonal and a det flip, linalg.qr's modes, householder_product from geqrf,
Shoemake quaternions to matrices, z-axis rotations with torch.Generator, anisotropic scaling, clipped jitter,
random point dropout with a duplicated first point, shuffles with randperm, and the checks that a rotation is one."""

import math

import torch

torch.manual_seed(0)
g = torch.Generator().manual_seed(1234)


def random_rotation(n, generator=None):
    a = torch.randn(n, 3, 3, generator=generator, dtype=torch.float64)
    q, r = torch.linalg.qr(a)
    d = torch.diagonal(r, dim1=-2, dim2=-1).sign()
    q = q * d.unsqueeze(-2)
    det = torch.linalg.det(q)
    flip = torch.ones(n, 3, dtype=q.dtype)
    flip[:, 0] = det.sign()
    return q * flip.unsqueeze(-2)


R = random_rotation(5, g)
print("rot", R.dtype, R.shape)
print("orthonormal", torch.allclose(R.transpose(-1, -2) @ R, torch.eye(3, dtype=R.dtype).expand(5, 3, 3)))
print("det", torch.linalg.det(R).round(decimals=6).tolist())
angle = torch.arccos(((R.diagonal(dim1=-2, dim2=-1).sum(-1) - 1) / 2).clamp(-1, 1))
print("angles in [0, pi]", bool(((angle >= 0) & (angle <= math.pi)).all()))

a = torch.randn(4, 3)
for mode in ["reduced", "complete", "r"]:
    q, r = torch.linalg.qr(a, mode=mode)
    print("qr", mode, tuple(q.shape), tuple(r.shape), r.abs().sum().round(decimals=4).item())
q, r = torch.linalg.qr(a)
print("qr recon", torch.allclose(q @ r, a, atol=1e-6), torch.triu(r).equal(r))
h, tau = torch.geqrf(a)
q2 = torch.linalg.householder_product(h, tau)
print("householder", q2.shape, torch.allclose(q2.abs(), q.abs(), atol=1e-5))
qt = torch.orgqr(h, tau)
print("orgqr", torch.allclose(qt, q2))


def quat_to_matrix(q):
    w, x, y, z = q.unbind(-1)
    two_s = 2.0 / (q * q).sum(-1)
    o = torch.stack((1 - two_s * (y * y + z * z), two_s * (x * y - z * w), two_s * (x * z + y * w),
                     two_s * (x * y + z * w), 1 - two_s * (x * x + z * z), two_s * (y * z - x * w),
                     two_s * (x * z - y * w), two_s * (y * z + x * w), 1 - two_s * (x * x + y * y)), -1)
    return o.reshape(q.shape[:-1] + (3, 3))


u = torch.tensor([[0.1, 0.2, 0.3], [0.9, 0.5, 0.25], [0.5, 0.0, 1.0]])
u1, u2, u3 = u.unbind(-1)
quat = torch.stack([torch.sqrt(1 - u1) * torch.sin(2 * math.pi * u2), torch.sqrt(1 - u1) * torch.cos(2 * math.pi * u2),
                    torch.sqrt(u1) * torch.sin(2 * math.pi * u3), torch.sqrt(u1) * torch.cos(2 * math.pi * u3)], -1)
quat = torch.where(quat[:, :1] < 0, -quat, quat)
print("shoemake", quat.round(decimals=4).tolist(), quat.norm(dim=-1).round(decimals=4).tolist())
Rq = quat_to_matrix(quat)
print("quat rot det", torch.linalg.det(Rq).round(decimals=4).tolist())
print("copysign", torch.copysign(torch.tensor([1.0, -2.0, 0.0]), torch.tensor([-0.0, 1.0, -1.0])).tolist())

pts = torch.randn(2, 128, 3)
theta = torch.rand(2, generator=g) * 2 * math.pi
c, s = torch.cos(theta), torch.sin(theta)
Rz = torch.zeros(2, 3, 3)
Rz[:, 0, 0], Rz[:, 0, 1], Rz[:, 1, 0], Rz[:, 1, 1], Rz[:, 2, 2] = c, -s, s, c, 1.0
rot = torch.einsum("bij,bnj->bni", Rz, pts)
print("z rotation keeps z", torch.equal(rot[..., 2], pts[..., 2]), torch.allclose(rot.norm(dim=-1), pts.norm(dim=-1)))
scale = torch.empty(2, 1, 3).uniform_(0.8, 1.25, generator=g)
shift = torch.empty(2, 1, 3).uniform_(-0.1, 0.1, generator=g)
aug = rot * scale + shift
jit = torch.clamp(0.01 * torch.randn(aug.shape, generator=g), -0.05, 0.05)
print("jitter bounded", bool(jit.abs().max() <= 0.05), aug.shape)
aug = aug + jit
drop_ratio = 0.875
keep = torch.rand(2, 128, generator=g) > drop_ratio
aug2 = aug.clone()
first = aug2[:, :1].expand(-1, 128, -1)
aug2 = torch.where(keep.unsqueeze(-1), first, aug2)
print("dropout dup", keep.sum().item() >= 0, torch.equal(aug2[0, keep[0]], first[0, keep[0]]))
perm = torch.randperm(128, generator=g)
print("perm", perm.dtype, sorted(perm.tolist()) == list(range(128)))
shuffled = aug[:, perm]
print("shuffle invariant max", torch.equal(shuffled.amax(1), aug.amax(1)))

for call in [lambda: torch.linalg.qr(torch.randn(3)), lambda: torch.linalg.qr(a, mode="full"),
             lambda: torch.linalg.householder_product(h, torch.ones(4)),
             lambda: torch.linalg.det(torch.randn(2, 3))]:
    try:
        call()
    except Exception as e:
        print(type(e).__name__, e)
