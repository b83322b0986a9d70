"""3-D augmentation for patch-based training: seeded random crops with padding when the volume is smaller than the
patch, flips over several spatial dims, rot90 in chosen planes with the matching label transform, intensity
jitter (gamma, brightness, Gaussian noise), and the errors of flip/rot90/roll misuse."""

import torch
import torch.nn.functional as F

g = torch.Generator().manual_seed(0)
img = torch.arange(2 * 5 * 6 * 7, dtype=torch.float32).reshape(2, 5, 6, 7) / 100
lab = (img[0] > 1.5).long()
print("volume", tuple(img.shape), lab.sum().item())


def pad_to(x, size, mode="constant", value=0.0):
    need = [max(s - d, 0) for s, d in zip(size, x.shape[-3:])]
    pads = []
    for n in reversed(need):
        pads += [n // 2, n - n // 2]
    if not any(pads):
        return x
    if mode == "constant":
        return F.pad(x, pads, mode="constant", value=value)
    return F.pad(x.unsqueeze(0), pads, mode=mode).squeeze(0)


def rand_crop(x, y, size, gen):
    x = pad_to(x, size, "constant", -1.0)
    y = pad_to(y, size)
    starts = [int(torch.randint(0, d - s + 1, (1,), generator=gen)) for d, s in zip(x.shape[-3:], size)]
    sl = tuple(slice(s, s + k) for s, k in zip(starts, size))
    return x[(Ellipsis, *sl)], y[sl], starts


for size in [(4, 4, 4), (6, 8, 7)]:
    xc, yc, st = rand_crop(img, lab, size, g)
    print(
        "crop",
        size,
        tuple(xc.shape),
        tuple(yc.shape),
        st,
        round(xc.sum().item(), 4),
        yc.sum().item(),
        (xc == -1).sum().item(),
    )
for mode in ("reflect", "replicate", "circular"):
    p = pad_to(img, (7, 8, 9), mode)
    print("pad", mode, tuple(p.shape), round(p.sum().item(), 2), p[0, 0, 0, :3].tolist())

v = torch.arange(24).reshape(1, 2, 3, 4)
print("flip (1,2)", torch.flip(v, dims=(1, 2))[0, 0].tolist())
print("flip [-1]", v.flip([-1])[0, 1, 0].tolist(), "flip all", v.flip(1, 2, 3)[0, 0, 0].tolist())
print("fliplr/flipud", torch.fliplr(v[0, 0]).tolist(), torch.flipud(v[0, 0]).tolist())
print("flip strides", v.flip(3).stride(), v.flip(3).is_contiguous())
for k in (1, 2, 3, -1, 4):
    r = torch.rot90(v, k, dims=(2, 3))
    print("rot90", k, tuple(r.shape), r[0, 0].flatten().tolist()[:6])
print("rot90 (1,3)", tuple(torch.rot90(v, 1, [1, 3]).shape), "(3,1)", torch.rot90(v, 1, [3, 1])[0, :, 0, 0].tolist())
print("rot90 method", torch.equal(v.rot90(2, (1, 2)), v.flip(1, 2)))

g.manual_seed(1)
batch = torch.stack([img, img * 2])
flips = torch.rand(2, 3, generator=g) < 0.5
out = []
for b in range(2):
    dims = [d + 1 for d in range(3) if flips[b, d]]
    out.append(batch[b].flip(dims) if dims else batch[b])
print("random flip dims", flips.tolist(), [round(o.sum().item(), 2) for o in out])
ks = torch.randint(0, 4, (2,), generator=g)
planes = [(1, 2), (2, 3)]
for b in range(2):
    r = torch.rot90(batch[b][:, :5, :5, :5], int(ks[b]), planes[b])
    print("rot", int(ks[b]), planes[b], tuple(r.shape), round(r[0, 0, 0, 0].item(), 4))

x = img.clone()
mn, rng = x.amin(), x.amax() - x.amin()
gamma = 0.7
xg = ((x - mn) / (rng + 1e-7)).pow(gamma) * rng + mn
print("gamma", round(xg.mean().item(), 4), round(xg.max().item(), 4))
bright = x * torch.empty(2, 1, 1, 1).uniform_(0.9, 1.1, generator=g)
print("brightness shape", tuple(bright.shape))
noise = torch.randn(x.shape, generator=g) * 0.1
print("noise stats", round(noise.std().item(), 2) < 0.2, torch.normal(0.0, 0.1, size=(3,), generator=g).shape)
contrast = (x - x.mean(dim=(1, 2, 3), keepdim=True)) * 1.2 + x.mean(dim=(1, 2, 3), keepdim=True)
print("contrast clip", round(contrast.clamp(x.amin().item(), x.amax().item()).sum().item(), 3))
print("roll", torch.roll(v, shifts=(1, -1), dims=(2, 3))[0, 0].tolist(), torch.roll(v, 2)[0, 0, 0].tolist())

for bad in [
    lambda: torch.flip(v, (1, 1)),
    lambda: torch.flip(v, (4,)),
    lambda: torch.rot90(v, 1, (1,)),
    lambda: torch.rot90(v, 1, (2, 2)),
    lambda: torch.rot90(v, 1, (1, 5)),
    lambda: torch.roll(v, (1, 2), (1,)),
    lambda: F.pad(img.unsqueeze(0), (7, 7, 0, 0, 0, 0), mode="reflect"),
    lambda: F.pad(img, (1, 1, 1, 1, 1, 1, 1, 1), mode="replicate"),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
