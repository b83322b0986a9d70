"""Optical flow and scene-flow utilities as RAFT/UnFlow code writes them: pixel grids from meshgrid, backward
warping by a flow through grid_sample (normalised by W-1/H-1 and by W/H), forward-backward occlusion masks, RAFT's
convex upsampling with unfold and a softmax over the 3x3 neighbourhood, endpoint error with outlier rates, a pose
buffer written through its views, and the census transform with unfold."""

import torch

F = torch.nn.functional
torch.manual_seed(0)


def s(t, n=6):
    return [round(v, 4) for v in t.detach().flatten().tolist()[:n]]


B, H, W = 2, 6, 8


def coords_grid(b, h, w):
    ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
    return torch.stack([xs, ys], dim=0).float()[None].repeat(b, 1, 1, 1)


def warp(img, flow, align_corners=True):
    b, _, h, w = img.shape
    coords = coords_grid(b, h, w) + flow
    if align_corners:
        gx = 2.0 * coords[:, 0] / (w - 1) - 1.0
        gy = 2.0 * coords[:, 1] / (h - 1) - 1.0
    else:
        gx = (2.0 * coords[:, 0] + 1) / w - 1.0
        gy = (2.0 * coords[:, 1] + 1) / h - 1.0
    grid = torch.stack([gx, gy], dim=-1)
    out = F.grid_sample(img, grid, mode="bilinear", padding_mode="zeros", align_corners=align_corners)
    mask = F.grid_sample(torch.ones_like(img[:, :1]), grid, align_corners=align_corners)
    return out, (mask > 0.999).float()


img2 = torch.rand(B, 3, H, W)
flow_fw = torch.randn(B, 2, H, W) * 1.5
flow_fw.requires_grad_(True)
for ac in (True, False):
    w12, m = warp(img2, flow_fw, ac)
    print("warp", ac, s(w12[0, 0, 0]), "valid", m.sum().item())
flow_bw = -flow_fw.detach() + 0.2 * torch.randn(B, 2, H, W)
flow_bw_warped, _ = warp(flow_bw, flow_fw.detach())
fb_sum = flow_fw.detach() + flow_bw_warped
mag = (flow_fw.detach() ** 2).sum(1) + (flow_bw_warped**2).sum(1)
occ = ((fb_sum**2).sum(1) > 0.01 * mag + 0.5).float()
print("occlusion", occ.sum().item(), s(occ[1, 2], 8))

img1 = torch.rand(B, 3, H, W)
w12, valid = warp(img2, flow_fw)
photo = ((img1 - w12).abs() + 0.01).pow(0.4) * valid * (1 - occ.unsqueeze(1))
loss = photo.sum() / ((valid * (1 - occ.unsqueeze(1))).sum() * 3 + 1e-6)
loss.backward()
print("photo", round(loss.item(), 4), "dflow", round(flow_fw.grad.abs().sum().item(), 4), s(flow_fw.grad[0, 0, 1], 4))

up = 4
flow_c = torch.randn(B, 2, H, W)
mask = torch.randn(B, 9 * up * up, H, W)
mask = mask.view(B, 1, 9, up, up, H, W)
mask = torch.softmax(mask, dim=2)
unf = F.unfold(up * flow_c, [3, 3], padding=1)
unf = unf.view(B, 2, 9, 1, 1, H, W)
up_flow = torch.sum(mask * unf, dim=2)
up_flow = up_flow.permute(0, 1, 4, 2, 5, 3)
up_flow = up_flow.reshape(B, 2, up * H, up * W)
print("convex up", tuple(up_flow.shape), s(up_flow[0, 0, 0], 6), up_flow.is_contiguous())
bil = up * F.interpolate(flow_c, scale_factor=up, mode="bilinear", align_corners=True)
print("bilinear up", tuple(bil.shape), round((bil - up_flow).abs().mean().item(), 4))

gt = torch.randn(B, 2, H, W)
valid_gt = torch.rand(B, H, W) > 0.2
epe = torch.sum((flow_fw.detach() - gt) ** 2, dim=1).sqrt()
epe_v = epe.view(-1)[valid_gt.view(-1)]
mag_gt = torch.sum(gt**2, dim=1).sqrt().view(-1)[valid_gt.view(-1)]
out = ((epe_v > 3.0) & ((epe_v / mag_gt) > 0.05)).float()
print(
    "epe",
    round(epe_v.mean().item(), 4),
    "1px",
    round((epe_v < 1).float().mean().item(), 4),
    "F1",
    round(out.mean().item(), 4),
    "n",
    epe_v.numel(),
)
gammas = [0.8 ** (3 - i) for i in range(4)]
seq_loss = sum(g * (flow_fw.detach() * (i + 1) / 4 - gt).abs().mean() for i, g in enumerate(gammas))
print("sequence loss", round(seq_loss.item(), 4))

axis = torch.tensor([[0.0, 0.1, 0.0], [0.02, 0.0, 0.05]], requires_grad=True)
poses = torch.zeros(B, 4, 4)
rot_view = poses[:, :3, :3]
trans_view = poses[:, :3, 3]
poses[:, 3, 3] = 1.0
poses[:, :3, :3] = torch.linalg.matrix_exp(
    torch.cross(axis.unsqueeze(1).expand(B, 3, 3), torch.eye(3).expand(B, 3, 3), dim=-1)
)
try:
    trans_view.copy_(torch.tensor([[0.1, 0.0, 0.2], [0.0, -0.1, 0.3]]))
except Exception as e:
    print(type(e).__name__, e)
print("stale view", trans_view.requires_grad, trans_view.is_leaf, trans_view.grad_fn.name())
trans_view.copy_(torch.tensor([[0.1, 0.0, 0.2], [0.0, -0.1, 0.3]]))
print("pose views", rot_view.requires_grad, rot_view.grad_fn.name(), poses.grad_fn.name(), s(rot_view[1], 9))
pts = torch.randn(B, 10, 3)
moved = pts @ rot_view.transpose(1, 2) + trans_view.unsqueeze(1)
moved.square().mean().backward()
print("dpose", s(axis.grad, 6))

gray = img1.mean(1, keepdim=True)
patches = F.unfold(F.pad(gray, (1, 1, 1, 1), mode="reflect"), 3).view(B, 9, H, W)
census = (patches > gray).float()
census2 = (
    F.unfold(F.pad(img2.mean(1, keepdim=True), (1, 1, 1, 1), mode="reflect"), 3).view(B, 9, H, W)
    > img2.mean(1, keepdim=True)
).float()
hamming = (census != census2).float().sum(1)
print("census", s(hamming[0, 0], 8), round(hamming.mean().item(), 4))
try:
    F.grid_sample(img2, coords_grid(B, H, W).permute(0, 2, 3, 1)[..., :1], align_corners=True)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.unfold(flow_c, [3, 3, 3])
except Exception as e:
    print(type(e).__name__, e)
