"""3-D data: a volumetric U-Net block (Conv3d, ConvTranspose3d, BatchNorm3d/InstanceNorm3d, MaxPool3d indices with
MaxUnpool3d, trilinear upsampling, Dropout3d), an R(2+1)D video classifier, 3-D affine_grid/grid_sample and Dice."""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

rng = np.random.default_rng(3)


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


vol = T(2, 1, 8, 8, 8)
pool = nn.MaxPool3d(2, return_indices=True)
pooled, idx = pool(vol)
print("maxpool3d", pooled.shape, idx.dtype, idx[0, 0, 0].tolist())
unpooled = nn.MaxUnpool3d(2)(pooled, idx)
print("unpool", unpooled.shape, int((unpooled != 0).sum()), torch.equal(unpooled.amax(), vol.amax()))
print("unpool out size", F.max_unpool3d(pooled, idx, 2, output_size=(9, 9, 9)).shape)
print("avgpool3d", r(F.avg_pool3d(vol, (2, 2, 1), stride=(2, 1, 1), padding=(1, 0, 0), count_include_pad=False)))
print("adaptive", F.adaptive_avg_pool3d(vol, (3, 2, 1)).shape, r(F.adaptive_max_pool3d(vol, 2), 4))
print("lp_pool3d", r(F.lp_pool3d(vol.abs(), 2.0, 2), 4))
up = F.interpolate(pooled, scale_factor=2, mode="trilinear", align_corners=False)
print("trilinear", up.shape, r(up[0, 0, 1, 1]))
print("trilinear ac", r(F.interpolate(pooled, size=(5, 6, 7), mode="trilinear", align_corners=True)[1, 0, 2, 3]))
print("nearest3d", r(F.interpolate(pooled, scale_factor=(1, 2, 2), mode="nearest")[0, 0, 0, 0]))


class ConvBlock(nn.Module):
    def __init__(self, cin, cout, norm="batch"):
        super().__init__()
        Norm = nn.BatchNorm3d if norm == "batch" else lambda c: nn.InstanceNorm3d(c, affine=True)
        self.body = nn.Sequential(
            nn.Conv3d(cin, cout, 3, padding=1, bias=False),
            Norm(cout),
            nn.LeakyReLU(0.1, inplace=True),
            nn.Dropout3d(0.3),
            nn.Conv3d(cout, cout, 3, padding=1, bias=False),
            Norm(cout),
            nn.LeakyReLU(0.1, inplace=True),
        )

    def forward(self, x):
        return self.body(x)


class UNet3D(nn.Module):
    def __init__(self, c=4, n_cls=3):
        super().__init__()
        self.enc1 = ConvBlock(1, c)
        self.enc2 = ConvBlock(c, 2 * c, norm="instance")
        self.pool = nn.MaxPool3d(2)
        self.bott = ConvBlock(2 * c, 2 * c)
        self.up2 = nn.ConvTranspose3d(2 * c, 2 * c, 2, stride=2)
        self.dec2 = ConvBlock(4 * c, c)
        self.up1 = nn.Upsample(scale_factor=2, mode="trilinear", align_corners=False)
        self.dec1 = ConvBlock(2 * c, c, norm="instance")
        self.head = nn.Conv3d(c, n_cls, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        b = self.bott(self.pool(e2))
        d2 = self.dec2(torch.cat([self.up2(b), e2], 1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], 1))
        return self.head(d1)


net = det(UNet3D())
print("unet params", sum(p.numel() for p in net.parameters()), len(list(net.buffers())))
print(net.enc2.body[1], net.up2)
labels = (vol[:, 0] > 0.5).long() + (vol[:, 0] > 1.2).long()
print("label counts", torch.bincount(labels.flatten(), minlength=3).tolist())


def dice_loss(logits, target, eps=1e-6):
    prob = logits.softmax(1)
    onehot = F.one_hot(target, logits.shape[1]).permute(0, 4, 1, 2, 3).float()
    inter = (prob * onehot).sum(dim=(2, 3, 4))
    denom = prob.sum(dim=(2, 3, 4)) + onehot.sum(dim=(2, 3, 4))
    return 1 - ((2 * inter + eps) / (denom + eps)).mean()


net.eval()
with torch.no_grad():
    out_eval = net(vol)
print("eval out", out_eval.shape, r(out_eval[0, :, 4, 4, 4]))
net.train()
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
w = torch.tensor([0.2, 1.0, 2.0])
for step in range(6):
    net.enc1.body[3].eval()
    net.dec2.body[3].eval()
    net.enc2.body[3].eval()
    net.bott.body[3].eval()
    net.dec1.body[3].eval()
    logits = net(vol)
    ce = F.cross_entropy(logits, labels, weight=w)
    loss = ce + dice_loss(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} ce {ce.item():.4f} total {loss.item():.4f}")
