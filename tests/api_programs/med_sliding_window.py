"""Sliding-window inference over a volume larger than the patch (nnU-Net/MONAI style): step positions with overlap,
a Gaussian importance map, manual patch loops with accumulation and normalisation, test-time mirroring, padding
with reflect/replicate in 3-D, and the same tiling done by Tensor.unfold and by F.unfold/F.fold on 2-D slices."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def steps(image_size, patch, overlap=0.5):
    out = []
    for i, p in zip(image_size, patch):
        stride = max(int(p * (1 - overlap)), 1)
        n = math.ceil((i - p) / stride) + 1
        if n == 1:
            out.append([0])
            continue
        actual = (i - p) / (n - 1)
        out.append([int(round(actual * k)) for k in range(n)])
    return out


def gaussian_map(patch, sigma_scale=1 / 8, value_scale=1.0):
    coords = [torch.arange(p, dtype=torch.float32) - (p - 1) / 2 for p in patch]
    sig = [p * sigma_scale for p in patch]
    g = [torch.exp(-(c**2) / (2 * s**2)) for c, s in zip(coords, sig)]
    m = g[0][:, None, None] * g[1][None, :, None] * g[2][None, None, :]
    m = m / m.max() * value_scale
    m[m == 0] = m[m != 0].min()
    return m


net = nn.Sequential(nn.Conv3d(1, 4, 3, padding=1), nn.ReLU(), nn.Conv3d(4, 2, 1)).eval()
vol = torch.randn(1, 1, 10, 13, 11)
patch = (6, 8, 8)
st = steps(vol.shape[2:], patch, 0.5)
print("steps", st)
gm = gaussian_map(patch)
print("gaussian", tuple(gm.shape), round(gm.sum().item(), 4), round(gm.min().item(), 6), gm.argmax().item())

acc = torch.zeros(1, 2, *vol.shape[2:])
norm = torch.zeros(vol.shape[2:])
n_patches = 0
with torch.no_grad():
    for z in st[0]:
        for y in st[1]:
            for x in st[2]:
                sl = (slice(z, z + patch[0]), slice(y, y + patch[1]), slice(x, x + patch[2]))
                p = vol[(..., *sl)]
                pred = net(p).softmax(1)
                pred = pred + net(p.flip(-1)).softmax(1).flip(-1)
                pred = pred + net(p.flip(-2, -3)).softmax(1).flip((-2, -3))
                acc[(..., *sl)] += pred / 3 * gm
                norm[sl] += gm
                n_patches += 1
probs = acc / norm
print("patches", n_patches, "probs sum to 1", torch.allclose(probs.sum(1), torch.ones(()), atol=1e-5))
seg = probs.argmax(1)
print("seg", tuple(seg.shape), seg.sum().item(), round(probs[0, 1].mean().item(), 4))
with torch.no_grad():
    full = net(vol).softmax(1)
print("vs whole-volume", round((full - probs).abs().max().item(), 3) < 0.5)

small = torch.randn(1, 1, 4, 5, 6)
for mode in ("reflect", "replicate", "constant", "circular"):
    kw = {"value": -1.0} if mode == "constant" else {}
    pp = F.pad(small, (1, 2, 0, 3, 2, 2), mode=mode, **kw)
    print("pad3d", mode, tuple(pp.shape), round(pp.sum().item(), 3), round(pp[0, 0, 0, 0, 0].item(), 4))
print("pad negative crops", tuple(F.pad(small, (-1, -1, 0, 0, -1, 0)).shape))
rp = nn.ReplicationPad3d((1, 0, 2, 0, 0, 1))
print(
    rp,
    tuple(rp(small).shape),
    nn.ReflectionPad3d(1)(small).shape,
    nn.ConstantPad3d((1, 1, 0, 0, 0, 0), 3.5)(small)[0, 0, 0, 0, 0].item(),
)
print(nn.CircularPad3d(2), tuple(nn.CircularPad3d(2)(small).shape), nn.ZeroPad3d((1, 1, 1, 1, 0, 0))(small).shape)
x = small.clone().requires_grad_()
F.pad(x, (2, 2, 2, 2, 2, 2), mode="reflect").sum().backward()
print("reflect grad", x.grad.sum().item(), x.grad[0, 0, 0, 0].tolist())
x.grad = None
F.pad(x, (2, 0, 1, 0, 0, 3), mode="replicate").pow(2).sum().backward()
print("replicate grad", round(x.grad.sum().item(), 4), F.pad(x, (1,) * 6, mode="replicate").grad_fn.name())

tiles = vol[0, 0].unfold(0, 4, 3).unfold(1, 5, 4).unfold(2, 5, 3)
print("tensor.unfold tiles", tuple(tiles.shape), tiles.stride(), round(tiles.sum().item(), 3))
tile_flat = tiles.reshape(-1, 4, 5, 5)
print("tile 5 equals slice", torch.equal(tile_flat[5], vol[0, 0, 0:4, 4:9, 6:11]))
sl2d = vol[0, :, 3]
cols = F.unfold(sl2d.unsqueeze(0), kernel_size=(4, 4), stride=(3, 2), padding=1)
print("F.unfold", tuple(cols.shape))
ones = torch.ones_like(cols)
cover = F.fold(ones, output_size=sl2d.shape[-2:], kernel_size=(4, 4), stride=(3, 2), padding=1)
recon = F.fold(cols, output_size=sl2d.shape[-2:], kernel_size=(4, 4), stride=(3, 2), padding=1) / cover
print("fold round trip", torch.allclose(recon[0], sl2d, atol=1e-6), cover.min().item(), cover.max().item())
print(nn.Fold(output_size=(13, 11), kernel_size=4, stride=(3, 2), padding=1), nn.Unfold(kernel_size=(4, 4), dilation=1))

for bad in [
    lambda: F.pad(small, (1, 1, 1), mode="reflect"),
    lambda: F.pad(small, (1, 1), mode="bogus"),
    lambda: vol.unfold(2, 20, 1),
    lambda: F.fold(cols, output_size=(10, 10), kernel_size=(4, 4), stride=(3, 2)),
    lambda: F.unfold(vol, kernel_size=3),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
