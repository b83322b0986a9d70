"""FID/KID/precision-recall as evaluation code computes them from features: streaming mean and covariance in float64,
torch.cov with correction and weights against the hand-written formula, the Fréchet distance by eigh square roots and
by eigvals of the product, KID's polynomial-kernel MMD, and k-NN manifold precision/recall with cdist and kthvalue."""

import torch

torch.manual_seed(0)
feat_real = torch.randn(64, 6, dtype=torch.float64) @ torch.randn(6, 6, dtype=torch.float64) * 0.5
feat_fake = torch.randn(48, 6, dtype=torch.float64) @ torch.randn(6, 6, dtype=torch.float64) * 0.5 + 0.3


def stats(f):
    mu = f.mean(dim=0)
    diff = f - mu
    return mu, diff.T @ diff / (f.shape[0] - 1)


mu1, s1 = stats(feat_real)
mu2, s2 = stats(feat_fake)
print("cov == torch.cov", torch.allclose(s1, torch.cov(feat_real.T)), s1.dtype)
print("correction=0", torch.allclose(torch.cov(feat_real.T, correction=0) * 64 / 63, s1))
fw = torch.randint(1, 4, (64,))
aw = torch.rand(64, dtype=torch.float64)
print("fweights", round(torch.cov(feat_real.T, fweights=fw).trace().item(), 4))
print("aweights", round(torch.cov(feat_real.T, aweights=aw).trace().item(), 4))
print("both", round(torch.cov(feat_real.T, fweights=fw, aweights=aw, correction=0).sum().item(), 4))
print("corrcoef diag", torch.corrcoef(feat_real.T).diagonal().round(decimals=4).tolist())


def sqrtm_psd(m):
    vals, vecs = torch.linalg.eigh(m)
    return vecs @ torch.diag_embed(vals.clamp(min=0).sqrt()) @ vecs.mH


def fid_eigh(mu1, s1, mu2, s2):
    r1 = sqrtm_psd(s1)
    covmean = sqrtm_psd(r1 @ s2 @ r1)
    return (mu1 - mu2).square().sum() + torch.trace(s1) + torch.trace(s2) - 2 * torch.trace(covmean)


def fid_eigvals(mu1, s1, mu2, s2):
    ev = torch.linalg.eigvals(s1 @ s2)
    return (mu1 - mu2).square().sum() + s1.trace() + s2.trace() - 2 * ev.sqrt().real.sum()


a = fid_eigh(mu1, s1, mu2, s2)
b = fid_eigvals(mu1, s1, mu2, s2)
print("FID eigh", round(a.item(), 4), "eigvals", round(b.item(), 4), torch.linalg.eigvals(s1 @ s2).dtype)
print("FID self", round(abs(fid_eigh(mu1, s1, mu1, s1).item()), 4))
r = sqrtm_psd(s1)
print("sqrtm check", torch.allclose(r @ r, s1), round(torch.linalg.matrix_norm(r @ r - s1).item(), 8))
print("eigvalsh", torch.linalg.eigvalsh(s1).round(decimals=4).tolist())
print(
    "cholesky logdet",
    round(2 * torch.linalg.cholesky(s1).diagonal().log().sum().item(), 4),
    round(torch.logdet(s1).item(), 4),
)
print("slogdet", [round(v.item(), 4) for v in torch.linalg.slogdet(s2)])

# Streaming statistics over batches (as the torchmetrics state keeps them).
n, total, outer = 0, torch.zeros(6, dtype=torch.float64), torch.zeros(6, 6, dtype=torch.float64)
for chunk in feat_real.split(20):
    n += chunk.shape[0]
    total += chunk.sum(dim=0)
    outer += chunk.T @ chunk
mu_s = total / n
cov_s = (outer - n * torch.outer(mu_s, mu_s)) / (n - 1)
print("streaming", torch.allclose(mu_s, mu1), torch.allclose(cov_s, s1), [c.shape[0] for c in feat_real.split(20)])


# KID: unbiased MMD^2 with the cubic polynomial kernel.
def kid(x, y):
    d = x.shape[1]
    kxx = (x @ x.T / d + 1) ** 3
    kyy = (y @ y.T / d + 1) ** 3
    kxy = (x @ y.T / d + 1) ** 3
    m, n = x.shape[0], y.shape[0]
    return (
        (kxx.sum() - kxx.diagonal().sum()) / (m * (m - 1))
        + (kyy.sum() - kyy.diagonal().sum()) / (n * (n - 1))
        - 2 * kxy.mean()
    )


print(
    "KID",
    round(kid(feat_real, feat_fake).item(), 4),
    "self-split",
    round(kid(feat_real[:32], feat_real[32:]).item(), 4),
)
subsets = torch.stack(
    [kid(feat_real[idx], feat_fake[idx[:30] % 48]) for idx in [torch.randperm(64)[:30] for _ in range(5)]]
)
print("KID subsets", tuple(subsets.shape), subsets.dtype)


# Precision/recall (Kynkäänniemi): radii from the k-th nearest neighbour.
def radii(f, k=3):
    d = torch.cdist(f, f)
    return d.kthvalue(k + 1, dim=1).values


def coverage(query, ref, ref_radii):
    d = torch.cdist(query, ref)
    return (d <= ref_radii.unsqueeze(0)).any(dim=1).float().mean()


rr, rf = radii(feat_real), radii(feat_fake)
print(
    "precision",
    round(coverage(feat_fake, feat_real, rr).item(), 4),
    "recall",
    round(coverage(feat_real, feat_fake, rf).item(), 4),
)
print(
    "radii", rr[:4].round(decimals=4).tolist(), torch.cdist(feat_real, feat_real).diagonal().abs().max().item() < 1e-6
)
print("cdist p=1", round(torch.cdist(feat_real[:3], feat_fake[:3], p=1).sum().item(), 4))
print("float32 FID", round(fid_eigh(mu1.float(), s1.float(), mu2.float(), s2.float()).item(), 2))
try:
    torch.cov(feat_real.T, fweights=torch.rand(64))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.cov(feat_real.T, aweights=-aw)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.cholesky(-s1)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.cov(torch.randn(2, 3, 4))
except Exception as e:
    print(type(e).__name__, e)
