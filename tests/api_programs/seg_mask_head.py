"""A Mask R-CNN mask branch by hand: RoIAlign crops through affine_grid + grid_sample (aligned boxes, sampling
ratio by averaging), a ConvTranspose2d head, per-class mask selection by advanced indexing for
binary_cross_entropy_with_logits against box-cropped targets, and pasting masks back into the image."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
M = 7


def r(t):
    return round(float(torch.as_tensor(t).detach()), 4)


def roi_align(feat, boxes, batch_idx, out=M, scale=0.5, ratio=2):
    n = boxes.shape[0]
    b = boxes * scale - 0.5
    h, w = feat.shape[-2:]
    x1, y1, x2, y2 = b.unbind(1)
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0] = (x2 - x1) / (w - 1) * (w - 1) / w
    theta[:, 0, 2] = ((x1 + x2) / 2 + 0.5) * 2 / w - 1
    theta[:, 1, 1] = (y2 - y1) / (h - 1) * (h - 1) / h
    theta[:, 1, 2] = ((y1 + y2) / 2 + 0.5) * 2 / h - 1
    grid = F.affine_grid(theta, (n, feat.shape[1], out * ratio, out * ratio), align_corners=False)
    crops = F.grid_sample(feat[batch_idx], grid, mode="bilinear", padding_mode="zeros", align_corners=False)
    return F.avg_pool2d(crops, ratio)


class MaskHead(nn.Module):
    def __init__(self, cin, classes):
        super().__init__()
        self.convs = nn.Sequential(*[m for _ in range(2) for m in (nn.Conv2d(cin, cin, 3, padding=1), nn.ReLU())])
        self.deconv = nn.ConvTranspose2d(cin, cin, 2, stride=2)
        self.logits = nn.Conv2d(cin, classes, 1)
        for mod in self.modules():
            if isinstance(mod, (nn.Conv2d, nn.ConvTranspose2d)):
                nn.init.kaiming_normal_(mod.weight, mode="fan_out", nonlinearity="relu")
                nn.init.zeros_(mod.bias)

    def forward(self, x):
        return self.logits(F.relu(self.deconv(self.convs(x))))


feat = torch.randn(2, 4, 16, 16)
boxes = torch.tensor([[2.0, 3.0, 20.0, 25.0], [0.0, 0.0, 31.0, 31.0], [10.0, 12.0, 14.0, 30.0]])
bidx = torch.tensor([0, 1, 1])
labels = torch.tensor([2, 1, 2])
crops = roi_align(feat, boxes, bidx)
print("crops", tuple(crops.shape), r(crops.sum()), r(crops[1].abs().mean()))

gt = torch.zeros(2, 32, 32)
gt[0, 5:20, 4:15] = 1
gt[1, 2:30, 3:12] = 1
gt[1, 14:28, 11:13] = 1
mask_targets = roi_align(gt.unsqueeze(1), boxes, bidx, out=2 * M, scale=1.0, ratio=1).squeeze(1)
mask_targets = (mask_targets >= 0.5).float()
print("targets", tuple(mask_targets.shape), mask_targets.sum((1, 2)).tolist())

head = MaskHead(4, 3)
opt = torch.optim.SGD(head.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
for step in range(4):
    logits = head(crops)
    sel = logits[torch.arange(logits.shape[0]), labels]
    loss = F.binary_cross_entropy_with_logits(sel, mask_targets)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", step, r(loss), tuple(sel.shape), sel.grad_fn.name())
print("grad of unused class", head.logits.weight.grad[0].abs().sum().item(), r(head.logits.bias.grad[2]))

with torch.no_grad():
    probs = head(crops).sigmoid()[torch.arange(3), labels]


def paste(mask, box, h, w):
    x1, y1, x2, y2 = box.tolist()
    bw, bh = max(x2 - x1, 1.0), max(y2 - y1, 1.0)
    ys = (torch.arange(h, dtype=torch.float32) + 0.5 - y1) / bh * 2 - 1
    xs = (torch.arange(w, dtype=torch.float32) + 0.5 - x1) / bw * 2 - 1
    gy, gx = torch.meshgrid(ys, xs, indexing="ij")
    grid = torch.stack([gx, gy], -1)[None]
    return F.grid_sample(mask[None, None], grid, align_corners=False)[0, 0]


full = torch.stack([paste(p, b, 32, 32) for p, b in zip(probs, boxes)])
binm = full > 0.5
print("pasted", tuple(full.shape), r(full.sum()), binm.sum((1, 2)).tolist())
print("outside box zero", full[0, 28:, :].abs().sum().item(), full[2, :, :8].abs().sum().item())
inter = (binm[:, None] & (gt[bidx] > 0)[None]).flatten(2).sum(-1)
print("mask iou table", inter.shape, inter.diagonal().tolist())
w = torch.rand(3, 2 * M, 2 * M)
print("weighted bce", r(F.binary_cross_entropy_with_logits(sel.detach(), mask_targets, weight=w, reduction="sum")))
print("bce none", F.binary_cross_entropy_with_logits(sel.detach(), mask_targets, reduction="none").shape)
print(
    "nearest sample",
    F.grid_sample(feat[:1], torch.zeros(1, 1, 1, 2), mode="nearest", align_corners=True)
    .flatten()
    .round(decimals=4)
    .tolist(),
)
print(
    "border",
    r(F.grid_sample(feat[:1], torch.full((1, 2, 2, 2), 1.5), padding_mode="border", align_corners=False).sum()),
)
print(
    "reflection",
    r(F.grid_sample(feat[:1], torch.full((1, 2, 2, 2), 1.5), padding_mode="reflection", align_corners=True).sum()),
)

for bad in [
    lambda: F.binary_cross_entropy_with_logits(sel, mask_targets[:2]),
    lambda: F.binary_cross_entropy(sel, mask_targets),
    lambda: F.grid_sample(feat, torch.zeros(3, 2, 2, 2)),
    lambda: F.grid_sample(feat, torch.zeros(2, 2, 2, 3)),
    lambda: F.affine_grid(torch.zeros(2, 3, 3), (2, 1, 4, 4), align_corners=False),
    lambda: F.grid_sample(feat, torch.zeros(2, 2, 2, 2), mode="cubic"),
    lambda: logits[torch.arange(3), labels.float()],
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
