"""Similarity losses of intensity registration: global NCC, VoxelMorph's local NCC with a conv3d box filter, the same
windows by avg_pool3d (count_include_pad), by a summed-area table (cumsum over F.pad) and by Tensor.unfold patches,
Gaussian-windowed NCC with a separable grouped conv, and their gradients."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
fixed = torch.rand(2, 1, 6, 7, 8, dtype=torch.float64)
moving = (0.6 * fixed + 0.4 * torch.rand(2, 1, 6, 7, 8, dtype=torch.float64)).requires_grad_(True)


def global_ncc(a, b, eps=1e-8):
    a = a.flatten(1) - a.flatten(1).mean(1, keepdim=True)
    b = b.flatten(1) - b.flatten(1).mean(1, keepdim=True)
    return (a * b).sum(1) / (a.norm(dim=1) * b.norm(dim=1) + eps)


print(
    "global",
    global_ncc(fixed, moving).detach().round(decimals=4),
    F.cosine_similarity(fixed.flatten(1), fixed.flatten(1)),
)


def local_sums_conv(x, win):
    filt = torch.ones(1, 1, *win, dtype=x.dtype)
    return F.conv3d(x, filt, stride=1, padding=tuple(w // 2 for w in win))


def local_ncc(a, b, win=(3, 3, 3), sums=local_sums_conv):
    n = math.prod(win)
    s = [sums(t, win) for t in (a, b, a * a, b * b, a * b)]
    ua, ub = s[0] / n, s[1] / n
    cross = s[4] - ub * s[0] - ua * s[1] + ua * ub * n
    va = s[2] - 2 * ua * s[0] + ua * ua * n
    vb = s[3] - 2 * ub * s[1] + ub * ub * n
    return cross * cross / (va * vb + 1e-5)


def local_sums_pool(x, win):
    return F.avg_pool3d(x, win, stride=1, padding=tuple(w // 2 for w in win), count_include_pad=True) * math.prod(win)


def local_sums_sat(x, win):
    p = [w // 2 for w in win]
    xp = F.pad(x, (p[2] + 1, p[2], p[1] + 1, p[1], p[0] + 1, p[0]))
    c = xp.cumsum(2).cumsum(3).cumsum(4)
    d, h, w = x.shape[2:]
    a0, b0, c0 = win
    s = (
        c[:, :, a0:, b0:, c0:]
        - c[:, :, :-a0, b0:, c0:]
        - c[:, :, a0:, :-b0, c0:]
        - c[:, :, a0:, b0:, :-c0]
        + c[:, :, :-a0, :-b0, c0:]
        + c[:, :, :-a0, b0:, :-c0]
        + c[:, :, a0:, :-b0, :-c0]
        - c[:, :, :-a0, :-b0, :-c0]
    )
    return s[:, :, :d, :h, :w]


def local_sums_unfold(x, win):
    p = [w // 2 for w in win]
    xp = F.pad(x, (p[2], p[2], p[1], p[1], p[0], p[0]))
    patches = xp.unfold(2, win[0], 1).unfold(3, win[1], 1).unfold(4, win[2], 1)
    return patches.sum((-1, -2, -3))


ref = local_ncc(fixed, moving)
print("lncc", ref.shape, round(ref.mean().item(), 4), ref[1, 0, 2, 3].detach().round(decimals=4).tolist())
for name, fn in (("pool", local_sums_pool), ("sat", local_sums_sat), ("unfold", local_sums_unfold)):
    other = local_ncc(fixed, moving, sums=fn)
    print(name, torch.allclose(ref, other), (ref - other).abs().max().item() < 1e-9)
for win in ((5, 5, 5), (3, 5, 1), (1, 1, 1)):
    print("win", win, round(local_ncc(fixed, moving, win).mean().item(), 4))
u = fixed.unfold(2, 3, 2)
print("unfold view", u.shape, u.stride(), u.is_contiguous(), u._base is fixed if hasattr(u, "_base") else None)
print("same pad", F.conv3d(fixed, torch.ones(1, 1, 2, 3, 4, dtype=torch.float64), padding="same").shape)
print("valid", F.conv3d(fixed, torch.ones(1, 1, 3, 3, 3, dtype=torch.float64), padding="valid").shape)

loss = -local_ncc(fixed, moving).mean()
loss.backward()
print(
    "grad",
    round(loss.item(), 4),
    round(moving.grad.abs().sum().item(), 4),
    moving.grad[0, 0, 0, 0, :4].tolist() != [0] * 4,
)
print(moving.grad[1, 0, 3, 3].round(decimals=4))


# Gaussian-window NCC with a separable grouped conv and padding modes
def gaussian_1d(sigma, radius):
    t = torch.arange(-radius, radius + 1, dtype=torch.float64)
    k = torch.exp(-0.5 * (t / sigma) ** 2)
    return k / k.sum()


g = gaussian_1d(1.0, 2)
print("kernel", g.round(decimals=4))
x2 = torch.cat([fixed, moving.detach()], 1)
for mode in ("zeros", "reflect", "replicate", "circular"):
    conv = nn.Conv3d(2, 2, (5, 1, 1), padding=(2, 0, 0), padding_mode=mode, groups=2, bias=False).double()
    with torch.no_grad():
        conv.weight.copy_(g.view(1, 1, 5, 1, 1).expand(2, 1, 5, 1, 1))
    sm = conv(x2)
    print(mode, tuple(sm.shape), round(sm.sum().item(), 4), sm[0, 1, 0, 0, :3].detach().round(decimals=4).tolist())
print(repr(conv), conv.weight.shape)
sep = F.conv3d(
    F.conv3d(
        F.conv3d(x2, g.view(1, 1, 5, 1, 1).expand(2, 1, 5, 1, 1), padding=(2, 0, 0), groups=2),
        g.view(1, 1, 1, 5, 1).expand(2, 1, 1, 5, 1),
        padding=(0, 2, 0),
        groups=2,
    ),
    g.view(1, 1, 1, 1, 5).expand(2, 1, 1, 1, 5),
    padding=(0, 0, 2),
    groups=2,
)
full = F.conv3d(x2, torch.einsum("i,j,k->ijk", g, g, g).expand(2, 1, 5, 5, 5), padding=2, groups=2)
print("separable==full", torch.allclose(sep, full), sep.shape)

cases = [
    lambda: F.conv3d(fixed, torch.ones(1, 1, 3, 3, 3), padding=1),
    lambda: F.conv3d(fixed, torch.ones(1, 2, 3, 3, 3, dtype=torch.float64)),
    lambda: F.conv3d(fixed, torch.ones(1, 1, 3, 3, 3, dtype=torch.float64), padding="same", stride=2),
    lambda: F.conv3d(fixed, torch.ones(1, 1, 9, 3, 3, dtype=torch.float64)),
    lambda: nn.Conv3d(1, 1, 3, padding="same", stride=2),
    lambda: F.conv3d(fixed[0, 0], torch.ones(1, 1, 3, 3, 3, dtype=torch.float64)),
    lambda: fixed.unfold(2, 7, 1),
    lambda: fixed.unfold(5, 2, 1),
    lambda: fixed.unfold(2, 2, 0),
]
for i, fn in enumerate(cases):
    try:
        r = fn()
        print(i, "ok", r if isinstance(r, nn.Module) else tuple(r.shape))
    except Exception as e:
        print(i, type(e).__name__, str(e).split("\n")[0][:200])
