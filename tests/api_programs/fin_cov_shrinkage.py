"""Covariance estimation for risk models: sample covariance with torch.cov (correction, fweights, aweights),
corrcoef, Ledoit-Wolf shrinkage toward a scaled identity and toward constant correlation, exponentially weighted
covariance with aweights and by recursion, eigenportfolios from eigh with sign normalisation, the explained
variance of PCA factors with svd and pca_lowrank, condition numbers, and nearest-correlation clipping."""

import torch

torch.manual_seed(0)
dtype = torch.float64
T, N = 120, 6
t = torch.arange(T, dtype=dtype)
factor = torch.sin(t * 0.21) * 0.02
load = torch.tensor([1.0, 0.8, 1.2, 0.5, 0.9, 1.1], dtype=dtype)
idio = torch.cos(t[:, None] * torch.tensor([0.5, 0.9, 1.3, 1.7, 2.3, 2.9], dtype=dtype) + torch.arange(N)) * 0.01
X = factor[:, None] * load + idio
print("panel", tuple(X.shape), X.dtype)

S = torch.cov(X.T)
S0 = torch.cov(X.T, correction=0)
print("cov", S.diag().mul(1e4).round(decimals=4).tolist())
print("correction ratio", round((S / S0)[0, 0].item(), 6), round(T / (T - 1), 6))
R = torch.corrcoef(X.T)
print("corr row0", R[0].round(decimals=4).tolist())
fw = torch.randint(1, 4, (T,))
aw = torch.linspace(0.1, 1.0, T, dtype=dtype)
print("fweights", torch.cov(X.T, fweights=fw).diag().mul(1e4).round(decimals=4).tolist())
print("aweights", torch.cov(X.T, aweights=aw).diag().mul(1e4).round(decimals=4).tolist())
print("both", torch.cov(X.T, fweights=fw, aweights=aw, correction=0)[0, 1].mul(1e4).round(decimals=4).item())


def ledoit_wolf(Xc):
    n, p = Xc.shape
    Xc = Xc - Xc.mean(0)
    Sm = Xc.T @ Xc / n
    mu_ = torch.trace(Sm) / p
    d2 = torch.linalg.matrix_norm(Sm - mu_ * torch.eye(p, dtype=Xc.dtype)) ** 2
    b2 = sum(torch.linalg.matrix_norm(torch.outer(x, x) - Sm) ** 2 for x in Xc) / n**2
    b2 = torch.minimum(b2, d2)
    delta = b2 / d2
    return delta * mu_ * torch.eye(p, dtype=Xc.dtype) + (1 - delta) * Sm, delta


S_lw, shrink = ledoit_wolf(X)
print("lw shrinkage", round(shrink.item(), 4))
print("cond sample vs lw", round(torch.linalg.cond(S).item(), 1), round(torch.linalg.cond(S_lw).item(), 1))

sd = S.diag().sqrt()
rbar = (R.sum() - N) / (N * (N - 1))
F = rbar * torch.outer(sd, sd)
F.diagonal().copy_(S.diag())
cc = 0.3 * F + 0.7 * S
print("const corr target", round(rbar.item(), 4), torch.allclose(cc.diag(), S.diag()))

lam = 0.97
wts = lam ** torch.arange(T - 1, -1, -1, dtype=dtype)
ew_cov = torch.cov(X.T, aweights=wts, correction=0)
Xm = X - (wts[:, None] * X).sum(0) / wts.sum()
manual = (wts[:, None, None] * Xm[:, :, None] * Xm[:, None, :]).sum(0) / wts.sum()
print("ewma cov via aweights", torch.allclose(ew_cov, manual))
rec = torch.zeros(N, N, dtype=dtype)
for x in X:
    rec = lam * rec + (1 - lam) * torch.outer(x, x)
print("ewma recursion", rec.diag().mul(1e4).round(decimals=4).tolist())

evals, evecs = torch.linalg.eigh(S)
evecs = evecs * torch.sign(evecs.sum(0, keepdim=True))
print(
    "eigvals ascending", bool((evals.diff() >= 0).all()), (evals / evals.sum()).flip(0).round(decimals=4).tolist()[:3]
)
pc1 = evecs[:, -1] / evecs[:, -1].sum()
print("eigenportfolio 1", pc1.round(decimals=4).tolist())
print("evecs orthonormal", torch.allclose(evecs.T @ evecs, torch.eye(N, dtype=dtype)))
print("eigvalsh upper", torch.allclose(torch.linalg.eigvalsh(S, UPLO="U"), evals))

Xc = X - X.mean(0)
U, s, Vh = torch.linalg.svd(Xc, full_matrices=False)
print("svd shapes", tuple(U.shape), tuple(s.shape), tuple(Vh.shape))
print("svd vs eigh", torch.allclose((s**2 / (T - 1)).flip(0), evals))
expl = s**2 / (s**2).sum()
print("explained", expl.cumsum(0).round(decimals=4).tolist())
U2, s2, V2 = torch.pca_lowrank(X, q=2, center=True, niter=4)
print("pca_lowrank", tuple(V2.shape), torch.allclose(s2, s[:2], rtol=1e-2))

bad = R.clone()
bad[0, 1] = bad[1, 0] = 0.99
bad[0, 2] = bad[2, 0] = -0.9
ev, Q = torch.linalg.eigh(bad)
print("min eig before", round(ev.min().item(), 4))
fixed = Q @ torch.diag(ev.clamp(min=1e-6)) @ Q.T
dinv = torch.rsqrt(fixed.diag())
fixed = fixed * dinv[:, None] * dinv[None, :]
print(
    "min eig after",
    torch.linalg.eigvalsh(fixed).min().item() > 0,
    torch.allclose(fixed.diag(), torch.ones(N, dtype=dtype)),
)

for kw in [
    dict(correction=-1),
    dict(fweights=torch.ones(T)),
    dict(aweights=-torch.ones(T, dtype=dtype)),
    dict(fweights=torch.ones(3, dtype=torch.long)),
]:
    try:
        torch.cov(X.T, **kw)
        print("ok", list(kw))
    except Exception as e:
        print(type(e).__name__, e)
try:
    torch.cov(torch.zeros(2, 3, 4))
except Exception as e:
    print(type(e).__name__, e)
