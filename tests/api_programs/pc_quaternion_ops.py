"""Quaternion math as pose-estimation and animation code writes it: the Hamilton product by a 4x4 matrix and by
components, exp/log maps with the small-angle branch, the geodesic distance with the double-cover abs, Markley's
average by eigh of the outer-product accumulator, dual quaternions for rigid transforms and skinning blends,
QuaterNet's normalisation penalty, integrating angular velocity, and quaternions as complex pairs."""

import math

import torch

F = torch.nn.functional

torch.manual_seed(0)


def qmul(a, b):
    aw, ax, ay, az = a.unbind(-1)
    bw, bx, by, bz = b.unbind(-1)
    return torch.stack([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                        aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw], -1)


def left_matrix(q):
    w, x, y, z = q.unbind(-1)
    return torch.stack([torch.stack([w, -x, -y, -z], -1), torch.stack([x, w, -z, y], -1),
                        torch.stack([y, z, w, -x], -1), torch.stack([z, -y, x, w], -1)], -2)


def conj(q):
    return q * q.new_tensor([1.0, -1.0, -1.0, -1.0])


def qexp(v):
    theta = v.norm(dim=-1, keepdim=True)
    small = theta < 1e-6
    scale = torch.where(small, 1 - theta**2 / 6, torch.sin(theta) / torch.where(small, torch.ones_like(theta), theta))
    return torch.cat([torch.cos(theta), v * scale], -1)


def qlog(q):
    q = torch.where(q[..., :1] < 0, -q, q)
    vn = q[..., 1:].norm(dim=-1, keepdim=True)
    ang = torch.atan2(vn, q[..., :1])
    return q[..., 1:] * torch.where(vn > 1e-6, ang / vn.clamp_min(1e-12), torch.ones_like(vn))


def rotate(q, p):
    pq = torch.cat([torch.zeros_like(p[..., :1]), p], -1)
    return qmul(qmul(q, pq), conj(q))[..., 1:]


q = F.normalize(torch.randn(5, 4), dim=-1)
r = F.normalize(torch.randn(5, 4), dim=-1)
print("hamilton", torch.allclose(qmul(q, r), (left_matrix(q) @ r.unsqueeze(-1)).squeeze(-1), atol=1e-6))
print("non-commutative", round((qmul(q, r) - qmul(r, q)).abs().max().item(), 4))
print("unit product", qmul(q, r).norm(dim=-1).round(decimals=4).tolist())
v = torch.tensor([[0.0, 0.0, 0.0], [1e-8, 0.0, 0.0], [0.3, -0.2, 0.5], [1.2, 0.0, 0.0]])
e = qexp(v)
print("exp", e.round(decimals=4).tolist())
print("log(exp)", qlog(e).round(decimals=4).tolist())
pts = torch.randn(5, 7, 3)
rp = rotate(q.unsqueeze(1), pts)
print("rotate keeps norms", torch.allclose(rp.norm(dim=-1), pts.norm(dim=-1), atol=1e-5), rp.shape)
dot = (q * r).sum(-1).abs().clamp(max=1.0)
print("geodesic", (2 * torch.acos(dot)).round(decimals=4).tolist())
print("double cover", torch.allclose(2 * torch.acos((q * -q).sum(-1).abs().clamp(max=1.0)), torch.zeros(5), atol=1e-3))

base = F.normalize(torch.tensor([0.9, 0.1, 0.3, -0.2]), dim=0)
noisy = F.normalize(base + 0.05 * torch.randn(20, 4), dim=-1)
noisy[::3] = -noisy[::3]
w = torch.rand(20)
M = torch.einsum("n,ni,nj->ij", w, noisy, noisy) / w.sum()
evals, evecs = torch.linalg.eigh(M)
avg = evecs[:, -1] * torch.sign(evecs[0, -1])
print("markley avg", avg.round(decimals=3).tolist(), round(evals[-1].item(), 4), round((avg @ base).abs().item(), 4))
naive = F.normalize(noisy.mean(0), dim=0)
print("naive avg fails", round((naive @ base).abs().item(), 4) < 0.99)


def dq_from_qt(q, t):
    tq = torch.cat([torch.zeros_like(t[..., :1]), t], -1)
    return q, 0.5 * qmul(tq, q)


def dq_transform(real, dual, p):
    t = 2 * qmul(dual, conj(real))[..., 1:]
    return rotate(real, p) + t


trans = torch.randn(5, 3)
real, dual = dq_from_qt(q, trans)
print("dual quat", torch.allclose(dq_transform(real.unsqueeze(1), dual.unsqueeze(1), pts),
    rp + trans.unsqueeze(1), atol=1e-5))
wts = torch.softmax(torch.randn(7, 5), -1)
sign = torch.sign((real * real[:1]).sum(-1, keepdim=True))
b_real = wts @ (real * sign)
b_dual = wts @ (dual * sign)
nrm = b_real.norm(dim=-1, keepdim=True)
skinned = dq_transform(b_real / nrm, b_dual / nrm, pts[0])
print("dq skinning", skinned.shape, round(skinned.abs().sum().item(), 3))

raw = torch.randn(8, 4, requires_grad=True)
target = F.normalize(torch.randn(8, 4), dim=-1)
opt = torch.optim.SGD([raw], lr=0.1)
for i in range(5):
    qn = raw / raw.norm(dim=-1, keepdim=True)
    loss = (1 - (qn * target).sum(-1).abs()).mean() + 0.01 * ((raw.norm(dim=-1) - 1) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("quaternet", i, round(loss.item(), 4), loss.grad_fn.name())

omega = torch.tensor([0.0, 0.0, 1.0])
qt = torch.tensor([1.0, 0.0, 0.0, 0.0])
for _ in range(100):
    qt = F.normalize(qmul(qt, qexp(0.5 * omega * 0.01 * math.pi).squeeze()), dim=0)
print("integrated", qt.round(decimals=4).tolist(), round(2 * math.degrees(math.atan2(qt[3].item(), qt[0].item())), 2))

za = torch.complex(q[:, 0], q[:, 1])
zb = torch.complex(q[:, 2], q[:, 3])
print("cayley-dickson norm", (za.abs() ** 2 + zb.abs() ** 2).round(decimals=4).tolist())
su2 = torch.stack([torch.stack([za, -zb.conj()], -1), torch.stack([zb, za.conj()], -1)], -2)
print("su2 det", torch.linalg.det(su2).real.round(decimals=4).tolist(), su2.dtype)
