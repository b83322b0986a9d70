"""Sliding-window inference as segmentation toolkits write it: reflect padding to a multiple of the stride,
F.unfold into overlapping tiles, a model run on the tile batch, F.fold with a count map for overlap averaging
(uniform and Gaussian importance), and flip/scale test-time augmentation with softmax averaging."""

import math

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
C = 3


def r(t):
    return round(float(t), 4)


model = nn.Sequential(nn.Conv2d(2, 8, 3, padding=1, padding_mode="reflect"), nn.ReLU(), nn.Conv2d(8, C, 1)).eval()
img = torch.randn(1, 2, 13, 17)


def sliding(img, tile=8, stride=5, weight=None):
    n, c, h, w = img.shape
    ph = (math.ceil(max(h - tile, 0) / stride) * stride + tile) - h
    pw = (math.ceil(max(w - tile, 0) / stride) * stride + tile) - w
    x = F.pad(img, (0, pw, 0, ph), mode="reflect")
    H, W = x.shape[-2:]
    cols = F.unfold(x, kernel_size=tile, stride=stride)
    L = cols.shape[-1]
    tiles = cols.transpose(1, 2).reshape(n * L, c, tile, tile)
    with torch.no_grad():
        out = model(tiles)
    if weight is None:
        weight = torch.ones(tile, tile)
    out = out * weight
    out_cols = out.reshape(n, L, C * tile * tile).transpose(1, 2)
    summed = F.fold(out_cols, output_size=(H, W), kernel_size=tile, stride=stride)
    wcols = weight.reshape(1, tile * tile, 1).expand(n, tile * tile, L)
    count = F.fold(wcols, output_size=(H, W), kernel_size=tile, stride=stride)
    return (summed / count)[..., :h, :w], count, L


full = model(img).detach()
avg, count, L = sliding(img)
print("tiles", L, "count map", count.shape, count[0, 0, :, 0].tolist())
print("max diff vs full", avg.shape, (avg - full).abs().max().item() < 1.5)
print("center agree", r((avg[..., 2:-2, 2:-2].argmax(1) == full[..., 2:-2, 2:-2].argmax(1)).float().mean()))
sig = 0.125 * 8
ax = torch.arange(8) - 3.5
g1 = torch.exp(-(ax**2) / (2 * sig**2))
gauss = torch.outer(g1, g1)
gauss = (gauss / gauss.max()).clamp_min(1e-3)
avg_g, count_g, _ = sliding(img, weight=gauss)
print("gauss count", count_g[0, 0, 4, :6].round(decimals=4).tolist(), r(avg_g.sum()))
print(
    "no overlap equals full",
    torch.allclose(sliding(F.pad(img, (0, 3, 0, 3)), tile=4, stride=4)[0][..., :13, :17].sum(), torch.tensor(0.0))
    is False,
)

cols = F.unfold(torch.arange(16.0).reshape(1, 1, 4, 4), kernel_size=(2, 3), dilation=1, padding=1, stride=(2, 1))
print("unfold", cols.shape, cols[0, :, 0].tolist())
back = F.fold(cols, (4, 4), kernel_size=(2, 3), padding=1, stride=(2, 1))
print("fold", back[0, 0].tolist())
uf = nn.Unfold(kernel_size=2, dilation=2, stride=1)
fo = nn.Fold(output_size=(5, 5), kernel_size=2, dilation=2)
t = torch.ones(2, 3, 5, 5)
print(uf, fo, uf(t).shape, fo(uf(t))[0, 0].tolist())
print("unbatched fold", F.fold(torch.ones(4, 9), (4, 4), 2).shape)


def tta(x):
    probs = []
    with torch.no_grad():
        for flip in [None, (-1,), (-2,), (-2, -1)]:
            xi = x if flip is None else torch.flip(x, flip)
            p = model(xi).softmax(1)
            probs.append(p if flip is None else p.flip(flip))
        for s in (0.75, 1.25):
            xs = F.interpolate(x, scale_factor=s, mode="bilinear", align_corners=False, recompute_scale_factor=True)
            p = model(xs).softmax(1)
            probs.append(F.interpolate(p, size=x.shape[-2:], mode="bilinear", align_corners=False))
    return torch.stack(probs).mean(0)


p = tta(img)
print("tta", p.shape, r(p.sum()), r(p.max()), p.argmax(1).flatten().bincount(minlength=C).tolist())
print("rot90 back", torch.equal(torch.rot90(torch.rot90(img, 1, (2, 3)), -1, (2, 3)), img))
print("fliplr/flipud", torch.fliplr(img[0, 0])[0, :3].round(decimals=4).tolist(), torch.flipud(img[0, 0]).shape)

for bad in [
    lambda: F.fold(torch.ones(1, 10, 9), (4, 4), 2),
    lambda: F.fold(torch.ones(1, 4, 8), (4, 4), 2),
    lambda: F.unfold(torch.ones(3, 4, 4), 5),
    lambda: F.unfold(torch.zeros(1, 1, 4, 4, dtype=torch.long), 2),
    lambda: F.fold(torch.zeros(1, 4, 9, dtype=torch.uint8), (4, 4), 2),
    lambda: F.pad(img, (0, 20, 0, 0), mode="reflect"),
    lambda: F.pad(img[0, 0], (1, 1), mode="reflect").shape,
    lambda: torch.flip(img, (4,)),
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
