"""A small 3-D U-Net as nnU-Net/MONAI write it: Conv3d + InstanceNorm3d + LeakyReLU stages, strided-conv
downsampling, ConvTranspose3d upsampling with skip concatenation, a Dice+CE training step with SGD/nesterov."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class ConvNormAct(nn.Sequential):
    def __init__(self, cin, cout, stride=1):
        super().__init__(
            nn.Conv3d(cin, cout, kernel_size=3, stride=stride, padding=1, bias=True),
            nn.InstanceNorm3d(cout, eps=1e-5, affine=True),
            nn.LeakyReLU(negative_slope=0.01, inplace=True),
        )


class UNet3D(nn.Module):
    def __init__(self, cin=1, ncls=3, feats=(4, 8, 16)):
        super().__init__()
        self.enc = nn.ModuleList()
        c = cin
        for i, f in enumerate(feats):
            self.enc.append(nn.Sequential(ConvNormAct(c, f, stride=1 if i == 0 else 2), ConvNormAct(f, f)))
            c = f
        self.up = nn.ModuleList()
        self.dec = nn.ModuleList()
        for f_hi, f_lo in zip(feats[::-1][:-1], feats[::-1][1:]):
            self.up.append(nn.ConvTranspose3d(f_hi, f_lo, kernel_size=2, stride=2, bias=False))
            self.dec.append(nn.Sequential(ConvNormAct(2 * f_lo, f_lo), ConvNormAct(f_lo, f_lo)))
        self.head = nn.Conv3d(feats[0], ncls, kernel_size=1)

    def forward(self, x):
        skips = []
        for stage in self.enc:
            x = stage(x)
            skips.append(x)
        x = skips.pop()
        for up, dec in zip(self.up, self.dec):
            x = up(x)
            x = dec(torch.cat([x, skips.pop()], dim=1))
        return self.head(x)


def init_weights(m):
    if isinstance(m, (nn.Conv3d, nn.ConvTranspose3d)):
        nn.init.kaiming_normal_(m.weight, a=0.01)
        if m.bias is not None:
            nn.init.constant_(m.bias, 0)


net = UNet3D()
net.apply(init_weights)
print(net.enc[1])
print(net.up[0])
print(
    "params",
    sum(p.numel() for p in net.parameters()),
    "trainable",
    sum(p.numel() for p in net.parameters() if p.requires_grad),
)
print("shapes", [tuple(p.shape) for n, p in net.named_parameters() if "up" in n])

g = torch.Generator().manual_seed(1)
img = torch.randn(2, 1, 16, 16, 16, generator=g)
zz, yy, xx = torch.meshgrid(torch.arange(16.0), torch.arange(16.0), torch.arange(16.0), indexing="ij")
sphere = ((zz - 8) ** 2 + (yy - 8) ** 2 + (xx - 8) ** 2) < 25
core = ((zz - 8) ** 2 + (yy - 8) ** 2 + (xx - 8) ** 2) < 9
lab = sphere.long() + core.long()
lab = torch.stack([lab, lab.flip(0)])
img = img + lab.unsqueeze(1).float()
print("label counts", torch.bincount(lab.flatten(), minlength=3).tolist())


def dice_ce(logits, target, smooth=1e-5):
    ce = F.cross_entropy(logits, target)
    probs = logits.softmax(1)
    oh = F.one_hot(target, logits.shape[1]).permute(0, 4, 1, 2, 3).to(probs.dtype)
    dims = (0, 2, 3, 4)
    inter = (probs * oh).sum(dims)
    denom = probs.sum(dims) + oh.sum(dims)
    dice = (2 * inter + smooth) / (denom + smooth)
    return ce + (1 - dice[1:].mean()), dice


out = net(img)
print("out", tuple(out.shape), out.dtype, out.grad_fn.name())
opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.99, nesterov=True, weight_decay=3e-5)
losses = []
for step in range(4):
    opt.zero_grad(set_to_none=True)
    loss, dice = dice_ce(net(img), lab)
    loss.backward()
    gn = nn.utils.clip_grad_norm_(net.parameters(), max_norm=12)
    opt.step()
    losses.append(round(loss.item(), 4))
print("losses decrease", losses[-1] < losses[0], "finite", all(l == l for l in losses))
print("loss grad_fn", loss.grad_fn.name(), "dice shape", tuple(dice.shape))

net.eval()
with torch.inference_mode():
    pred = net(img).argmax(1)
print("pred", tuple(pred.shape), pred.dtype, pred.min().item() >= 0, pred.max().item() <= 2)
print("inference tensor", torch.is_inference(pred), pred.requires_grad)

try:
    net(torch.randn(1, 2, 16, 16, 16))
except Exception as e:
    print(type(e).__name__, e)
try:
    net(torch.randn(1, 16, 16, 16))
except Exception as e:
    print(type(e).__name__, str(e)[:120])
try:
    nn.InstanceNorm3d(4)(torch.randn(2, 4, 8, 8))
except Exception as e:
    print(type(e).__name__, e)
tc = nn.ConvTranspose3d(8, 4, 2, stride=2)
print("tconv output_size", tuple(tc(torch.randn(1, 8, 3, 3, 3), output_size=[7, 7, 6]).shape))
try:
    tc(torch.randn(1, 8, 3, 3, 3), output_size=[9, 9, 9])
except Exception as e:
    print(type(e).__name__, e)
