"""Sub-pixel convolution as SR codebases write it: ESPCN/EDSR upsamplers with nn.PixelShuffle, ICNR init,
pixel_unshuffle space-to-depth on batched, unbatched and 5-D inputs, non-contiguous and integer inputs, gradients,
module reprs, and the errors PyTorch raises for channel counts that do not divide."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

x = torch.arange(2 * 8 * 3 * 3, dtype=torch.float32).reshape(2, 8, 3, 3)
y = F.pixel_shuffle(x, 2)
print("shuffle", tuple(y.shape), y.dtype, y[0, 0, :2, :4].tolist())
print("unshuffle roundtrip", torch.equal(F.pixel_unshuffle(y, 2), x))
print("unbatched", tuple(F.pixel_shuffle(x[0], 2).shape), tuple(F.pixel_unshuffle(y[0], 3 // 3 * 2).shape))
print("5d", tuple(F.pixel_shuffle(x.reshape(1, 2, 8, 3, 3), 2).shape))
print("int", F.pixel_shuffle(torch.arange(16).reshape(1, 4, 2, 2), 2).tolist())
print("bool", F.pixel_unshuffle(torch.eye(4, dtype=torch.bool)[None], 2).dtype)
xt = x.transpose(2, 3)
print("noncontig", torch.equal(F.pixel_shuffle(xt, 2), F.pixel_shuffle(xt.contiguous(), 2)))
print("factor1", torch.equal(F.pixel_shuffle(x, 1), x))

ps = nn.PixelShuffle(3)
pu = nn.PixelUnshuffle(downscale_factor=2)
print(ps, pu, ps.upscale_factor, pu.downscale_factor)
print(repr(nn.Sequential(nn.Conv2d(3, 12, 3, padding=1), nn.PixelShuffle(2))))


def icnr_(w, scale=2):
    out_c, in_c, kh, kw = w.shape
    sub = torch.empty(out_c // scale**2, in_c, kh, kw)
    nn.init.kaiming_normal_(sub)
    sub = sub.repeat_interleave(scale**2, dim=0)
    with torch.no_grad():
        w.copy_(sub)
    return w


class Upsampler(nn.Sequential):
    def __init__(self, scale, n_feat):
        m = []
        if scale & (scale - 1) == 0:
            for _ in range(int(torch.log2(torch.tensor(float(scale))).item())):
                m.append(nn.Conv2d(n_feat, 4 * n_feat, 3, padding=1))
                m.append(nn.PixelShuffle(2))
        elif scale == 3:
            m.append(nn.Conv2d(n_feat, 9 * n_feat, 3, padding=1))
            m.append(nn.PixelShuffle(3))
        else:
            raise NotImplementedError(f"scale {scale}")
        super().__init__(*m)


for s in (2, 3, 4):
    up = Upsampler(s, 4)
    for mod in up:
        if isinstance(mod, nn.Conv2d):
            icnr_(mod.weight, 2 if s != 3 else 3)
            nn.init.zeros_(mod.bias)
    inp = torch.randn(1, 4, 5, 5)
    out = up(inp)
    # ICNR makes every sub-pixel of a block equal right after init
    blk = out[0, :, 0:s, 0:s].reshape(4, -1)
    print(
        "scale",
        s,
        tuple(out.shape),
        "icnr-spread",
        round((blk.max(1).values - blk.min(1).values).abs().max().item(), 4) if s < 4 else "-",
    )
try:
    Upsampler(5, 4)
except NotImplementedError as e:
    print("NotImplementedError", e)

g = torch.randn(1, 8, 2, 2, requires_grad=True)
o = F.pixel_shuffle(g, 2)
print(o.grad_fn.name() if hasattr(o.grad_fn, "name") else type(o.grad_fn).__name__)
(o * torch.arange(32.0).reshape(1, 2, 4, 4)).sum().backward()
print("grad", g.grad[0, :, 0, 0].tolist())
u = F.pixel_unshuffle(g, 2)
print(type(u.grad_fn).__name__, tuple(u.shape))

for bad in [
    lambda: F.pixel_shuffle(torch.randn(1, 6, 2, 2), 2),
    lambda: F.pixel_unshuffle(torch.randn(1, 1, 3, 4), 2),
    lambda: F.pixel_unshuffle(torch.randn(1, 1, 4, 3), 2),
    lambda: F.pixel_shuffle(torch.randn(4, 2), 2),
    lambda: F.pixel_shuffle(torch.randn(1, 4, 2, 2), 0),
    lambda: F.pixel_unshuffle(torch.randn(1, 4, 2, 2), -1),
]:
    try:
        bad()
        print("no error")
    except Exception as e:
        print(type(e).__name__, e)

# the space-to-depth "SpaceToDepth" layer of TResNet vs pixel_unshuffle
z = torch.randn(2, 3, 4, 4)
b, c, h, w = z.shape
s2d = z.view(b, c, h // 2, 2, w // 2, 2).permute(0, 3, 5, 1, 2, 4).reshape(b, c * 4, h // 2, w // 2)
pu2 = F.pixel_unshuffle(z, 2)
print("s2d channel order equal", torch.equal(s2d, pu2))
perm = torch.arange(12).view(4, 3).t().reshape(-1)
print("s2d after perm", torch.equal(s2d[:, perm], pu2))
print("sum", round(pu2.sum().item(), 4), pu2.is_contiguous())
