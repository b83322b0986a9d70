"""A differentiable soft rasterizer as SoftRas/pytorch3d tutorials write it: triangles projected to screen space,
edge functions and barycentric coordinates over a pixel grid, signed distances to edges, sigmoid coverage with
a sharpness sigma, soft z-buffering by softmax over faces, aggregated silhouettes, and fitting a triangle's
vertices to a target silhouette with Adam; also a hard rasterizer with argmin depth for comparison."""

import torch
import torch.nn.functional as F

torch.manual_seed(12)
torch.set_printoptions(precision=4, sci_mode=False, linewidth=120)

S = 12
ys, xs = torch.meshgrid(torch.linspace(-1, 1, S), torch.linspace(-1, 1, S), indexing="ij")
pix = torch.stack([xs, ys], -1).view(-1, 2)
print("pixels", pix.shape, pix[:2])


def edge_fn(a, b, p):
    return (p[..., 0] - a[..., 0]) * (b[..., 1] - a[..., 1]) - (p[..., 1] - a[..., 1]) * (b[..., 0] - a[..., 0])


def barycentric(tri, p):
    """tri (F, 3, 2), p (P, 2) -> (P, F, 3) barycentric weights."""
    a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
    pp = p[:, None]
    area = edge_fn(a, b, c)
    w0 = edge_fn(b, c, pp) / area
    w1 = edge_fn(c, a, pp) / area
    w2 = edge_fn(a, b, pp) / area
    return torch.stack([w0, w1, w2], -1)


def point_segment_dist(p, a, b):
    ab = b - a
    t = ((p - a) * ab).sum(-1) / (ab * ab).sum(-1).clamp_min(1e-12)
    t = t.clamp(0, 1)
    proj = a + t[..., None] * ab
    return (p - proj).norm(dim=-1)


def soft_coverage(tri, p, sigma):
    bary = barycentric(tri, p)
    inside = (bary > 0).all(-1)
    pp = p[:, None]
    d = torch.stack([point_segment_dist(pp, tri[:, i], tri[:, (i + 1) % 3]) for i in range(3)], -1).amin(-1)
    sign = torch.where(inside, 1.0, -1.0)
    return torch.sigmoid(sign * d**2 / sigma), bary, inside


tris = torch.tensor([
    [[-0.8, -0.6], [0.2, -0.7], [-0.3, 0.5]],
    [[0.0, 0.0], [0.9, 0.1], [0.4, 0.9]],
])
depth = torch.tensor([[0.5, 0.6, 0.4], [0.3, 0.3, 0.3]])
cov, bary, inside = soft_coverage(tris, pix, 1e-2)
print("coverage", cov.shape, "inside counts", inside.sum(0).tolist())
print("bary sums to 1", torch.allclose(bary.sum(-1), torch.ones(S * S, 2), atol=1e-5))
silhouette = 1 - torch.prod(1 - cov, dim=1)
print("silhouette")
print(silhouette.view(S, S).round(decimals=2))

# soft z-buffer: interpolate depth, softmax over faces weighted by coverage
z = (bary * depth[None]).sum(-1)
gamma = 1e-2
logits = -z / gamma + torch.log(cov.clamp_min(1e-10))
w = torch.softmax(torch.cat([logits, torch.full((S * S, 1), -1.0 / gamma)], 1), 1)
colors = torch.tensor([[1.0, 0.2, 0.2], [0.2, 0.2, 1.0], [0.0, 0.0, 0.0]])
img = (w @ colors).view(S, S, 3)
print("rendered red channel row 6", img[6, :, 0])
print("rendered blue channel row 6", img[6, :, 2])

# hard rasterization with argmin over depth
zh = torch.where(inside, z, torch.full_like(z, float("inf")))
zmin, face = zh.min(1)
face = torch.where(torch.isinf(zmin), torch.full_like(face, -1), face)
print("face ids")
print(face.view(S, S))
print("faces hit", torch.unique(face, return_counts=True))

# fit a triangle to a target silhouette
target_tri = torch.tensor([[[-0.5, -0.5], [0.6, -0.4], [0.0, 0.6]]])
with torch.no_grad():
    target, _, _ = soft_coverage(target_tri, pix, 1e-3)
verts = torch.tensor([[[-0.3, -0.2], [0.2, -0.3], [0.0, 0.2]]], requires_grad=True)
opt = torch.optim.Adam([verts], lr=0.03)
for step in range(60):
    cov_s, _, _ = soft_coverage(verts, pix, 2e-2)
    loss = F.mse_loss(cov_s, target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 15 == 0:
        print(f"step {step:2d} loss {loss.item():.4f} |grad| {verts.grad.norm().item():.4f}")
print("fitted vertices", verts.detach()[0])
print("vertex error", (verts.detach() - target_tri).norm(dim=-1).round(decimals=2))
area = 0.5 * edge_fn(verts[0, 0], verts[0, 1], verts[0, 2]).abs()
print("area", round(area.item(), 3), "target", round(0.5 * edge_fn(*target_tri[0]).abs().item(), 3))
