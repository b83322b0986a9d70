"""Differentiable binarization text detection (DBNet) as its training code writes it: probability and threshold
heads, the approximate binary map 1/(1+exp(-k(P-T))), balanced BCE with 3:1 OHEM through topk over negatives,
dice loss on the binary map, masked L1 on the threshold map, dilation and erosion by max_pool2d, connected-component
labelling by iterative max pooling, and box extraction from each component's pixels."""

import torch
from torch import nn

F = torch.nn.functional

torch.manual_seed(0)
N, H, W = 2, 16, 24
gt = torch.zeros(N, 1, H, W)
gt[0, 0, 3:6, 2:12] = 1
gt[0, 0, 9:13, 14:22] = 1
gt[1, 0, 5:9, 4:20] = 1
mask = torch.ones_like(gt)
mask[1, 0, :, :2] = 0  # an ignored "###" region

border = F.max_pool2d(gt, 5, 1, 2) - (-F.max_pool2d(-gt, 3, 1, 1))
thresh_gt = 0.3 + 0.4 * border
thresh_mask = F.max_pool2d(gt, 5, 1, 2)
print(
    "border px",
    border.sum().item(),
    "dilated",
    thresh_mask.sum().item(),
    "eroded",
    (-F.max_pool2d(-gt, 3, 1, 1)).sum().item(),
)


class DBHead(nn.Module):
    def __init__(self, c=8, k=50):
        super().__init__()
        self.k = k
        self.body = nn.Sequential(nn.Conv2d(1, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU())
        self.prob = nn.Sequential(
            nn.Conv2d(c, c, 3, padding=1), nn.ReLU(), nn.ConvTranspose2d(c, 1, 2, 2), nn.Sigmoid()
        )
        self.thresh = nn.Sequential(
            nn.Conv2d(c, c, 3, padding=1), nn.ReLU(), nn.ConvTranspose2d(c, 1, 2, 2), nn.Sigmoid()
        )

    def forward(self, x):
        f = self.body(x)
        p, t = self.prob(f), self.thresh(f)
        return p, t, torch.reciprocal(1 + torch.exp(-self.k * (p - t)))


def balanced_bce(pred, gt, mask, ratio=3.0):
    pos = (gt * mask).bool()
    neg = ((1 - gt) * mask).bool()
    n_pos = int(pos.sum())
    n_neg = min(int(neg.sum()), int(n_pos * ratio))
    loss = F.binary_cross_entropy(pred, gt, reduction="none")
    pos_loss = loss[pos]
    neg_loss, _ = loss[neg].topk(n_neg)
    return (pos_loss.sum() + neg_loss.sum()) / (n_pos + n_neg + 1e-6), n_pos, n_neg


def dice(pred, gt, mask):
    inter = (pred * gt * mask).sum()
    union = (pred * mask).sum() + (gt * mask).sum() + 1e-6
    return 1 - 2.0 * inter / union


model = DBHead()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-4)
img = gt + 0.3 * torch.randn(N, 1, H, W)
img = F.avg_pool2d(img, 2)
for step in range(4):
    p, t, b = model(img)
    l_bce, n_pos, n_neg = balanced_bce(p, gt, mask)
    l_dice = dice(b, gt, mask)
    l_l1 = ((t - thresh_gt).abs() * thresh_mask).sum() / (thresh_mask.sum() + 1e-6)
    loss = l_bce + l_dice + 10 * l_l1
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(
        step,
        round(loss.item(), 4),
        round(l_bce.item(), 4),
        round(l_dice.item(), 4),
        round(l_l1.item(), 4),
        n_pos,
        n_neg,
    )


def components(binary):
    """Label 4-connected components: each pixel takes the max label of its neighbourhood until stable."""
    lab = torch.arange(1, binary.numel() + 1, dtype=torch.float32).view_as(binary) * binary
    cross = torch.tensor([[0.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 0.0]])
    for it in range(100):
        pad = F.pad(lab[None, None], (1, 1, 1, 1))
        patches = F.unfold(pad, 3)[0].view(9, *binary.shape) * cross.flatten()[:, None, None]
        new = patches.max(0).values * binary
        if torch.equal(new, lab):
            break
        lab = new
    return torch.unique(lab[lab > 0], return_inverse=True)[1], lab, it


seg = (gt[:, 0] + 0.05 * torch.randn(N, H, W)) > 0.5
for i in range(N):
    ids, lab, iters = components(seg[i].float())
    print("image", i, "components", len(torch.unique(lab[lab > 0])), "iterations", iters)
    for v in torch.unique(lab[lab > 0]).tolist():
        ys, xs = torch.nonzero(lab == v, as_tuple=True)
        box = torch.stack([xs.min(), ys.min(), xs.max(), ys.max()])
        score = p[i, 0][ys, xs].mean()
        print("  box", box.tolist(), "area", len(xs), "score", round(score.item(), 4))
with torch.no_grad():
    p, t, b = model(img)
print("prob range", round(p.min().item(), 4), round(p.max().item(), 4), tuple(b.shape))
try:
    F.binary_cross_entropy(p, gt[:, :, :8])
except Exception as e:
    print(type(e).__name__, e)
try:
    F.binary_cross_entropy(p * 3 - 0.5, gt)
except Exception as e:
    print(type(e).__name__, e)
