"""U-Net two ways: the milesial Pytorch-UNet (DoubleConv, Down, Up with bilinear nn.Upsample or ConvTranspose2d and
F.pad for odd sizes, OutConv) and the 2015 paper's valid-convolution U-Net with center-cropped skips; odd input
sizes, per-stage shapes through hooks, dice and BCE losses with pos_weight, parameter counts of both up modes,
use_checkpointing on the encoder, and a state_dict round trip between the two up-sampling heads."""

import io

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(15)


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


class DoubleConv(nn.Module):
    def __init__(self, in_channels, out_channels, mid_channels=None):
        super().__init__()
        if not mid_channels:
            mid_channels = out_channels
        self.double_conv = nn.Sequential(
            nn.Conv2d(in_channels, mid_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(mid_channels), nn.ReLU(inplace=True),
            nn.Conv2d(mid_channels, out_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(out_channels), nn.ReLU(inplace=True),
        )

    def forward(self, x):
        return self.double_conv(x)


class Down(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.maxpool_conv = nn.Sequential(nn.MaxPool2d(2), DoubleConv(in_channels, out_channels))

    def forward(self, x):
        return self.maxpool_conv(x)


class Up(nn.Module):
    def __init__(self, in_channels, out_channels, bilinear=True):
        super().__init__()
        if bilinear:
            self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
            self.conv = DoubleConv(in_channels, out_channels, in_channels // 2)
        else:
            self.up = nn.ConvTranspose2d(in_channels, in_channels // 2, kernel_size=2, stride=2)
            self.conv = DoubleConv(in_channels, out_channels)

    def forward(self, x1, x2):
        x1 = self.up(x1)
        diffY = x2.size()[2] - x1.size()[2]
        diffX = x2.size()[3] - x1.size()[3]
        x1 = F.pad(x1, [diffX // 2, diffX - diffX // 2, diffY // 2, diffY - diffY // 2])
        return self.conv(torch.cat([x2, x1], dim=1))


class UNet(nn.Module):
    def __init__(self, n_channels, n_classes, bilinear=False, w=4):
        super().__init__()
        self.n_channels, self.n_classes, self.bilinear = n_channels, n_classes, bilinear
        factor = 2 if bilinear else 1
        self.inc = DoubleConv(n_channels, w)
        self.down1 = Down(w, 2 * w)
        self.down2 = Down(2 * w, 4 * w)
        self.down3 = Down(4 * w, 8 * w // factor)
        self.up1 = Up(8 * w, 4 * w // factor, bilinear)
        self.up2 = Up(4 * w, 2 * w // factor, bilinear)
        self.up3 = Up(2 * w, w, bilinear)
        self.outc = nn.Conv2d(w, n_classes, kernel_size=1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        x4 = self.down3(x3)
        x = self.up1(x4, x3)
        x = self.up2(x, x2)
        x = self.up3(x, x1)
        return self.outc(x)

    def use_checkpointing(self):
        for name in ("down1", "down2", "down3"):
            mod = getattr(self, name)
            mod.forward = (lambda m: lambda x: torch.utils.checkpoint.checkpoint(
                m.maxpool_conv, x, use_reentrant=False))(mod)


def fill_(model):
    with torch.no_grad():
        for p in model.parameters():
            std = (2.0 / p[0].numel()) ** 0.5 if p.dim() > 1 else 0.1
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * std))
    return model


def dice_coeff(input, target, reduce_batch_first=False, epsilon=1e-6):
    assert input.size() == target.size()
    assert input.dim() == 3 or not reduce_batch_first
    sum_dim = (-1, -2) if input.dim() == 2 or not reduce_batch_first else (-1, -2, -3)
    inter = 2 * (input * target).sum(dim=sum_dim)
    sets_sum = input.sum(dim=sum_dim) + target.sum(dim=sum_dim)
    sets_sum = torch.where(sets_sum == 0, inter, sets_sum)
    dice = (inter + epsilon) / (sets_sum + epsilon)
    return dice.mean()


def multiclass_dice_coeff(input, target, reduce_batch_first=False, epsilon=1e-6):
    return dice_coeff(input.flatten(0, 1), target.flatten(0, 1), reduce_batch_first, epsilon)


for bilinear in (False, True):
    net = fill_(UNet(3, 2, bilinear=bilinear))
    print("bilinear" if bilinear else "transpose", "params", sum(p.numel() for p in net.parameters()), net.up1.up)
    shapes = {}
    hooks = [getattr(net, n).register_forward_hook(lambda m, i, o, n=n: shapes.__setitem__(n, tuple(o.shape)))
             for n in ("inc", "down1", "down2", "down3", "up1", "up2", "up3", "outc")]
    x = torch.from_numpy(rng.standard_normal((2, 3, 27, 21)).astype(np.float32))
    net.eval()
    with torch.no_grad():
        logits = net(x)
    for h in hooks:
        h.remove()
    print(" shapes", shapes)
    print(" logits", tuple(logits.shape), r(logits, 4))
    mask = torch.from_numpy(rng.integers(0, 2, (2, 27, 21))).long()
    probs = F.softmax(logits, dim=1).float()
    onehot = F.one_hot(mask, net.n_classes).permute(0, 3, 1, 2).float()
    dice = multiclass_dice_coeff(probs, onehot, reduce_batch_first=True)
    ce = F.cross_entropy(logits, mask)
    print(f" dice {dice.item():.4f} ce {ce.item():.4f} loss {ce.item() + 1 - dice.item():.4f}")
    pred = logits.argmax(dim=1)
    print(" pred counts", torch.bincount(pred.flatten(), minlength=2).tolist(), pred.dtype)

net = fill_(UNet(3, 1, bilinear=False))
net.train()
x = torch.from_numpy(rng.standard_normal((2, 3, 16, 16)).astype(np.float32))
target = torch.from_numpy((rng.uniform(size=(2, 1, 16, 16)) > 0.7).astype(np.float32))
crit = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0]))
print(crit, "pos_weight", crit.pos_weight)
plain_loss = crit(net(x), target)
plain_loss.backward()
g_plain = net.down2.maxpool_conv[1].double_conv[0].weight.grad.clone()
net.zero_grad()
sd = net.state_dict()
ck = fill_(UNet(3, 1, bilinear=False))
ck.load_state_dict(sd)
ck.train()
ck.use_checkpointing()
ck_loss = crit(ck(x), target)
ck_loss.backward()
print("checkpointed loss equal", abs(ck_loss.item() - plain_loss.item()) < 1e-5, round(plain_loss.item(), 4))
print("checkpointed grads equal", torch.allclose(g_plain, ck.down2.maxpool_conv[1].double_conv[0].weight.grad,
                                                  atol=1e-5))
sig = torch.sigmoid(net(x))
print(f"mask >0.5 frac {(sig > 0.5).float().mean().item():.4f}", "dice", round(dice_coeff(
    (sig > 0.5).float()[:, 0], target[:, 0], reduce_batch_first=True).item(), 4))

buf = io.BytesIO()
torch.save(net.state_dict(), buf)
buf.seek(0)
bil = UNet(3, 1, bilinear=True)
try:
    bil.load_state_dict(torch.load(buf), strict=False)
except RuntimeError as e:
    lines = str(e).splitlines()
    print("non-strict still checks sizes:", lines[0], "|", len(lines) - 1, "mismatches |", lines[1].strip()[:70])
buf.seek(0)
ckpt = torch.load(buf, weights_only=True)
own = bil.state_dict()
compatible = {k: v for k, v in ckpt.items() if k in own and v.shape == own[k].shape}
res = bil.load_state_dict(compatible, strict=False)
print("compatible", len(compatible), "of", len(ckpt), "missing", len(res.missing_keys), res.missing_keys[:2])
print("unexpected", res.unexpected_keys, "up1 keys", [k for k in ckpt if k.startswith("up1.up")])


class UNet2015(nn.Module):
    """The paper's U-Net: unpadded 3x3 convolutions, skips center-cropped to the decoder's size."""

    def __init__(self, c=(4, 8, 16)):
        super().__init__()
        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3), nn.ReLU(inplace=True), nn.Conv2d(o, o, 3), nn.ReLU(inplace=True))
        self.enc = nn.ModuleList([block(1, c[0]), block(c[0], c[1])])
        self.mid = block(c[1], c[2])
        self.ups = nn.ModuleList([nn.ConvTranspose2d(c[2], c[1], 2, 2), nn.ConvTranspose2d(c[1], c[0], 2, 2)])
        self.dec = nn.ModuleList([block(c[2], c[1]), block(c[1], c[0])])
        self.out = nn.Conv2d(c[0], 2, 1)

    @staticmethod
    def crop(t, like):
        dh, dw = (t.shape[2] - like.shape[2]) // 2, (t.shape[3] - like.shape[3]) // 2
        return t[:, :, dh:dh + like.shape[2], dw:dw + like.shape[3]]

    def forward(self, x):
        skips = []
        for blk in self.enc:
            x = blk(x)
            skips.append(x)
            x = F.max_pool2d(x, 2)
        x = self.mid(x)
        for up, dec, skip in zip(self.ups, self.dec, reversed(skips)):
            x = up(x)
            x = dec(torch.cat([self.crop(skip, x), x], 1))
        return self.out(x)


u = fill_(UNet2015())
inp = torch.from_numpy(rng.standard_normal((1, 1, 44, 44)).astype(np.float32))
with torch.no_grad():
    o = u(inp)
print("2015 output", tuple(o.shape), "from", tuple(inp.shape), r(o, 3))
print("crop", tuple(UNet2015.crop(torch.zeros(1, 1, 9, 9), torch.zeros(1, 1, 4, 4)).shape))
print("valid output size", [s for s in range(40, 50) if ((((s - 4) // 2 - 4) // 2 - 4) * 2 - 4) * 2 - 4 > 0
                            and ((s - 4) % 2 == 0) and (((s - 4) // 2 - 4) % 2 == 0)])
