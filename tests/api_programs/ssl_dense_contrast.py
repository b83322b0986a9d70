"""Dense self-supervision on feature maps: DenseCL's correspondence by argmax over a bmm of flattened,
normalized grids with a dense queue loss, PixPro's pixel-to-propagation module (a cosine affinity raised to a
power with clamp(min=0)) and positive pixels found from the crops' coordinate grids by torch.cdist thresholds,
the regions' bounding boxes mapped by affine coordinates, roi_align-style pooling via grid_sample, and the
shape errors of bmm/baddbmm."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
B, C, S = 2, 6, 4
backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.Conv2d(8, C, 1))
dense_head = nn.Sequential(nn.Conv2d(C, 8, 1), nn.ReLU(), nn.Conv2d(8, C, 1))
x1, x2 = torch.rand(B, 3, S, S), torch.rand(B, 3, S, S)
f1, f2 = dense_head(backbone(x1)), dense_head(backbone(x2))
q = F.normalize(f1.view(B, C, -1), dim=1)
k = F.normalize(f2.view(B, C, -1), dim=1).detach()
backbone_sim = torch.bmm(
    F.normalize(backbone(x1).flatten(2), dim=1).transpose(1, 2), F.normalize(backbone(x2).flatten(2), dim=1)
)
dense_sim_ind = backbone_sim.max(dim=2)[1]
indexed_k = torch.gather(k, 2, dense_sim_ind.unsqueeze(1).expand(-1, k.size(1), -1))
l_pos = (q * indexed_k).sum(1).view(-1).unsqueeze(-1)
queue = F.normalize(torch.randn(C, 10), dim=0)
q_flat = q.permute(0, 2, 1).reshape(-1, C)
l_neg = torch.einsum("nc,ck->nk", [q_flat, queue])
logits = torch.cat([l_pos, l_neg], dim=1) / 0.2
dense_loss = F.cross_entropy(logits, torch.zeros(logits.shape[0], dtype=torch.long))
dense_loss.backward()
print(
    "densecl",
    backbone_sim.shape,
    dense_sim_ind[0].tolist(),
    logits.shape,
    round(dense_loss.item(), 4),
    round(dense_head[0].weight.grad.norm().item(), 4),
)

# PixPro: pixel propagation with a sharpened cosine affinity
feat = F.normalize(f1.detach(), dim=1).flatten(2)
affinity = torch.bmm(feat.transpose(1, 2), feat).clamp(min=0).pow(2)
transform = nn.Conv1d(C, C, 1)
y = torch.bmm(transform(f1.detach().flatten(2)), affinity.transpose(1, 2))
print(
    "pixpro",
    affinity.shape,
    round(affinity.diagonal(dim1=1, dim2=2).mean().item(), 4),
    y.shape,
    round(y.abs().mean().item(), 4),
)
baddbmm = torch.baddbmm(y, feat, affinity, beta=0.5, alpha=2.0)
print("baddbmm", round((baddbmm - 0.5 * y - 2 * torch.bmm(feat, affinity)).abs().max().item(), 4))

# positives from coordinates of two crops of one image
box1, box2 = (
    torch.tensor([[0.0, 0.0, 0.6, 0.6], [0.2, 0.2, 1.0, 1.0]]),
    torch.tensor([[0.3, 0.3, 0.9, 0.9], [0.0, 0.0, 0.5, 0.5]]),
)


def grid_coords(box, s=S):
    t = (torch.arange(s, dtype=torch.float32) + 0.5) / s
    ys = box[:, 1, None] + t * (box[:, 3] - box[:, 1])[:, None]
    xs = box[:, 0, None] + t * (box[:, 2] - box[:, 0])[:, None]
    yy, xx = torch.meshgrid(torch.arange(s), torch.arange(s), indexing="ij")
    return torch.stack([xs[:, xx.flatten()], ys[:, yy.flatten()]], dim=-1)


c1, c2 = grid_coords(box1), grid_coords(box2)
dist = torch.cdist(c1, c2)
max_bin = torch.max(box1[:, 2:] - box1[:, :2], box2[:, 2:] - box2[:, :2]).max(dim=1).values / S
pos_mask = (dist < 0.7 * max_bin[:, None, None]).float()
print("pos mask", c1.shape, pos_mask.sum((1, 2)).tolist(), round(dist.min().item(), 4))
cos = torch.bmm(F.normalize(y, dim=1).transpose(1, 2), F.normalize(f2.detach().flatten(2), dim=1))
pix_loss = -(cos * pos_mask).sum() / pos_mask.sum().clamp(min=1)
print("pix loss", round(pix_loss.item(), 4))

# pooling the overlap region out of each view with grid_sample (roi-align style)
overlap = torch.cat([torch.max(box1[:, :2], box2[:, :2]), torch.min(box1[:, 2:], box2[:, 2:])], dim=1)
rel = (overlap.view(B, 2, 2) - box1[:, None, :2]) / (box1[:, 2:] - box1[:, :2])[:, None]
theta = torch.zeros(B, 2, 3)
theta[:, 0, 0] = rel[:, 1, 0] - rel[:, 0, 0]
theta[:, 1, 1] = rel[:, 1, 1] - rel[:, 0, 1]
theta[:, 0, 2] = rel[:, 1, 0] + rel[:, 0, 0] - 1
theta[:, 1, 2] = rel[:, 1, 1] + rel[:, 0, 1] - 1
pooled = F.grid_sample(f1.detach(), F.affine_grid(theta, [B, C, 2, 2], align_corners=False), align_corners=False)
print("roi", overlap.tolist(), theta[0].round(decimals=4).tolist(), pooled.shape, round(pooled.sum().item(), 4))
for fn in [
    lambda: torch.bmm(feat, feat),
    lambda: torch.bmm(feat[0], feat[0].T),
    lambda: torch.baddbmm(torch.zeros(3, 16, 16), feat.transpose(1, 2), feat),
    lambda: torch.gather(k, 2, dense_sim_ind),
    lambda: torch.cdist(c1, c2[..., :1]),
]:
    try:
        print(fn())
    except Exception as e:
        print(type(e).__name__, e)
