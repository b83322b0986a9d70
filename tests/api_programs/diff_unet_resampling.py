"""Up- and down-sampling blocks of diffusion UNets: ConvTranspose2d with output_padding and forward's output_size,
nearest/nearest-exact/bilinear interpolate with align_corners and scale_factor vs size, FIR-free blur pooling,
pixel (un)shuffle resamplers, strided conv vs avg_pool downsampling, skip concatenation with odd sizes padded by
F.pad, GroupNorm's affine=False and eps, and the errors these layers raise for wrong shapes."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def r(t, n=6):
    return [round(v, 4) for v in t.detach().double().flatten()[:n].tolist()]


def s(t):
    return round(t.detach().double().sum().item(), 4)


class Upsample(nn.Module):
    def __init__(self, ch, use_conv=True, mode="nearest"):
        super().__init__()
        self.mode = mode
        self.conv = nn.Conv2d(ch, ch, 3, padding=1, padding_mode="zeros") if use_conv else nn.Identity()

    def forward(self, x, output_size=None):
        if output_size is None:
            x = F.interpolate(x, scale_factor=2.0, mode=self.mode)
        else:
            x = F.interpolate(x, size=output_size, mode=self.mode)
        return self.conv(x)


class Downsample(nn.Module):
    def __init__(self, ch, use_conv=True):
        super().__init__()
        self.op = nn.Conv2d(ch, ch, 3, stride=2, padding=1) if use_conv else nn.AvgPool2d(2, stride=2)

    def forward(self, x):
        return self.op(x)


x = torch.randn(2, 4, 7, 5)
for mode in ["nearest", "nearest-exact", "bilinear", "bicubic"]:
    kw = {"align_corners": False} if mode in ("bilinear", "bicubic") else {}
    y = F.interpolate(x, scale_factor=2, mode=mode, **kw)
    z = F.interpolate(x, size=(10, 9), mode=mode, **kw)
    print(mode, tuple(y.shape), s(y), tuple(z.shape), s(z), r(z[0, 0, 1]))
ya = F.interpolate(x, size=(13, 9), mode="bilinear", align_corners=True)
print("align_corners:", tuple(ya.shape), s(ya), torch.allclose(ya[..., 0, 0], x[..., 0, 0]))
yr = F.interpolate(x, scale_factor=1.5, mode="bilinear", recompute_scale_factor=True)
print("recompute:", tuple(yr.shape), s(yr))
print(
    "nn.Upsample:",
    nn.Upsample(scale_factor=2, mode="nearest"),
    nn.Upsample(size=(4, 4), mode="bilinear", align_corners=False),
)

up, dn = Upsample(4), Downsample(4)
h = dn(x)
print("down:", tuple(h.shape), tuple(Downsample(4, False)(x).shape))
print("up back:", tuple(up(h, output_size=x.shape[-2:]).shape), tuple(up(h).shape))

ct = nn.ConvTranspose2d(4, 3, kernel_size=3, stride=2, padding=1, output_padding=1)
print(ct, tuple(ct.weight.shape))
print("convT:", tuple(ct(h).shape), tuple(ct(h, output_size=[7, 5]).shape), tuple(ct(h, output_size=(8, 6)).shape))
try:
    ct(h, output_size=(12, 12))
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.ConvTranspose2d(4, 3, 3, stride=2, output_padding=2)(h)
except Exception as e:
    print(type(e).__name__, e)

ps, pu = nn.PixelShuffle(2), nn.PixelUnshuffle(2)
q = torch.arange(2 * 8 * 2 * 3, dtype=torch.float32).view(2, 8, 2, 3)
print("shuffle:", tuple(ps(q).shape), r(ps(q)[0, 0, 0]), torch.equal(pu(ps(q)), q), ps, pu)
try:
    pu(torch.randn(1, 2, 5, 4))
except Exception as e:
    print(type(e).__name__, e)

# skip connection with an odd size: pad the upsampled map to the encoder map
enc = torch.randn(2, 4, 7, 5)
dec = F.interpolate(dn(enc), scale_factor=2, mode="nearest")
dy, dx = enc.size(2) - dec.size(2), enc.size(3) - dec.size(3)
print("size diff:", dy, dx)
dec = F.pad(dec, [dx // 2, dx - dx // 2, dy // 2, dy - dy // 2])
cat = torch.cat([enc, dec], dim=1)
print("cat:", tuple(cat.shape), cat.grad_fn.name())
try:
    torch.cat([enc, dec[..., :-1, :]], dim=1)
except Exception as e:
    print(type(e).__name__, e)

gn = nn.GroupNorm(2, 8, eps=1e-6, affine=False)
print(gn, list(gn.state_dict()), s(gn(cat)), r(gn(cat).var(dim=(2, 3), unbiased=False)[0], 4))
gna = nn.GroupNorm(4, 8)
print(gna, r(gna(cat)[1, 7]), "mean of group:", round(gna(cat)[0, :2].mean().item(), 4))
try:
    nn.GroupNorm(3, 8)
except Exception as e:
    print(type(e).__name__, e)
try:
    gna(torch.randn(2, 6, 4, 4))
except Exception as e:
    print(type(e).__name__, e)
try:
    F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True, size=(4, 4))
except Exception as e:
    print(type(e).__name__, e)
try:
    F.interpolate(x, scale_factor=2, mode="nearest", align_corners=True)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.interpolate(x[0, 0], scale_factor=2, mode="bilinear")
except Exception as e:
    print(type(e).__name__, e)

# gradient through the whole resampling path
inp = x.clone().requires_grad_()
loss = ct(dn(inp)).pow(2).mean() + up(dn(inp), output_size=(7, 5)).abs().mean()
loss.backward()
print("grad:", tuple(inp.grad.shape), round(inp.grad.norm().item(), 4), round(loss.item(), 4))
