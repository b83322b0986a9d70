"""A Kaggle segmentation notebook: masks to and from run-length encoding in torch, a tiny encoder-decoder with skip
connections, BCE + soft Dice loss, per-image Dice/IoU at thresholds, flip TTA averaged on probabilities,
small-component removal by a minimum pixel count, resizing masks back with nearest and bilinear interpolation."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(9)
H, W = 12, 16


def make_mask():
    m = np.zeros((H, W), np.float32)
    cy, cx, r = rng.integers(3, H - 3), rng.integers(3, W - 3), rng.integers(2, 4)
    yy, xx = np.mgrid[:H, :W]
    m[(yy - cy) ** 2 + (xx - cx) ** 2 <= r * r] = 1
    return m


masks = torch.from_numpy(np.stack([make_mask() for _ in range(6)])).unsqueeze(1)
imgs = masks.repeat(1, 3, 1, 1) * 0.8 + torch.from_numpy(rng.normal(0, 0.3, (6, 3, H, W)).astype(np.float32))
print("imgs", tuple(imgs.shape), "mask pixels", masks.sum((1, 2, 3)).int().tolist())


def rle_encode(m):
    """Column-major RLE (Kaggle's convention) of a 2-D 0/1 mask, 1-indexed starts."""
    pix = torch.cat([torch.zeros(1), m.t().flatten().float(), torch.zeros(1)])
    runs = torch.nonzero(pix[1:] != pix[:-1], as_tuple=False).squeeze(1) + 1
    runs[1::2] -= runs[::2].clone()
    return " ".join(str(v) for v in runs.tolist())


def rle_decode(s, shape):
    nums = torch.tensor([int(v) for v in s.split()], dtype=torch.long).view(-1, 2)
    flat = torch.zeros(shape[0] * shape[1], dtype=torch.uint8)
    for start, length in nums.tolist():
        flat[start - 1:start - 1 + length] = 1
    return flat.view(shape[1], shape[0]).t()


enc = rle_encode(masks[0, 0])
print("rle", enc)
dec = rle_decode(enc, (H, W))
print("roundtrip", torch.equal(dec, masks[0, 0].to(torch.uint8)), dec.dtype, dec.is_contiguous())


class TinyUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc1 = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4), nn.ReLU())
        self.enc2 = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(4, 8, 3, padding=1), nn.ReLU())
        self.up = nn.ConvTranspose2d(8, 4, 2, stride=2)
        self.dec = nn.Conv2d(8, 4, 3, padding=1)
        self.head = nn.Conv2d(4, 1, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(e1)
        d = torch.cat([self.up(e2), e1], dim=1)
        return self.head(F.relu(self.dec(d)))


model = TinyUNet()
pr = np.random.default_rng(4)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy((0.25 * pr.standard_normal(tuple(p.shape))).astype(np.float32)))


def soft_dice_loss(logits, target, eps=1.0):
    p = torch.sigmoid(logits)
    inter = (p * target).sum(dim=(2, 3))
    union = p.sum(dim=(2, 3)) + target.sum(dim=(2, 3))
    return 1 - ((2 * inter + eps) / (union + eps)).mean()


def dice_iou(pred, target, eps=1e-7):
    inter = (pred * target).sum((1, 2, 3))
    s = pred.sum((1, 2, 3)) + target.sum((1, 2, 3))
    dice = torch.where(s == 0, torch.ones_like(s), 2 * inter / (s + eps))
    iou = inter / (s - inter + eps)
    return dice, iou


bce = nn.BCEWithLogitsLoss()
opt = torch.optim.Adam(model.parameters(), lr=2e-2)
for it in range(15):
    opt.zero_grad()
    out = model(imgs)
    loss = 0.5 * bce(out, masks) + 0.5 * soft_dice_loss(out, masks)
    loss.backward()
    opt.step()
    if it % 5 == 0:
        print("it", it, "loss", round(loss.item(), 4), "out", tuple(out.shape))
model.eval()
with torch.no_grad():
    p = torch.sigmoid(model(imgs))
    p_tta = (p + torch.sigmoid(model(imgs.flip(-1))).flip(-1) + torch.sigmoid(model(imgs.flip(-2))).flip(-2)) / 3
for th in (0.3, 0.5, 0.7):
    d, i = dice_iou((p_tta > th).float(), masks)
    print("th", th, "dice", round(d.mean().item(), 4), "iou", round(i.mean().item(), 4))
print("tta vs plain max diff < 1", bool((p_tta - p).abs().max() < 1))
binm = (p_tta > 0.5).float()
binm[binm.sum((1, 2, 3)) < 8] = 0
print("after min-size", binm.sum((1, 2, 3)).int().tolist())
big = F.interpolate(binm, size=(24, 32), mode="nearest")
soft = F.interpolate(p_tta, scale_factor=2, mode="bilinear", align_corners=False)
print("resized", tuple(big.shape), big.unique().tolist(), "soft range", round(soft.min().item(), 4) >= 0)
print("nearest pixels x4", torch.equal(big.sum((1, 2, 3)), binm.sum((1, 2, 3)) * 4))
rows = ["ImageId,EncodedPixels"] + [f"img{i},{rle_encode(binm[i, 0])}" for i in range(3)]
print("\n".join(rows))
empty = rle_encode(torch.zeros(H, W))
print("empty rle", repr(empty))
try:
    soft_dice_loss(model(imgs), masks[:, :, :6])
except RuntimeError as e:
    print("RuntimeError", e)
try:
    F.interpolate(binm, size=(24, 32), mode="bilinear", align_corners=True, antialias=True, scale_factor=2)
except ValueError as e:
    print("ValueError", e)
