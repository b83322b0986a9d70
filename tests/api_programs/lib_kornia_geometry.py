"""kornia-style geometry written inline: axis-angle <-> rotation matrix (Rodrigues) <-> quaternion, Euler angles,
get_rotation_matrix2d, a DLT homography by torch.linalg.svd and a least-squares solve, warp_affine and
warp_perspective through normalized affine_grid/grid_sample (padding and align_corners modes), homogeneous points,
pixel/normalized coordinate conversions, an epipolar check, batched gradients through the warp, and misuse errors."""


import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(11)


def r(t, n=6):
    return np.round(torch.as_tensor(t).detach().double().flatten()[:n].numpy(), 4).tolist()


def skew(v):
    z = torch.zeros_like(v[..., 0])
    return torch.stack([z, -v[..., 2], v[..., 1], v[..., 2], z, -v[..., 0], -v[..., 1], v[..., 0], z],
                       dim=-1).view(*v.shape[:-1], 3, 3)


def axis_angle_to_rotation_matrix(aa):
    theta = aa.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    k = skew(aa / theta)
    eye = torch.eye(3, dtype=aa.dtype).expand_as(k)
    s, c = torch.sin(theta)[..., None], torch.cos(theta)[..., None]
    return eye + s * k + (1 - c) * (k @ k)


def rotation_matrix_to_quaternion(R, eps=1e-8):
    m = R.reshape(*R.shape[:-2], 9).unbind(-1)
    m00, m01, m02, m10, m11, m12, m20, m21, m22 = m
    tr = m00 + m11 + m22
    w = torch.sqrt((1 + tr).clamp_min(eps)) / 2
    x = (m21 - m12) / (4 * w)
    y = (m02 - m20) / (4 * w)
    z = (m10 - m01) / (4 * w)
    return torch.stack((w, x, y, z), -1)


def quaternion_to_rotation_matrix(q):
    q = F.normalize(q, p=2.0, dim=-1, eps=1e-12)
    w, x, y, z = torch.chunk(q, 4, dim=-1)
    tx, ty, tz = 2 * x, 2 * y, 2 * z
    rows = [1 - (ty * y + tz * z), tx * y - tz * w, tx * z + ty * w,
            tx * y + tz * w, 1 - (tx * x + tz * z), ty * z - tx * w,
            tx * z - ty * w, ty * z + tx * w, 1 - (tx * x + ty * y)]
    return torch.cat(rows, -1).view(*q.shape[:-1], 3, 3)


def quaternion_multiply(a, b):
    aw, ax, ay, az = a.unbind(-1)
    bw, bx, by, bz = b.unbind(-1)
    return torch.stack([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                        aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw], -1)


def euler_from_rotation(R):
    sy = torch.hypot(R[..., 0, 0], R[..., 1, 0])
    return torch.stack([torch.atan2(R[..., 2, 1], R[..., 2, 2]), torch.atan2(-R[..., 2, 0], sy),
                        torch.atan2(R[..., 1, 0], R[..., 0, 0])], -1)


aa = torch.from_numpy(rng.normal(size=(4, 3)) * 0.8)
R = axis_angle_to_rotation_matrix(aa)
print("R", R.dtype, tuple(R.shape), r(R[0]))
print("orthonormal", torch.allclose(R @ R.mT, torch.eye(3, dtype=R.dtype).expand(4, 3, 3), atol=1e-10),
      r(torch.linalg.det(R)))
q = rotation_matrix_to_quaternion(R)
print("quat", r(q[0], 4), r(q.norm(dim=-1)))
print("quat->R", torch.allclose(quaternion_to_rotation_matrix(q), R, atol=1e-8))
qq = quaternion_multiply(q[0], q[1])
print("compose", torch.allclose(quaternion_to_rotation_matrix(qq), R[0] @ R[1], atol=1e-8))
print("euler", r(euler_from_rotation(R)))
ang = torch.linalg.matrix_norm(R - R.mT, ord="fro")
ax_ = torch.arccos(((R.diagonal(dim1=-2, dim2=-1).sum(-1) - 1) / 2).clamp(-1, 1))
print("angle", r(ang), r(ang_ref := aa.norm(dim=-1)), torch.allclose(ax_, ang_ref))


def get_rotation_matrix2d(center, angle, scale):
    a = torch.deg2rad(angle)
    alpha, beta = scale[:, 0] * torch.cos(a), scale[:, 1] * torch.sin(a)
    cx, cy = center.unbind(-1)
    row0 = torch.stack([alpha, beta, (1 - alpha) * cx - beta * cy], -1)
    row1 = torch.stack([-beta, alpha, beta * cx + (1 - alpha) * cy], -1)
    return torch.stack([row0, row1], 1)


def normal_transform_pixel(h, w, dtype=torch.float32):
    tr = torch.tensor([[1.0, 0.0, -1.0], [0.0, 1.0, -1.0], [0.0, 0.0, 1.0]], dtype=dtype)
    tr[0, 0] = 2.0 / (w - 1) if w > 1 else 1.0
    tr[1, 1] = 2.0 / (h - 1) if h > 1 else 1.0
    return tr.unsqueeze(0)


