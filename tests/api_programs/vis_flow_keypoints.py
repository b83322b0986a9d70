"""Dense correspondence and keypoint code as RAFT/PWC-Net and pose estimators write it: a pixel coordinate grid
by meshgrid, backward warping with grid_sample and an occlusion mask, forward-backward flow consistency, a
correlation volume by matmul with its avg-pooled pyramid and bilinear lookups, RAFT's convex upsampling (unfold
3x3 + softmax mask), gaussian keypoint heatmaps, soft-argmax (spatial softmax expectation), argmax decoding with
quarter-offset refinement, and OKS between keypoint sets."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def rl(t, n=6):
    return [round(v, 4) for v in t.flatten()[:n].tolist()]


def coords_grid(batch, ht, wd):
    ys, xs = torch.meshgrid(torch.arange(ht), torch.arange(wd), indexing="ij")
    coords = torch.stack([xs, ys], dim=0).float()
    return coords[None].repeat(batch, 1, 1, 1)


def bilinear_sampler(img, coords, mask=False):
    H, W = img.shape[-2:]
    xgrid, ygrid = coords.split([1, 1], dim=-1)
    xgrid = 2 * xgrid / (W - 1) - 1
    ygrid = 2 * ygrid / (H - 1) - 1
    grid = torch.cat([xgrid, ygrid], dim=-1)
    out = F.grid_sample(img, grid, align_corners=True)
    if mask:
        valid = (xgrid > -1) & (ygrid > -1) & (xgrid < 1) & (ygrid < 1)
        return out, valid.float()
    return out


B, C, H, W = 2, 3, 8, 8
img1 = torch.rand(B, C, H, W)
flow = torch.randn(B, 2, H, W) * 1.5
grid = coords_grid(B, H, W)
print("grid", tuple(grid.shape), grid[0, :, 1, 2].tolist(), grid.dtype)
coords = (grid + flow).permute(0, 2, 3, 1)
warped, valid = bilinear_sampler(img1, coords, mask=True)
print("warp", tuple(warped.shape), rl(warped[0, 0, 0]), "valid", int(valid.sum().item()))

shift = torch.zeros(B, 2, H, W)
shift[:, 0] = 1.0
img2 = bilinear_sampler(img1, (grid + shift).permute(0, 2, 3, 1))
print("shift by one", torch.allclose(img2[..., :-1], img1[..., 1:], atol=1e-6), rl(img2[0, 0, 0, -2:], 2))

flow_b = -flow + 0.1 * torch.randn_like(flow)
flow_b_w = bilinear_sampler(flow_b, coords)
diff = (flow + flow_b_w).pow(2).sum(1)
mag = flow.pow(2).sum(1) + flow_b_w.pow(2).sum(1)
occ = diff > 0.01 * mag + 0.5
print("fb consistency", int(occ.sum().item()), round(diff.mean().item(), 4))

fmap1 = torch.randn(B, 16, H, W)
fmap2 = torch.randn(B, 16, H, W)
corr = torch.matmul(fmap1.view(B, 16, H * W).transpose(1, 2), fmap2.view(B, 16, H * W))
corr = corr.view(B, H, W, 1, H, W) / torch.sqrt(torch.tensor(16).float())
print("corr", tuple(corr.shape), rl(corr[0, 1, 2, 0, 3]), round(corr.std().item(), 4))
corr_flat = corr.reshape(B * H * W, 1, H, W)
pyramid = [corr_flat]
for _ in range(2):
    corr_flat = F.avg_pool2d(corr_flat, 2, stride=2)
    pyramid.append(corr_flat)
print("pyramid", [tuple(p.shape) for p in pyramid])

r = 1
dx = torch.linspace(-r, r, 2 * r + 1)
dy = torch.linspace(-r, r, 2 * r + 1)
delta = torch.stack(torch.meshgrid(dy, dx, indexing="ij"), dim=-1)
centroid = (grid + flow).permute(0, 2, 3, 1).reshape(B * H * W, 1, 1, 2)
out_pyr = []
for i, c in enumerate(pyramid):
    lvl = centroid / 2 ** i + delta.view(1, 2 * r + 1, 2 * r + 1, 2)
    sampled = bilinear_sampler(c, lvl)
    out_pyr.append(sampled.view(B, H, W, -1))
lookup = torch.cat(out_pyr, dim=-1).permute(0, 3, 1, 2).contiguous()
print("lookup", tuple(lookup.shape), rl(lookup[1, :, 2, 3], 5), round(lookup.abs().mean().item(), 4))


def upsample_flow(flow, mask, factor=4):
    N, _, h, w = flow.shape
    mask = mask.view(N, 1, 9, factor, factor, h, w)
    mask = torch.softmax(mask, dim=2)
    up = F.unfold(factor * flow, [3, 3], padding=1)
    up = up.view(N, 2, 9, 1, 1, h, w)
    up = torch.sum(mask * up, dim=2)
    up = up.permute(0, 1, 4, 2, 5, 3)
    return up.reshape(N, 2, factor * h, factor * w)


mask = torch.randn(B, 9 * 16, H, W, requires_grad=True)
fl = flow.clone().requires_grad_(True)
up = upsample_flow(fl, mask)
print("convex up", tuple(up.shape), rl(up[0, 0, 0]), rl(up[1, 1, -1, -4:], 4))
bil = 4 * F.interpolate(flow, scale_factor=4, mode="bilinear", align_corners=True)
print("bilinear up", tuple(bil.shape), round((up - bil).abs().mean().item(), 4))
uniform = upsample_flow(flow, torch.zeros(B, 9 * 16, H, W))
box = 4 * F.avg_pool2d(F.pad(flow, (1, 1, 1, 1)), 3, stride=1, count_include_pad=True)
print("uniform mask = box filter", torch.allclose(uniform[:, :, ::4, ::4], box, atol=1e-5))
epe = (up - bil).norm(dim=1).mean()
epe.backward()
print("epe", round(epe.item(), 4), "grads", round(mask.grad.abs().sum().item(), 4), rl(fl.grad[0, 0, 0], 4))

K, hh, ww = 3, 16, 12
kps = torch.tensor([[3.2, 4.7], [8.0, 10.5], [11.4, 1.1]])
ys, xs = torch.meshgrid(torch.arange(hh, dtype=torch.float32), torch.arange(ww, dtype=torch.float32),
                        indexing="ij")
sigma = 1.5
heat = torch.exp(-((xs[None] - kps[:, 0, None, None]) ** 2 + (ys[None] - kps[:, 1, None, None]) ** 2)
                 / (2 * sigma ** 2))
print("heatmaps", tuple(heat.shape), rl(heat.amax(dim=(1, 2)), 3))

beta = 10.0
sm = F.softmax(beta * heat.view(K, -1), dim=-1).view(K, hh, ww)
soft_xy = torch.stack([(sm * xs).sum((1, 2)), (sm * ys).sum((1, 2))], dim=-1)
print("soft-argmax", rl(soft_xy, 6))

flat_idx = heat.view(K, -1).argmax(dim=-1)
px = (flat_idx % ww).float()
py = torch.div(flat_idx, ww, rounding_mode="floor").float()
ix, iy = px.long(), py.long()
ks = torch.arange(K)
dxs = torch.sign(heat[ks, iy, (ix + 1).clamp(max=ww - 1)] - heat[ks, iy, (ix - 1).clamp(min=0)])
dys = torch.sign(heat[ks, (iy + 1).clamp(max=hh - 1), ix] - heat[ks, (iy - 1).clamp(min=0), ix])
refined = torch.stack([px + 0.25 * dxs, py + 0.25 * dys], dim=-1)
print("argmax", torch.stack([px, py], -1).tolist(), "refined", refined.tolist())

pred = kps + torch.tensor([[0.5, -0.3], [1.0, 1.0], [-2.0, 0.0]])
vis = torch.tensor([1.0, 1.0, 0.0])
area = torch.tensor(40.0)
kappa = torch.tensor([0.079, 0.072, 0.062]) * 2
d2 = ((pred - kps) ** 2).sum(-1)
e = d2 / (2 * area * kappa ** 2 + 1e-9)
oks = (torch.exp(-e) * vis).sum() / vis.sum()
print("oks", round(oks.item(), 4), rl(torch.exp(-e), 3))
