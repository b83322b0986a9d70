"""Statistical downscaling of coarse climate fields: an ESPCN/EDSR-style generator with PixelShuffle and ICNR init,
static high-res covariates (orography) concatenated after interpolation, PixelUnshuffle encoders, losses and errors."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def icnr_(w, scale=2, init=nn.init.kaiming_normal_):
    out_c, in_c, kh, kw = w.shape
    sub = torch.empty(out_c // scale**2, in_c, kh, kw)
    init(sub)
    w.data.copy_(sub.repeat_interleave(scale**2, dim=0))
    return w


class ResBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(c, c, 3, padding=1), nn.ReLU(inplace=True), nn.Conv2d(c, c, 3, padding=1))

    def forward(self, x):
        return x + 0.1 * self.body(x)


class Downscaler(nn.Module):
    def __init__(self, cin=2, c=8, scale=4):
        super().__init__()
        self.head = nn.Conv2d(cin, c, 3, padding=1, padding_mode="replicate")
        self.body = nn.Sequential(*[ResBlock(c) for _ in range(2)])
        ups = []
        for _ in range(scale // 2):
            conv = nn.Conv2d(c, c * 4, 3, padding=1)
            icnr_(conv.weight)
            ups += [conv, nn.PixelShuffle(2), nn.PReLU(c)]
        self.up = nn.Sequential(*ups)
        self.fuse = nn.Conv2d(c + 1, cin, 3, padding=1)

    def forward(self, coarse, orog):
        h = self.body(self.head(coarse))
        h = self.up(h)
        return self.fuse(torch.cat([h, orog], dim=1)) + F.interpolate(
            coarse, scale_factor=4, mode="bicubic", align_corners=False
        )


torch.manual_seed(0)
torch.set_printoptions(precision=4)
model = Downscaler()
print(model.up)
print("params", sum(p.numel() for p in model.parameters()), model.up[2].weight.shape)
w = model.up[0].weight
print("icnr", torch.equal(w[0], w[3]), torch.equal(w[0], w[4]))
hr = torch.randn(2, 2, 16, 24)
lr = F.avg_pool2d(hr, 4)
orog = torch.rand(2, 1, 16, 24)
out = model(lr, orog)
print("out", out.shape, round(F.mse_loss(out, hr).item(), 4))
print("coarsened consistent", round((F.avg_pool2d(out, 4) - lr).abs().mean().item(), 4))
loss = F.l1_loss(out, hr) + 0.1 * F.mse_loss(F.avg_pool2d(out, 4), lr)
loss.backward()
print("grad prelu", model.up[2].weight.grad.shape, round(model.up[2].weight.grad.abs().sum().item(), 4))

ps, pu = nn.PixelShuffle(2), nn.PixelUnshuffle(2)
print(ps, pu, ps.upscale_factor, pu.downscale_factor)
z = torch.arange(32.0).view(1, 8, 2, 2)
print("shuffle", ps(z)[0, 0], torch.equal(pu(ps(z)), z))
print("unshuffle channels", pu(torch.arange(16.0).view(1, 1, 4, 4))[0, :, 0, 0])
print(
    "no batch", ps(torch.randn(8, 3, 3)).shape, ps(torch.randn(2, 3, 8, 1, 1)).shape, ps(torch.randn(0, 4, 1, 1)).shape
)
cl = torch.randn(1, 8, 3, 3).to(memory_format=torch.channels_last)
print("channels_last", ps(cl).stride(), ps(cl).is_contiguous(memory_format=torch.channels_last))
zg = z.clone().requires_grad_()
(ps(zg) * torch.arange(16.0).view(1, 2, 4, 2).repeat(1, 1, 1, 2)).sum().backward()
print("shuffle grad", zg.grad[0, :, 0, 0], ps(zg).grad_fn.name())
print("int", ps(torch.arange(8).view(1, 8, 1, 1)).dtype, ps(z.bfloat16()).dtype)

for mode, kw in (
    ("nearest", {}),
    ("bilinear", {"align_corners": False}),
    ("bicubic", {"align_corners": True}),
    ("area", {}),
    ("nearest-exact", {}),
):
    up = F.interpolate(lr, scale_factor=4, mode=mode, **kw)
    print("interp", mode, up.shape, round(F.mse_loss(up, hr).item(), 4))
aa = F.interpolate(hr, size=(4, 6), mode="bilinear", antialias=True, align_corners=False)
print("antialias down", aa.shape, round((aa - lr).abs().max().item(), 4))
print(nn.Upsample(scale_factor=4, mode="bicubic"), nn.Upsample(size=(16, 24), mode="nearest"))
for factor in (2.0, 3):
    try:
        F.pixel_shuffle(z, factor)
    except (TypeError, RuntimeError) as e:
        print(type(e).__name__, e)
try:
    F.pixel_unshuffle(torch.randn(1, 1, 5, 4), 2)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    F.pixel_shuffle(torch.randn(4, 4), 2)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    model(lr, orog[..., :-1])
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    F.interpolate(lr, scale_factor=4, mode="bilinear", align_corners=True, antialias=True).shape
    F.interpolate(lr, scale_factor=4, mode="nearest", align_corners=True)
except ValueError as e:
    print(type(e).__name__, e)
