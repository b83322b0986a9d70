"""3-D Gaussian splatting by hand: covariances from quaternions and log-scales (R S S^T R^T), the EWA projection
Jacobian to 2-D conics, 2x2 inverses by the closed form against torch.linalg.inv, eigenvalue radii, depth sorting
with stable argsort, front-to-back alpha blending with exclusive cumprod, SH-degree-0 colours, and the densification
statistics (max-reduced screen-space gradient norms via scatter_reduce)."""

import torch
F = torch.nn.functional

torch.manual_seed(0)


def r(t, n=8):
    return t.detach().flatten()[:n].double().round(decimals=4).tolist()


def build_rotation(q):
    q = q / q.norm(dim=1, keepdim=True)
    r_, x, y, z = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    R = torch.zeros((q.size(0), 3, 3), device=q.device)
    R[:, 0, 0] = 1 - 2 * (y * y + z * z)
    R[:, 0, 1] = 2 * (x * y - r_ * z)
    R[:, 0, 2] = 2 * (x * z + r_ * y)
    R[:, 1, 0] = 2 * (x * y + r_ * z)
    R[:, 1, 1] = 1 - 2 * (x * x + z * z)
    R[:, 1, 2] = 2 * (y * z - r_ * x)
    R[:, 2, 0] = 2 * (x * z - r_ * y)
    R[:, 2, 1] = 2 * (y * z + r_ * x)
    R[:, 2, 2] = 1 - 2 * (x * x + y * y)
    return R


N = 5
means = torch.tensor([[0.0, 0.0, 3.0], [0.2, -0.1, 2.5], [-0.3, 0.2, 4.0], [0.1, 0.1, 3.5], [0.05, -0.05, 2.0]],
                     requires_grad=True)
log_scales = torch.tensor([[-1.0, -1.5, -2.0], [-1.2, -1.2, -1.2], [-0.8, -2.0, -1.0], [-1.5, -1.0, -1.8],
                           [-2.0, -2.0, -0.5]], requires_grad=True)
quats = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.9, 0.2, 0.1, 0.0], [0.7, 0.0, 0.7, 0.0], [0.5, 0.5, 0.5, 0.5],
                      [1.0, 0.1, 0.0, 0.3]], requires_grad=True)
opacity_logit = torch.tensor([[2.0], [0.5], [1.0], [-0.5], [0.0]], requires_grad=True)
sh0 = torch.tensor([[0.5, 0.1, -0.2], [-0.3, 0.6, 0.0], [0.0, 0.0, 0.9], [0.2, 0.2, 0.2], [-0.5, -0.5, 0.4]],
                   requires_grad=True)
C0 = 0.28209479177387814

Rm = build_rotation(quats)
S = torch.diag_embed(torch.exp(log_scales))
M = Rm @ S
cov3d = M @ M.transpose(1, 2)
print("cov3d", tuple(cov3d.shape), r(cov3d[1].flatten(), 9), bool(torch.allclose(cov3d, cov3d.mT)))
print("eigvalsh", r(torch.linalg.eigvalsh(cov3d[2]), 3), r(torch.exp(2 * log_scales[2]).sort().values, 3))

fx = fy = 50.0
cx, cy = 16.0, 12.0
tx, ty, tz = means.unbind(-1)
J = torch.zeros(N, 2, 3)
J[:, 0, 0], J[:, 0, 2] = fx / tz, -fx * tx / tz**2
J[:, 1, 1], J[:, 1, 2] = fy / tz, -fy * ty / tz**2
cov2d = J @ cov3d @ J.transpose(1, 2) + 0.3 * torch.eye(2)
det = cov2d[:, 0, 0] * cov2d[:, 1, 1] - cov2d[:, 0, 1] ** 2
conic = torch.stack([cov2d[:, 1, 1], -cov2d[:, 0, 1], cov2d[:, 0, 0]], -1) / det[:, None]
inv = torch.linalg.inv(cov2d)
print("conic", r(conic[0], 3), torch.allclose(inv[:, 0, 0], conic[:, 0], rtol=1e-4), r(det, 5))
mid = 0.5 * (cov2d[:, 0, 0] + cov2d[:, 1, 1])
lam1 = mid + torch.sqrt(torch.clamp(mid**2 - det, min=0.1))
radius = torch.ceil(3.0 * torch.sqrt(lam1))
print("radius", radius.tolist(), r(torch.linalg.eigvalsh(cov2d).amax(-1), 5))
mean2d = torch.stack([fx * tx / tz + cx, fy * ty / tz + cy], -1)
mean2d.retain_grad()
print("mean2d", r(mean2d, 10))