def warp_perspective(src, M, dsize, mode="bilinear", padding_mode="zeros", align_corners=True):
    b, _, h, w = src.shape
    last_row = torch.tensor([[[0.0, 0.0, 1.0]]], dtype=M.dtype).expand(M.shape[0], 1, 3)
    H = torch.cat([M, last_row], 1) if M.shape[-2] == 2 else M
    n_src = normal_transform_pixel(h, w, src.dtype)
    n_dst = normal_transform_pixel(*dsize, src.dtype)
    theta = torch.linalg.inv(n_dst @ H @ torch.linalg.inv(n_src))
    ys, xs = torch.meshgrid(torch.linspace(-1, 1, dsize[0]), torch.linspace(-1, 1, dsize[1]), indexing="ij")
    grid = torch.stack([xs, ys, torch.ones_like(xs)], -1).reshape(1, -1, 3).to(src.dtype)
    pts = grid @ theta.transpose(1, 2)
    pts = pts[..., :2] / pts[..., 2:].where(pts[..., 2:].abs() > 1e-8, torch.full_like(pts[..., 2:], 1e-8))
    return F.grid_sample(src, pts.view(b, *dsize, 2), mode=mode, padding_mode=padding_mode,
                         align_corners=align_corners)


img = torch.from_numpy(rng.random((2, 3, 6, 8))).float()
M = get_rotation_matrix2d(torch.tensor([[3.5, 2.5], [3.5, 2.5]]), torch.tensor([0.0, 33.0]),
                          torch.tensor([[1.0, 1.0], [1.0, 1.0]]))
print("M", r(M[1]))
ident = warp_perspective(img[:1], M[:1], (6, 8))
print("identity warp", torch.allclose(ident, img[:1], atol=1e-5))
for pm in ["zeros", "border", "reflection"]:
    for mode in ["bilinear", "nearest"]:
        out = warp_perspective(img, M, (6, 8), mode=mode, padding_mode=pm)
        print("warp", pm, mode, tuple(out.shape), r(out[1, 0, 0]))
theta = torch.tensor([[[0.8, -0.2, 0.1], [0.3, 0.9, -0.05]]]).repeat(2, 1, 1)
for ac in [True, False]:
    g = F.affine_grid(theta, [2, 3, 5, 7], align_corners=ac)
    print("affine_grid", ac, tuple(g.shape), r(g[0, 0, :2]), r(F.grid_sample(img, g, align_corners=ac)[0, 1, 1]))

src = torch.tensor([[0.0, 0.0], [7.0, 0.0], [7.0, 5.0], [0.0, 5.0], [3.0, 2.0]], dtype=torch.float64)
Htrue = torch.tensor([[1.1, 0.2, 1.0], [-0.1, 0.9, 2.0], [0.01, 0.02, 1.0]], dtype=torch.float64)
hom = torch.cat([src, torch.ones(5, 1, dtype=torch.float64)], 1) @ Htrue.T
dst = hom[:, :2] / hom[:, 2:]
x, y = src.unbind(1)
u, v = dst.unbind(1)
o, z = torch.ones_like(x), torch.zeros_like(x)
A = torch.cat([torch.stack([-x, -y, -o, z, z, z, u * x, u * y, u], 1),
               torch.stack([z, z, z, -x, -y, -o, v * x, v * y, v], 1)], 0)
_, S, Vh = torch.linalg.svd(A)
Hest = Vh[-1].view(3, 3)
Hest = Hest / Hest[2, 2]
print("DLT", torch.allclose(Hest, Htrue, atol=1e-8), r(S[-2:]), S.shape)
B = A[:, :8]
sol = torch.linalg.lstsq(B, -A[:, 8:]).solution
print("lstsq", r(torch.cat([sol.squeeze(1), torch.ones(1, dtype=sol.dtype)]).view(3, 3) - Htrue), sol.shape)
print("cond", round(torch.linalg.cond(B).item() / 1e3, 2), torch.linalg.matrix_rank(A).item())

K = torch.tensor([[100.0, 0, 32], [0, 100.0, 24], [0, 0, 1]], dtype=torch.float64)
Rc, t = R[2], torch.tensor([0.5, -0.1, 0.2], dtype=torch.float64)
E = skew(t) @ Rc
Fm = torch.linalg.inv(K).T @ E @ torch.linalg.inv(K)
P = torch.from_numpy(rng.normal(size=(5, 3))) + torch.tensor([0, 0, 5.0], dtype=torch.float64)
p1 = P @ K.T
p2 = (P @ Rc.T + t) @ K.T
p1, p2 = p1 / p1[:, 2:], p2 / p2[:, 2:]
print("epipolar", r(torch.einsum("ni,ij,nj->n", p2, Fm, p1).abs().max() < 1e-9), torch.linalg.matrix_rank(Fm).item())

angle = torch.tensor([30.0], requires_grad=True)
Mg = get_rotation_matrix2d(torch.tensor([[3.5, 2.5]]), angle, torch.ones(1, 2))
out = warp_perspective(img[:1], Mg, (6, 8))
loss = (out - img[:1]).pow(2).mean()
loss.backward()
print("warp grad", round(loss.item(), 4), r(angle.grad), Mg.grad_fn.name())
aa_g = aa.clone().requires_grad_()
axis_angle_to_rotation_matrix(aa_g).diagonal(dim1=-2, dim2=-1).sum().backward()
print("rodrigues grad", r(aa_g.grad[0]))

for fn in [lambda: F.affine_grid(theta[:, :1], [2, 3, 5, 7], align_corners=False),
           lambda: F.affine_grid(theta, [2, 3, 5], align_corners=False),
           lambda: F.grid_sample(img, torch.zeros(2, 5, 7, 3), align_corners=False),
           lambda: F.grid_sample(img, torch.zeros(2, 5, 7, 2), mode="cubic", align_corners=False),
           lambda: F.grid_sample(img, torch.zeros(2, 5, 7, 2), padding_mode="wrap", align_corners=False),
           lambda: torch.linalg.inv(torch.zeros(3, 3)), lambda: torch.linalg.svd(torch.zeros(3)),
           lambda: quaternion_multiply(q[0], q[0, :3])]:
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, "|", str(e).split("\n")[0][:120])
