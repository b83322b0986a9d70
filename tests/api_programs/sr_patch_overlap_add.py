"""Patch-based restoration: F.unfold/F.fold with stride, padding and dilation (BM3D-style patch stacks,
non-local patch matching, overlap-add reconstruction normalised by fold(ones)), tiled inference with overlap
blending, nn.Unfold/nn.Fold reprs, unbatched fold inputs, gradients, and fold/unfold's argument errors."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
img = torch.linspace(0, 1, 2 * 3 * 10 * 12).reshape(2, 3, 10, 12).sin()

for k, s, p, d in [(3, 1, 0, 1), (4, 2, 1, 1), ((3, 5), (2, 3), (1, 2), 1), (3, 1, 2, 2), (2, 2, 0, 1)]:
    cols = F.unfold(img, kernel_size=k, stride=s, padding=p, dilation=d)
    back = F.fold(cols, output_size=(10, 12), kernel_size=k, stride=s, padding=p, dilation=d)
    norm = F.fold(torch.ones_like(cols), output_size=(10, 12), kernel_size=k, stride=s, padding=p, dilation=d)
    rec = back / norm.clamp_min(1)
    print(
        k,
        s,
        p,
        d,
        tuple(cols.shape),
        round(cols.sum().item(), 4),
        "norm range",
        norm.min().item(),
        norm.max().item(),
        "exact",
        torch.allclose(rec * (norm > 0), img * (norm > 0), atol=1e-5),
    )

# non-local patch matching: top-k most similar 5x5 patches per reference patch
gray = img[:1, :1]
patches = F.unfold(gray, 5, stride=1).squeeze(0).t()  # (L, 25)
ref = patches[::7]
dist = torch.cdist(ref, patches)
vals, idx = dist.topk(4, dim=1, largest=False)
print(
    "nl",
    tuple(patches.shape),
    tuple(idx.shape),
    vals[:, 0].abs().max().item() < 1e-3,
    round(vals[:, 1:].mean().item(), 4),
)
groups = patches[idx]  # (R, 4, 25)
denoised = groups.mean(1)
print("group", tuple(groups.shape), round(denoised.sum().item(), 4))


# tiled inference with a linear blending window, as SwinIR/Real-ESRGAN tiles big images
def tile_forward(x, fn, tile=6, overlap=2):
    b, c, h, w = x.shape
    stride = tile - overlap
    pad_h = (stride - (h - tile) % stride) % stride
    pad_w = (stride - (w - tile) % stride) % stride
    xp = F.pad(x, (0, pad_w, 0, pad_h), mode="reflect")
    H, W = xp.shape[-2:]
    cols = F.unfold(xp, tile, stride=stride)  # (b, c*t*t, L)
    L = cols.shape[-1]
    tiles = cols.transpose(1, 2).reshape(b * L, c, tile, tile)
    out = fn(tiles)
    ramp = torch.minimum(torch.arange(1, tile + 1.0), torch.arange(tile, 0, -1.0)).clamp(max=overlap + 1)
    win = (ramp[:, None] * ramp[None, :]).expand(c, tile, tile).reshape(1, -1, 1)
    out = out.reshape(b, L, -1).transpose(1, 2) * win
    acc = F.fold(out, (H, W), tile, stride=stride)
    wsum = F.fold(win.expand(b, -1, L), (H, W), tile, stride=stride)
    return (acc / wsum)[..., :h, :w]


conv = nn.Conv2d(3, 3, 3, padding=1, padding_mode="reflect")
with torch.no_grad():
    conv.weight.copy_(torch.full_like(conv.weight, 1 / 27))
    conv.bias.zero_()
    whole = conv(img)
    tiled = tile_forward(img, conv)
    ident = tile_forward(img, lambda t: t)
print(
    "tiled identity err",
    round((ident - img).abs().max().item(), 4),
    "tiled conv err",
    round((tiled - whole).abs().max().item(), 4),
)

u = nn.Unfold(kernel_size=(2, 3), dilation=1, padding=0, stride=(1, 2))
f = nn.Fold(output_size=(4, 5), kernel_size=(2, 3), stride=(1, 2))
print(u, f)
cols3 = u(img[0, :, :4, :5])
print("unbatched unfold", tuple(cols3.shape), "unbatched fold", tuple(f(cols3).shape))

x = img[:1, :2, :6, :6].clone().requires_grad_(True)
c = F.unfold(x, 3, padding=1, stride=2)
print(type(c.grad_fn).__name__)
c.pow(2).sum().backward()
print("grad", x.grad[0, 0, :3, :3].round(decimals=4).tolist())
y = torch.randn(1, 8, 9, requires_grad=True)
fo = F.fold(y, (4, 4), 2, stride=1)
print(type(fo.grad_fn).__name__, tuple(fo.shape))
fo.sum().backward()
print("fold grad all ones", bool((y.grad == 1).all()))

for bad in [
    lambda: F.unfold(torch.randn(3, 4), 2),
    lambda: F.fold(torch.randn(1, 9, 5), (4, 4), 3),
    lambda: F.fold(torch.randn(1, 10, 4), (4, 4), 3),
    lambda: F.unfold(torch.randn(1, 1, 2, 2), 3),
    lambda: F.unfold(torch.randn(1, 1, 5, 5), 2, stride=0),
    lambda: F.fold(torch.randn(2, 3, 4, 5), (4, 4), 2),
    lambda: F.unfold(torch.randn(1, 1, 5, 5, 5), 2),
]:
    try:
        out = bad()
        print("ok", tuple(out.shape))
    except Exception as e:
        print(type(e).__name__, e)
