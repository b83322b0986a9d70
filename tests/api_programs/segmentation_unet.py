"""Semantic segmentation research code: a small UNet (ConvTranspose2d, GroupNorm, depthwise-separable convs,
nn.Upsample, PixelShuffle), dice + weighted cross-entropy with ignore_index on (N, C, H, W), a confusion matrix via
bincount, mIoU, F.unfold/F.fold patches and a grid_sample warp."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(1)
torch.manual_seed(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


class DSConv(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.dw = nn.Conv2d(cin, cin, 3, padding=1, groups=cin, bias=False)
        self.pw = nn.Conv2d(cin, cout, 1, bias=False)
        self.norm = nn.GroupNorm(2, cout)
        self.act = nn.SiLU(inplace=True)

    def forward(self, x):
        return self.act(self.norm(self.pw(self.dw(x))))


class UNet(nn.Module):
    def __init__(self, cin=3, ncls=4, w=4):
        super().__init__()
        self.enc1 = DSConv(cin, w)
        self.enc2 = DSConv(w, 2 * w)
        self.pool = nn.MaxPool2d(2)
        self.mid = nn.Sequential(nn.Conv2d(2 * w, 4 * w, 3, padding="same"), nn.GroupNorm(4, 4 * w), nn.ReLU())
        self.up2 = nn.ConvTranspose2d(4 * w, 2 * w, kernel_size=2, stride=2)
        self.dec2 = DSConv(4 * w, 2 * w)
        self.up1 = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.dec1 = DSConv(3 * w, w)
        self.head = nn.Conv2d(w, ncls, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        m = self.mid(self.pool(e2))
        d2 = self.dec2(torch.cat([self.up2(m), e2], dim=1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], dim=1))
        return self.head(d1)


net = UNet()
with torch.no_grad():
    for name, p in net.named_parameters():
        p.copy_(T(*p.shape) * (0.3 if p.dim() > 1 else 0.05) + (1.0 if name.endswith("norm.weight") else 0.0))
print(net.dec2)
print("params", sum(p.numel() for p in net.parameters()), [n for n, _ in net.named_children()])
x = T(2, 3, 16, 16)
target = torch.from_numpy(rng.integers(0, 4, (2, 16, 16)))
target[:, :2, :] = 255
logits = net(x)
print("logits", tuple(logits.shape), r(logits[0, :, 0, 0]))
weight = torch.tensor([0.5, 1.0, 2.0, 1.5])
ce = F.cross_entropy(logits, target, weight=weight, ignore_index=255)
ce_ls = F.cross_entropy(logits, target, ignore_index=255, label_smoothing=0.1)
ce_none = F.cross_entropy(logits, target, ignore_index=255, reduction="none")
print("ce", r(ce), r(ce_ls), tuple(ce_none.shape), r(ce_none[0, 0, :3]), r(ce_none[0, 2, :3]))
print("nll", r(F.nll_loss(F.log_softmax(logits, 1), target, weight=weight, ignore_index=255)))
crit = nn.CrossEntropyLoss(weight=weight, ignore_index=255)
print(crit, r(crit(logits, target)))


def dice_loss(logits, target, ncls, eps=1.0):
    valid = (target != 255)
    t = F.one_hot(target.clamp(max=ncls - 1), ncls).permute(0, 3, 1, 2).float() * valid[:, None]
    p = logits.softmax(dim=1) * valid[:, None]
    inter = (p * t).sum(dim=(0, 2, 3))
    den = p.sum(dim=(0, 2, 3)) + t.sum(dim=(0, 2, 3))
    return 1 - ((2 * inter + eps) / (den + eps)).mean()


dl = dice_loss(logits, target, 4)
loss = ce + dl
loss.backward()
print("dice", r(dl), "grad", r(net.head.weight.grad[:, 0]), r(net.up2.weight.grad.norm()))
opt = torch.optim.AdamW(net.parameters(), lr=1e-2, weight_decay=1e-4)
for step in range(3):
    opt.zero_grad(set_to_none=True)
    out = net(x)
    loss = F.cross_entropy(out, target, weight=weight, ignore_index=255) + dice_loss(out, target, 4)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm=1.0)
    opt.step()
    print("step", step, round(loss.item(), 4))

net.eval()
with torch.inference_mode():
    pred = net(x).argmax(dim=1)
valid = target != 255
k = 4
cm = torch.bincount(k * target[valid] + pred[valid], minlength=k * k).reshape(k, k)
print("confusion", cm.tolist(), cm.dtype)
iou = cm.diag() / (cm.sum(0) + cm.sum(1) - cm.diag()).clamp(min=1)
print("iou", r(iou), "miou", round(iou.mean().item(), 4), "acc", round((cm.diag().sum() / cm.sum()).item(), 4))
print("pred", pred.dtype, pred.shape, torch.unique(pred).tolist(), torch.unique(target, return_counts=True)[1].tolist())

# patches
img = T(1, 2, 6, 6)
patches = F.unfold(img, kernel_size=2, stride=2)
print("unfold", tuple(patches.shape), r(patches[0, :, 0], 8))
back = F.fold(patches, output_size=(6, 6), kernel_size=2, stride=2)
print("fold", torch.allclose(back, img))
ov = F.unfold(img, kernel_size=3, padding=1)
cnt = F.fold(torch.ones_like(ov), (6, 6), kernel_size=3, padding=1)
avg = F.fold(ov, (6, 6), 3, padding=1) / cnt
print("overlap", tuple(ov.shape), r(cnt[0, 0, :2], 12), torch.allclose(avg, img, atol=1e-6))
unf = nn.Unfold(kernel_size=(2, 3), dilation=1, stride=(2, 3))
print(unf, tuple(unf(img).shape))
ps, pu = nn.PixelShuffle(2), nn.PixelUnshuffle(2)
y = pu(img)
print(ps, pu, tuple(y.shape), torch.equal(ps(y), img), r(y[0, :, 0, 0], 8))
print("F.pixel_shuffle", tuple(F.pixel_shuffle(T(1, 8, 2, 3), 2).shape))

# warp
theta = torch.tensor([[[0.9, -0.1, 0.05], [0.1, 0.9, -0.05]]])
grid = F.affine_grid(theta, (1, 2, 6, 6), align_corners=False)
warped = F.grid_sample(img, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
print("warp", tuple(grid.shape), r(grid[0, 0, 0]), r(warped[0, 0, 0]))
w2 = F.grid_sample(img, grid, mode="nearest", padding_mode="border", align_corners=False)
w3 = F.grid_sample(img, grid * 1.3, mode="bilinear", padding_mode="reflection", align_corners=True)
print("nearest/border", r(w2[0, 1, 2]), "reflection", r(w3[0, 0, 5]))
flow = T(1, 6, 6, 2) * 0.05
ident = F.affine_grid(torch.eye(2, 3)[None], (1, 2, 6, 6), align_corners=False)
print("flow warp", r(F.grid_sample(img, ident + flow, align_corners=False)[0, 0, 1]))
print("adaptive", r(F.adaptive_avg_pool2d(img, (4, 3))[0, 0, 0]), r(F.adaptive_max_pool2d(img, 1).flatten()))
print("bilinear up", r(F.interpolate(img, scale_factor=2, mode="bilinear", align_corners=True)[0, 0, 1]))
up = nn.Upsample(size=(9, 9), mode="nearest")
print(up, tuple(up(img).shape), nn.Upsample(scale_factor=2.0, mode="bicubic"))
