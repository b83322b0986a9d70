"""dense correspondence: a stereo cost volume aggregated with Conv3d and regressed by soft-argmin (PSMNet style),
optical-flow warping with grid_sample, a local correlation layer from unfold, convex flow upsampling (RAFT style),
edge-aware smoothness and census-like photometric losses, all trained a few steps on synthetic shifts."""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

rng = np.random.default_rng(17)


def T(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def det(m, scale=0.2):
    with torch.no_grad():
        for name, p in m.named_parameters():
            if p.dim() > 1:
                p.copy_(T(*p.shape, scale=scale))
            elif "bias" in name:
                p.copy_(T(*p.shape, scale=0.05))
    return m


H, W, D = 12, 16, 4
base = F.avg_pool2d(T(1, 1, H + 4, W + 8), 3, stride=1, padding=1)
left = base[..., 2 : 2 + H, 4 : 4 + W].repeat(1, 3, 1, 1)
right = base[..., 2 : 2 + H, 2 : 2 + W].repeat(1, 3, 1, 1)  # true disparity: 2 pixels
left = left + 0.1 * torch.arange(3.0).view(1, 3, 1, 1)
right = right + 0.1 * torch.arange(3.0).view(1, 3, 1, 1)
print("pair", left.shape, r(left[0, 0, 0]), r(right[0, 0, 0, 2:8]))


def cost_volume(fl, fr, max_disp):
    b, c, h, w = fl.shape
    vol = fl.new_zeros(b, 2 * c, max_disp, h, w)
    for d in range(max_disp):
        vol[:, :c, d, :, d:] = fl[..., d:]
        vol[:, c:, d, :, d:] = fr[..., : w - d] if d else fr
    return vol


class StereoNet(nn.Module):
    def __init__(self, c=4):
        super().__init__()
        self.feat = nn.Sequential(
            nn.Conv2d(3, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU(), nn.Conv2d(c, c, 3, padding=1)
        )
        self.agg = nn.Sequential(
            nn.Conv3d(2 * c, c, 3, padding=1), nn.BatchNorm3d(c), nn.ReLU(), nn.Conv3d(c, 1, 3, padding=1)
        )

    def forward(self, l, r_):
        vol = cost_volume(self.feat(l), self.feat(r_), D)
        cost = self.agg(vol).squeeze(1)
        prob = F.softmax(-cost, dim=1)
        disp = (prob * torch.arange(D, dtype=prob.dtype).view(1, D, 1, 1)).sum(1)
        return disp, prob


net = det(StereoNet())
vol = cost_volume(left, right, D)
print("cost volume", vol.shape, r(vol[0, 0, 2, 0, :4]), r(vol[0, 3, 1, 0, :4]))
gt = torch.full((1, H, W), 2.0)
valid = torch.zeros(1, H, W, dtype=torch.bool)
valid[..., D:] = True
opt = torch.optim.Adam(net.parameters(), lr=0.01)
for step in range(6):
    disp, prob = net(left, right)
    loss = F.smooth_l1_loss(disp[valid], gt[valid])
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"stereo step {step} loss {loss.item():.4f} mean disp {disp[valid].mean().item():.4f}")
print(
    "prob sums",
    r(prob.sum(1)[0, 0, :4]),
    "entropy",
    round(-(prob * prob.clamp_min(1e-8).log()).sum(1).mean().item(), 4),
)
print("3-pixel error", round(((disp - gt).abs() > 0.5)[valid].float().mean().item(), 4))


def flow_warp(img, flow):
    b, _, h, w = img.shape
    ys, xs = torch.meshgrid(torch.arange(h, dtype=img.dtype), torch.arange(w, dtype=img.dtype), indexing="ij")
    gx = (xs + flow[:, 0]) / (w - 1) * 2 - 1
    gy = (ys + flow[:, 1]) / (h - 1) * 2 - 1
    grid = torch.stack([gx, gy], -1)
    out = F.grid_sample(img, grid, mode="bilinear", padding_mode="zeros", align_corners=True)
    mask = F.grid_sample(torch.ones_like(img[:, :1]), grid, align_corners=True) > 0.999
    return out, mask


flow = torch.zeros(1, 2, H, W)
flow[:, 0] = -2.0
warped, mask = flow_warp(right, -flow)
print(
    "warp",
    r(warped[0, 0, 0, :6]),
    "valid",
    int(mask.sum()),
    torch.allclose(warped[..., :, : W - 2], right[..., :, 2:], atol=1e-5),
)
subpix = torch.full((1, 2, H, W), 0.25)
w2, _ = flow_warp(left, subpix)
print("subpixel warp", r(w2[0, 1, 3, 3:7]))
flow_param = torch.zeros(1, 2, H, W, requires_grad=True)
fopt = torch.optim.Adam([flow_param], lr=0.3)
for step in range(4):
    wp, m = flow_warp(right, flow_param)
    photo = ((wp - left).abs() * m).sum() / m.sum().clamp(min=1)
    dx = flow_param[..., :, 1:] - flow_param[..., :, :-1]
    dy = flow_param[..., 1:, :] - flow_param[..., :-1, :]
    ix = (left[..., :, 1:] - left[..., :, :-1]).abs().mean(1, keepdim=True)
    smooth = (dx.abs() * torch.exp(-10 * ix)).mean() + dy.abs().mean()
    loss = photo + 0.1 * smooth
    fopt.zero_grad()
    loss.backward()
    fopt.step()
    print(
        f"flow step {step} photo {photo.item():.4f} smooth {smooth.item():.4f}",
        f"mean u {flow_param[:, 0].mean().item():.4f}",
    )


def local_correlation(f1, f2, radius):
    b, c, h, w = f1.shape
    k = 2 * radius + 1
    patches = F.unfold(f2, kernel_size=k, padding=radius).view(b, c, k * k, h, w)
    return (f1.unsqueeze(2) * patches).sum(1) / c


f1 = F.normalize(left, dim=1)
f2 = F.normalize(right, dim=1)
corr = local_correlation(f1, f2, 2)
print("correlation", corr.shape, r(corr[0, :, 5, 8], 25))
print(
    "best offset",
    corr[0, :, 5, 8].argmax().item(),
    "fold roundtrip",
    torch.allclose(
        F.fold(F.unfold(left, 3, padding=1), (H, W), 3, padding=1)
        / F.fold(F.unfold(torch.ones_like(left), 3, padding=1), (H, W), 3, padding=1),
        left,
        atol=1e-5,
    ),
)


def convex_upsample(flow, mask, factor):
    b, _, h, w = flow.shape
    mask = mask.view(b, 1, 9, factor, factor, h, w).softmax(2)
    up = F.unfold(factor * flow, 3, padding=1).view(b, 2, 9, 1, 1, h, w)
    up = (mask * up).sum(2).permute(0, 1, 4, 2, 5, 3)
    return up.reshape(b, 2, factor * h, factor * w)


coarse = T(1, 2, 3, 4)
m = T(1, 9 * 4 * 4, 3, 4)
fine = convex_upsample(coarse, m, 4)
print("convex upsample", fine.shape, r(fine[0, 0, 0, :6]))
print(
    "bilinear upsample", r(4 * F.interpolate(coarse, scale_factor=4, mode="bilinear", align_corners=True)[0, 0, 0, :6])
)
print(
    "pixel_shuffle",
    F.pixel_shuffle(m[:, :16], 4).shape,
    torch.equal(F.pixel_unshuffle(F.pixel_shuffle(m[:, :32], 4), 4), m[:, :32]),
)
print("roll", r(torch.roll(left, shifts=(1, -2), dims=(2, 3))[0, 0, 0, :4]), "flip", r(left.flip(-1)[0, 0, 0, :3]))
census = (F.unfold(left.mean(1, keepdim=True), 3, padding=1) > left.mean(1).reshape(1, 1, -1)).float()
print("census bits", census.shape, census[0, :, 20].tolist())
try:
    F.grid_sample(left, torch.zeros(1, H, W, 3), align_corners=True)
except RuntimeError as e:
    print("RuntimeError", str(e))
try:
    F.unfold(left[0, 0], 3)
except (RuntimeError, IndexError) as e:
    print(type(e).__name__, str(e)[:100])
