"""Differentiable rendering toys as NeRF/pytorch3d tutorials write them: camera rays from a meshgrid, ray-sphere
intersection with a discriminant mask, stratified samples with a seeded jitter, volume rendering weights through
cumprod/cumsum transmittance (exclusive via torch.cat), depth and opacity maps, hierarchical sampling with
searchsorted on the CDF, and a density grid fitted with trilinear F.grid_sample in 3-D."""

import torch
import torch.nn.functional as F

torch.manual_seed(4)
torch.set_printoptions(precision=4, sci_mode=False)

H = W = 6
focal = 5.0
v, u = torch.meshgrid(torch.arange(H, dtype=torch.float32), torch.arange(W, dtype=torch.float32), indexing="ij")
dirs = torch.stack([(u - W / 2 + 0.5) / focal, -(v - H / 2 + 0.5) / focal, -torch.ones_like(u)], -1)
origin = torch.tensor([0.0, 0.0, 3.0])
rays_d = F.normalize(dirs.reshape(-1, 3), dim=-1)
rays_o = origin.expand_as(rays_d)
print("rays", rays_o.shape, rays_d.shape, rays_d[0], rays_d[15])


def ray_sphere(o, d, center, radius):
    oc = o - center
    b = (oc * d).sum(-1)
    c = (oc * oc).sum(-1) - radius**2
    disc = b * b - c
    hit = disc > 0
    sq = torch.sqrt(disc.clamp_min(0))
    t0 = torch.where(hit, -b - sq, torch.full_like(b, float("inf")))
    t1 = torch.where(hit, -b + sq, torch.full_like(b, float("inf")))
    return hit, t0, t1


hit, t0, t1 = ray_sphere(rays_o, rays_d, torch.zeros(3), 1.0)
print("hits", hit.view(H, W).int())
print("t near", t0[hit][:4], "inf count", torch.isinf(t0).sum().item())
pts_hit = rays_o[hit] + t0[hit, None] * rays_d[hit]
print("on sphere", torch.allclose(pts_hit.norm(dim=-1), torch.ones(hit.sum()), atol=1e-5))
shade = (F.normalize(pts_hit, dim=-1) @ F.normalize(torch.tensor([1.0, 1.0, 1.0]), dim=0)).clamp_min(0)
image = torch.zeros(H * W).masked_scatter(hit, shade).view(H, W)
print("lambert image", image)


def sample_along(near, far, n, perturb):
    t = torch.linspace(0, 1, n)
    z = near[:, None] * (1 - t) + far[:, None] * t
    if perturb:
        mids = 0.5 * (z[:, 1:] + z[:, :-1])
        upper = torch.cat([mids, z[:, -1:]], -1)
        lower = torch.cat([z[:, :1], mids], -1)
        z = lower + (upper - lower) * torch.rand(z.shape)
    return z


def density(x):
    return 8.0 * torch.relu(1.0 - x.norm(dim=-1))


def render(sigma, rgb, z, last=1e10):
    delta = torch.cat([z[:, 1:] - z[:, :-1], torch.full_like(z[:, :1], last)], -1)
    alpha = 1.0 - torch.exp(-sigma * delta)
    trans = torch.cumprod(torch.cat([torch.ones_like(alpha[:, :1]), 1.0 - alpha + 1e-10], -1), -1)[:, :-1]
    weights = alpha * trans
    return (weights[..., None] * rgb).sum(-2), (weights * z).sum(-1), weights.sum(-1), weights


near = torch.full((H * W,), 1.0)
far = torch.full((H * W,), 5.0)
z = sample_along(near, far, 32, perturb=True)
print("z samples", z.shape, z[0, :5])
pts = rays_o[:, None] + z[..., None] * rays_d[:, None]
sigma = density(pts)
rgb = torch.sigmoid(pts)
color, depth, acc, weights = render(sigma, rgb, z)
print("color", color.shape, color[14:16])
print("depth map", depth.view(H, W)[2])
print("opacity", acc.view(H, W))

# log-space transmittance via cumsum gives the same weights
dz = torch.cat([z[:, 1:] - z[:, :-1], torch.full_like(z[:, :1], 1e10)], -1)
tau = torch.cumsum(sigma * dz, -1)
T_excl = torch.exp(-torch.cat([torch.zeros_like(tau[:, :1]), tau[:, :-1]], -1))
w2 = T_excl * (1 - torch.exp(-sigma * dz))
print("cumsum weights agree", torch.allclose(w2, weights, atol=1e-5))

# hierarchical sampling from the piecewise-constant PDF
def sample_pdf(bins, w, n):
    w = w + 1e-5
    pdf = w / w.sum(-1, keepdim=True)
    cdf = torch.cat([torch.zeros_like(pdf[:, :1]), torch.cumsum(pdf, -1)], -1)
    u = torch.linspace(0, 1, n).expand(cdf.shape[0], n).contiguous()
    inds = torch.searchsorted(cdf, u, right=True)
    below = (inds - 1).clamp_min(0)
    above = inds.clamp_max(cdf.shape[-1] - 1)
    g = torch.stack([below, above], -1)
    cdf_g = torch.gather(cdf.unsqueeze(1).expand(-1, n, -1), 2, g)
    bins_g = torch.gather(bins.unsqueeze(1).expand(-1, n, -1), 2, g)
    denom = cdf_g[..., 1] - cdf_g[..., 0]
    denom = torch.where(denom < 1e-5, torch.ones_like(denom), denom)
    t = (u - cdf_g[..., 0]) / denom
    return bins_g[..., 0] + t * (bins_g[..., 1] - bins_g[..., 0])


mids = 0.5 * (z[:, 1:] + z[:, :-1])
fine = sample_pdf(mids, weights[:, 1:-1], 16)
print("fine samples", fine.shape, fine[14, :6])
z_all, order = torch.sort(torch.cat([z, fine], -1), -1)
print("sorted", torch.all(z_all[:, 1:] >= z_all[:, :-1]).item(), order.dtype, z_all.shape)

# fit a density grid so rendered opacity matches the sphere's silhouette
target = hit.float()
grid = torch.zeros(1, 1, 8, 8, 8, requires_grad=True)
opt = torch.optim.Adam([grid], lr=0.3)
zz = sample_along(near, far, 24, perturb=False)
pts = rays_o[:, None] + zz[..., None] * rays_d[:, None]
coords = (pts / 1.5).clamp(-1, 1).view(1, 1, H * W, 24, 3)
for step in range(41):
    s = F.grid_sample(grid, coords, mode="bilinear", padding_mode="border", align_corners=True)
    s = F.softplus(s.view(H * W, 24))
    _, _, acc, _ = render(s, torch.zeros(H * W, 24, 3), zz, last=0.0)
    loss = F.binary_cross_entropy(acc.clamp(1e-4, 1 - 1e-4), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step:2d} bce {loss.item():.4f} grad {grid.grad.abs().sum().item():.4f}")
print("fitted opacity", acc.detach().view(H, W).round(decimals=2))
print("grid stats", grid.detach().mean().round(decimals=4), grid.shape)