bn = net.enc1.body[1]
print("bn running", r(bn.running_mean, 4), r(bn.running_var, 4), bn.num_batches_tracked.item())
print("conv3d grad", r(net.enc1.body[0].weight.grad, 4), net.up2.weight.grad.shape)
net.eval()
with torch.no_grad():
    pred = net(vol).argmax(1)
print(
    "pred counts",
    torch.bincount(pred.flatten(), minlength=3).tolist(),
    "acc",
    round((pred == labels).float().mean().item(), 4),
)
drop = nn.Dropout3d(0.5).eval()
print("dropout3d eval identity", torch.equal(drop(vol), vol))
print("convT3d output_padding", nn.ConvTranspose3d(1, 2, 3, stride=2, padding=1, output_padding=1)(vol).shape)
print(
    "conv3d groups dilation",
    nn.Conv3d(4, 4, 3, groups=2, dilation=2, padding=2, padding_mode="zeros")(T(1, 4, 6, 6, 6)).shape,
)


class R2Plus1D(nn.Module):
    """Factorised 3-D convolution: spatial (1,k,k) then temporal (k,1,1)."""

    def __init__(self, cin, cout, mid):
        super().__init__()
        self.spatial = nn.Conv3d(cin, mid, (1, 3, 3), padding=(0, 1, 1), bias=False)
        self.bn = nn.BatchNorm3d(mid)
        self.temporal = nn.Conv3d(mid, cout, (3, 1, 1), padding=(1, 0, 0), bias=False)

    def forward(self, x):
        return self.temporal(F.relu(self.bn(self.spatial(x))))


class VideoNet(nn.Module):
    def __init__(self, n_cls=4):
        super().__init__()
        self.stem = R2Plus1D(3, 8, 6)
        self.block = R2Plus1D(8, 8, 6)
        self.pool = nn.AdaptiveAvgPool3d(1)
        self.fc = nn.Linear(8, n_cls)

    def forward(self, clip):
        h = F.relu(self.stem(clip))
        h = F.relu(h + self.block(h))
        h = F.max_pool3d(h, kernel_size=(1, 2, 2))
        return self.fc(self.pool(h).flatten(1))


video = T(3, 6, 3, 8, 8).permute(0, 2, 1, 3, 4)  # (B, T, C, H, W) -> (B, C, T, H, W)
print("clip", video.shape, video.is_contiguous())
vnet = det(VideoNet())
y = torch.tensor([0, 3, 1])
opt = torch.optim.AdamW(vnet.parameters(), lr=0.01, weight_decay=0.01)
for step in range(5):
    logits = vnet(video)
    loss = F.cross_entropy(logits, y, label_smoothing=0.1)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"video step {step} loss {loss.item():.4f}")
vnet.eval()
with torch.no_grad():
    probs = vnet(video).softmax(-1)
print("video probs", r(probs, 12), probs.argmax(-1).tolist())

theta = torch.tensor([[[0.9, -0.1, 0.0, 0.1], [0.1, 0.9, 0.0, 0.0], [0.0, 0.0, 1.0, -0.2]]]).repeat(2, 1, 1)
grid = F.affine_grid(theta, (2, 1, 6, 6, 6), align_corners=False)
print("affine_grid 3d", grid.shape, r(grid[0, 1, 2, 3]))
vol6 = F.adaptive_avg_pool3d(vol, 6)
for mode in ["bilinear", "nearest"]:
    for pm in ["zeros", "border", "reflection"]:
        s = F.grid_sample(vol6, grid, mode=mode, padding_mode=pm, align_corners=False)
        print("grid_sample", mode, pm, r(s[1, 0, 2, 2, :4]))
g2 = F.affine_grid(theta[:1], (1, 1, 4, 5, 6), align_corners=True)
print("align_corners grid", g2.shape, r(g2[0, -1, -1, -1]))
vol6.requires_grad_(True)
F.grid_sample(vol6, grid, align_corners=False).pow(2).sum().backward()
print("grid_sample grad", r(vol6.grad[0, 0, 2, 2]))
try:
    F.affine_grid(theta, (2, 1, 6, 6), align_corners=False)
except (RuntimeError, ValueError) as e:
    print(type(e).__name__, str(e)[:90])
try:
    nn.Conv3d(2, 4, 3)(vol)
except RuntimeError as e:
    print("RuntimeError", str(e)[:120])
