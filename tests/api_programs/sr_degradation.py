"""Real-ESRGAN's synthetic degradation pipeline with fixed parameters: anisotropic and generalized Gaussian blur
kernels from a rotated covariance (torch.linalg.inv/det), plateau kernels, the 2-D sinc (circular low-pass) filter
built with torch.special.bessel_j1, per-sample kernels applied as one grouped conv2d, Gaussian and Poisson-like
noise, an 8x8 DCT-II JPEG quantisation by matmul, and the random-resize step with area/bilinear/bicubic modes."""

import math

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def mesh(k):
    ax = torch.arange(-(k // 2), k // 2 + 1, dtype=torch.float64)
    yy, xx = torch.meshgrid(ax, ax, indexing="ij")
    return torch.stack([xx, yy], -1)  # (k, k, 2)


def sigma_matrix(sx, sy, theta):
    d = torch.diag(torch.tensor([sx**2, sy**2], dtype=torch.float64))
    c, s = math.cos(theta), math.sin(theta)
    u = torch.tensor([[c, -s], [s, c]], dtype=torch.float64)
    return u @ d @ u.T


def aniso_gaussian(k, sx, sy, theta, beta=2.0, plateau=False):
    cov = sigma_matrix(sx, sy, theta)
    inv = torch.linalg.inv(cov)
    g = mesh(k)
    q = torch.einsum("ijk,kl,ijl->ij", g, inv, g)
    if plateau:
        ker = 1.0 / (q.pow(beta) + 1)
    else:
        ker = torch.exp(-0.5 * q.pow(beta / 2))
    return ker / ker.sum(), torch.linalg.det(cov)


def sinc_kernel(cutoff, k, pad_to=0):
    g = mesh(k)
    r = g.norm(dim=-1)
    with torch.no_grad():
        ker = cutoff * torch.special.bessel_j1(cutoff * r) / (2 * math.pi * r)
    ker[k // 2, k // 2] = cutoff**2 / (4 * math.pi)
    ker = ker / ker.sum()
    if pad_to > k:
        p = (pad_to - k) // 2
        ker = F.pad(ker, (p, p, p, p))
    return ker


kernels = []
for sx, sy, th, beta, pl in [
    (1.2, 1.2, 0.0, 2.0, False),
    (2.0, 0.6, math.pi / 4, 2.0, False),
    (1.5, 0.8, 1.0, 1.0, False),
    (1.0, 1.8, -0.5, 1.5, True),
]:
    ker, det = aniso_gaussian(7, sx, sy, th, beta, pl)
    kernels.append(ker)
    print(
        "kernel",
        sx,
        sy,
        round(th, 3),
        beta,
        pl,
        "det",
        round(det.item(), 4),
        "center",
        round(ker[3, 3].item(), 4),
        "sym",
        torch.allclose(ker, ker.flip(0).flip(1)),
    )
print(
    "bessel_j1",
    torch.special.bessel_j1(torch.tensor([0.0, 0.5, 1.0, 3.8317, 10.0], dtype=torch.float64))
    .round(decimals=4)
    .tolist(),
)
print("bessel_j0", torch.special.bessel_j0(torch.tensor([0.0, 2.4048, 5.0])).round(decimals=4).tolist())
for cutoff in (math.pi / 3, math.pi / 2, math.pi):
    sk = sinc_kernel(cutoff, 7, pad_to=9)
    print(
        "sinc",
        round(cutoff, 4),
        tuple(sk.shape),
        round(sk[4, 4].item(), 4),
        round(sk.sum().item(), 4),
        round(sk.min().item(), 4),
    )

# per-sample kernels as one grouped conv (batch folded into channels)
yy, xx = torch.meshgrid(torch.linspace(0, 1, 20), torch.linspace(0, 1, 20), indexing="ij")
hr = (
    torch.stack([torch.sin(8 * xx) * 0.5 + 0.5, (xx * yy), torch.cos(6 * yy) * 0.5 + 0.5])
    .unsqueeze(0)
    .repeat(4, 1, 1, 1)
)
b, c, h, w = hr.shape
kb = torch.stack(kernels).float()  # (4, 7, 7)
x = F.pad(hr, (3, 3, 3, 3), mode="reflect").reshape(1, b * c, h + 6, w + 6)
weight = kb[:, None].repeat_interleave(c, 0)  # (b*c, 1, 7, 7)
blurred = F.conv2d(x, weight, groups=b * c).view(b, c, h, w)
print(
    "blurred",
    tuple(blurred.shape),
    [round(v, 4) for v in blurred.mean((1, 2, 3)).tolist()],
    round(blurred.std().item(), 4),
)
loop = torch.cat(
    [F.conv2d(F.pad(hr[i : i + 1], (3, 3, 3, 3), mode="reflect"), kb[i].expand(3, 1, 7, 7), groups=3) for i in range(b)]
)
print("grouped == loop", torch.allclose(loop, blurred, atol=1e-6))

# random resize step with fixed choices
for mode, size in (("area", (10, 10)), ("bilinear", (13, 13)), ("bicubic", (7, 9))):
    out = F.interpolate(blurred, size=size, mode=mode, **({} if mode == "area" else {"align_corners": False}))
    print("resize", mode, tuple(out.shape), round(out.mean().item(), 4))
lq = F.interpolate(blurred, scale_factor=0.5, mode="bicubic", antialias=False, align_corners=False)

# noise: gaussian (color and gray) and poisson-like with fixed normal draws
gen = torch.Generator().manual_seed(11)
noise = torch.randn(lq.shape, generator=gen)
gray = torch.tensor([1.0, 0.0, 1.0, 0.0]).view(b, 1, 1, 1)
sigma = torch.tensor([2.0, 5.0, 10.0, 25.0]).view(b, 1, 1, 1) / 255.0
noise = torch.where(gray.bool(), noise[:, :1].expand_as(noise), noise) * sigma
noisy = (lq + noise).clamp(0, 1)
print(
    "gauss",
    [round(v, 4) for v in (noisy - lq).std((1, 2, 3)).tolist()],
    "gray ch equal",
    torch.equal(noise[0, 0], noise[0, 1]),
)
vals = 2 ** torch.tensor([3.0, 5.0, 7.0, 9.0]).view(b, 1, 1, 1)
img_q = torch.round(lq.clamp(0, 1) * vals)
pois = torch.sqrt(img_q.clamp_min(0)) * torch.randn(lq.shape, generator=gen)
print("poisson-like", [round(v, 4) for v in (pois / vals).abs().mean((1, 2, 3)).tolist()])

# 8x8 DCT-II JPEG-style quantisation
n = torch.arange(8, dtype=torch.float32)
D = torch.cos((2 * n[None, :] + 1) * n[:, None] * math.pi / 16) * torch.sqrt(torch.tensor(2.0 / 8))
D[0] = D[0] / math.sqrt(2)
print("dct orthonormal", torch.allclose(D @ D.T, torch.eye(8), atol=1e-6))
Y = (noisy[:, 0:1] * 255 - 128)[..., :8, :8].reshape(b, 8, 8)
coef = D @ Y @ D.T
q = 1 + torch.arange(8.0)[:, None] + torch.arange(8.0)[None, :]
for quality in (90, 50, 10):
    scale = 5000 / quality if quality < 50 else 200 - 2 * quality
    qm = torch.clamp(torch.floor((q * 8 * scale + 50) / 100), min=1)
    rec = D.T @ (torch.round(coef / qm) * qm) @ D
    print(
        "jpeg q",
        quality,
        "zeros",
        int((torch.round(coef / qm) == 0).sum()),
        "err",
        round((rec - Y).abs().mean().item(), 4),
    )

for bad in [
    lambda: torch.linalg.inv(torch.zeros(2, 2)),
    lambda: torch.special.bessel_j1(torch.tensor([1, 2])),
    lambda: F.conv2d(x, weight, groups=5),
    lambda: F.pad(hr, (20, 0, 0, 0), mode="reflect"),
]:
    try:
        r = bad()
        print("ok", r.dtype if isinstance(r, torch.Tensor) else r)
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
