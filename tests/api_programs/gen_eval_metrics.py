"""Generative-model evaluation as research code computes it: FID from feature means and covariances (torch.cov,
matrix square roots through eigh and through linalg.eigvals of the product), Inception Score over splits, KID with a
cubic polynomial kernel (unbiased MMD), k-NN precision/recall with cdist and kthvalue, PSNR, bits per dim, and the
make_grid/uint8 conversion done before saving samples."""

import math

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)


def r(x, n=6):
    return [round(v, 4) for v in x.detach().double().flatten()[:n].tolist()]


def features(n, d, phase, scale=1.0):
    i = torch.arange(n, dtype=torch.float64).view(-1, 1)
    j = torch.arange(d, dtype=torch.float64).view(1, -1)
    return scale * torch.sin(i * (0.37 + 0.011 * j) + phase * (j + 1)) + 0.1 * torch.cos(i * j * 0.05)


real = features(200, 8, 0.0)
fake = features(180, 8, 0.3, scale=1.2)
mu_r, mu_f = real.mean(0), fake.mean(0)
sig_r, sig_f = torch.cov(real.T), torch.cov(fake.T)
print("cov", sig_r.shape, sig_r.dtype, "symmetric", torch.allclose(sig_r, sig_r.T), "np-style",
      torch.allclose(sig_r, (real - mu_r).T @ (real - mu_r) / (real.shape[0] - 1)))


def sqrtm_psd(a):
    vals, vecs = torch.linalg.eigh(a)
    return vecs @ torch.diag(vals.clamp(min=0).sqrt()) @ vecs.T


def fid_eigh(mu1, s1, mu2, s2):
    s1_half = sqrtm_psd(s1)
    covmean = sqrtm_psd(s1_half @ s2 @ s1_half)
    return (mu1 - mu2).square().sum() + torch.trace(s1) + torch.trace(s2) - 2 * torch.trace(covmean)


def fid_eigvals(mu1, s1, mu2, s2):
    ev = torch.linalg.eigvals(s1 @ s2)
    return (mu1 - mu2).square().sum() + torch.trace(s1) + torch.trace(s2) - 2 * ev.sqrt().real.sum()


f1 = fid_eigh(mu_r, sig_r, mu_f, sig_f)
f2 = fid_eigvals(mu_r, sig_r, mu_f, sig_f)
print("fid", round(f1.item(), 4), round(f2.item(), 4), "same", math.isclose(f1.item(), f2.item(), rel_tol=1e-6))
print("fid(real, real)", round(abs(fid_eigh(mu_r, sig_r, mu_r, sig_r).item()), 6))
ev = torch.linalg.eigvals(sig_r @ sig_f)
print("eigvals dtype", ev.dtype, "imag small", bool(ev.imag.abs().max() < 1e-8))
print("torch.corrcoef", r(torch.corrcoef(real.T)[0], 4))

# Inception Score over 4 splits
logits = torch.stack([torch.linspace(-2, 2, 10) * (1 + 0.1 * k) + torch.sin(torch.arange(10.0) * k)
                      for k in range(40)]).double()
p_yx = F.softmax(logits, dim=1)
scores = []
for part in p_yx.chunk(4):
    py = part.mean(0, keepdim=True)
    kl = (part * (torch.log(part) - torch.log(py))).sum(1)
    scores.append(torch.exp(kl.mean()))
scores = torch.stack(scores)
print("IS", round(scores.mean().item(), 4), "+-", round(scores.std(unbiased=False).item(), 4))
kl_fn = F.kl_div(torch.log(p_yx.mean(0, keepdim=True)).expand_as(p_yx), p_yx, reduction="none").sum(1)
print("kl_div form", r(kl_fn, 4))


# KID: unbiased MMD^2 with k(x, y) = (x.y / d + 1)^3
def polynomial_mmd(x, y):
    d = x.shape[1]
    kxx = (x @ x.T / d + 1) ** 3
    kyy = (y @ y.T / d + 1) ** 3
    kxy = (x @ y.T / d + 1) ** 3
    m, n = x.shape[0], y.shape[0]
    return ((kxx.sum() - kxx.diagonal().sum()) / (m * (m - 1)) + (kyy.sum() - kyy.diagonal().sum()) / (n * (n - 1))
            - 2 * kxy.mean())


kids = torch.stack([polynomial_mmd(real[i::4], fake[i::4]) for i in range(4)])
print("KID", round(kids.mean().item(), 5), r(kids, 4))


# improved precision / recall (k-NN manifolds)
def manifold_radii(feats, k=3):
    d = torch.cdist(feats, feats)
    return d.kthvalue(k + 1, dim=1).values  # +1: the point itself is at distance 0


def coverage_frac(ref, radii, query):
    d = torch.cdist(query, ref)
    return (d <= radii.unsqueeze(0)).any(dim=1).float().mean()


rad_r, rad_f = manifold_radii(real.float()), manifold_radii(fake.float())
precision = coverage_frac(real.float(), rad_r, fake.float())
recall = coverage_frac(fake.float(), rad_f, real.float())
print("radii", r(rad_r, 4), "precision", round(precision.item(), 4), "recall", round(recall.item(), 4))
vals, idx = torch.cdist(fake[:3].float(), real.float()).topk(2, largest=False)
print("nearest real", idx.tolist(), r(vals, 4))

# PSNR and bits/dim
img = (torch.sin(torch.arange(3 * 8 * 8, dtype=torch.float32).view(3, 8, 8) * 0.2) + 1) / 2
noisy = (img + 0.05 * torch.cos(torch.arange(img.numel(), dtype=torch.float32).view_as(img) * 1.7)).clamp(0, 1)
mse = F.mse_loss(noisy, img)
print("psnr", round((10 * torch.log10(1.0 / mse)).item(), 4), "mse", round(mse.item(), 6))
nll_nats = torch.tensor(2345.6)
print("bits/dim", round((nll_nats / (img.numel() * math.log(2))).item(), 4))


# make_grid + uint8 conversion as torchvision does it
def make_grid(t, nrow=2, padding=1, pad_value=0.0):
    n, c, h, w = t.shape
    xmaps = min(nrow, n)
    ymaps = int(math.ceil(n / xmaps))
    H, W = h + padding, w + padding
    grid = t.new_full((c, H * ymaps + padding, W * xmaps + padding), pad_value)
    k = 0
    for y in range(ymaps):
        for x in range(xmaps):
            if k >= n:
                break
            grid.narrow(1, y * H + padding, h).narrow(2, x * W + padding, w).copy_(t[k])
            k += 1
    return grid


samples = torch.stack([img * (0.5 + 0.2 * k) for k in range(3)]) * 2 - 1
samples = (samples.clamp(-1, 1) + 1) / 2
grid = make_grid(samples, nrow=2, padding=2, pad_value=1.0)
nd = grid.mul(255).add_(0.5).clamp_(0, 255).permute(1, 2, 0).to("cpu", torch.uint8)
print("grid", grid.shape, "uint8", nd.shape, nd.dtype, nd[0, 0].tolist(), nd[5, 5].tolist(), nd[14, 15].tolist())
hist = torch.bincount(nd.flatten().long() // 32, minlength=8)
print("histogram", hist.tolist(), "mean", round(nd.float().mean().item(), 3), "max", nd.max().item())
print("numpy", nd.numpy().shape, nd.numpy().dtype, int(nd.numpy()[3:6, 3:6, 0].sum()))