depth_order = torch.argsort(tz, stable=True)
print("order", depth_order.tolist(), torch.sort(tz.detach(), stable=True, descending=True).indices.tolist())
H, W = 6, 8
ys, xs = torch.meshgrid(torch.arange(H, dtype=torch.float32) * 4 + 2, torch.arange(W, dtype=torch.float32) * 4 + 2,
                        indexing="ij")
pix = torch.stack([xs, ys], -1).reshape(-1, 1, 2)
d = pix - mean2d[depth_order][None]
cs = conic[depth_order]
power = -0.5 * (cs[:, 0] * d[..., 0] ** 2 + cs[:, 2] * d[..., 1] ** 2) - cs[:, 1] * d[..., 0] * d[..., 1]
alpha = torch.clamp(torch.sigmoid(opacity_logit[depth_order, 0]) * torch.exp(power), max=0.99)
alpha = torch.where(alpha < 1.0 / 255.0, torch.zeros_like(alpha), alpha)
T = torch.cumprod(torch.cat([torch.ones_like(alpha[:, :1]), 1 - alpha[:, :-1]], dim=1), dim=1)
weights = alpha * T
rgb = torch.clamp_min(C0 * sh0[depth_order] + 0.5, 0.0)
img = (weights[..., None] * rgb[None]).sum(1) + (1 - weights.sum(1, keepdim=True)) * torch.ones(3)
img = img.reshape(H, W, 3)
print("img", tuple(img.shape), r(img[2, 3], 3), r(img[3, 4], 3), round(img.mean().item(), 4))
print("acc", r(weights.sum(1).reshape(H, W)[2], 8), int((alpha > 0).sum()))

loss = F.l1_loss(img, torch.full_like(img, 0.5)) * 0.8 + 0.2 * (img - 0.5).pow(2).mean()
loss.backward()
print("loss", round(loss.item(), 5))
for name, p in (("means", means), ("log_scales", log_scales), ("quats", quats), ("opacity", opacity_logit),
                ("sh0", sh0)):
    print("grad", name, r(p.grad.abs().sum(0), 4))
grad_norm = mean2d.grad.norm(dim=-1)
print("mean2d_grad", r(grad_norm, 5))

tiles = (mean2d.detach()[:, 0] // 16).long() + 2 * (mean2d.detach()[:, 1] // 16).long()
max_grad = torch.zeros(4).scatter_reduce(0, tiles, grad_norm, reduce="amax", include_self=False)
print("tiles", tiles.tolist(), r(max_grad, 4))
denom = torch.zeros(N, 1)
accum = torch.zeros(N, 1)
accum[radius > 0] += grad_norm[radius > 0, None]
denom[radius > 0] += 1
mask = (accum / denom).squeeze(-1) >= 0.002
big = torch.exp(log_scales).amax(dim=1) > 0.3
print("densify", mask.tolist(), (mask & big).tolist(), (mask & ~big).tolist())
new_logit = torch.logit(torch.clamp_max(torch.sigmoid(opacity_logit.detach()), 0.01))
print("reset_opacity", r(new_logit, 5), r(torch.logit(torch.tensor([0.0, 1.0, 0.5]), eps=1e-6), 3))
