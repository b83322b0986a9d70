"""PCA three ways as people write it in torch: torch.linalg.svd of centered data, torch.pca_lowrank with
center=True, and eigh of torch.cov; sign-normalised components, explained variance ratios, whitening (PCA and
ZCA), reconstruction error against the number of components, and a torch.svd_lowrank check."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

n, d = 200, 5
latent = torch.randn(n, 2) * torch.tensor([3.0, 1.0])
W = torch.randn(2, d)
X = latent @ W + 0.1 * torch.randn(n, d) + torch.tensor([1.0, -2.0, 0.5, 0.0, 3.0])
X = X.double()
print("X", X.shape, X.dtype, "mean", X.mean(0))


def sign_flip(V):
    """Make the largest-magnitude entry of each column positive (sklearn's svd_flip convention)."""
    idx = V.abs().argmax(dim=0)
    signs = torch.sign(V[idx, torch.arange(V.shape[1])])
    return V * signs


mu = X.mean(dim=0, keepdim=True)
Xc = X - mu
U, S, Vh = torch.linalg.svd(Xc, full_matrices=False)
print("svd shapes", U.shape, S.shape, Vh.shape)
print("singular values", S)
var_svd = S ** 2 / (n - 1)
ratio = var_svd / var_svd.sum()
print("explained variance", var_svd)
print("explained ratio", ratio, "cumsum", ratio.cumsum(0))
comps_svd = sign_flip(Vh.T)

C = torch.cov(X.T)
print("cov", C.shape, "trace", round(C.trace().item(), 4), "equals total var", round(var_svd.sum().item(), 4))
evals, evecs = torch.linalg.eigh(C)
evals, evecs = evals.flip(0), evecs.flip(1)
comps_eig = sign_flip(evecs)
print("eigh values", evals)
print("eigh == svd variance", torch.allclose(evals, var_svd))
print("components agree", torch.allclose(comps_eig, comps_svd, atol=1e-8))
print("first two components\n", comps_svd[:, :2])

torch.manual_seed(1)
U_l, S_l, V_l = torch.pca_lowrank(X, q=3, center=True, niter=4)
print("pca_lowrank shapes", U_l.shape, S_l.shape, V_l.shape)
print("pca_lowrank S", S_l)
print("lowrank top-2 match", torch.allclose(sign_flip(V_l[:, :2]), comps_svd[:, :2], atol=1e-6))

torch.manual_seed(2)
U_s, S_s, V_s = torch.svd_lowrank(Xc, q=2)
print("svd_lowrank S", S_s, "rel err", ((S_s - S[:2]).abs() / S[:2]).max().item() < 1e-6)

# projections and reconstruction
for k in range(1, d + 1):
    P = comps_svd[:, :k]
    Z = Xc @ P
    Xr = Z @ P.T + mu
    err = (X - Xr).pow(2).sum(dim=1).mean()
    print(f"k={k} recon mse={err.item():.6f} var kept={ratio[:k].sum().item():.4f}")

k95 = int((ratio.cumsum(0) < 0.95).sum().item()) + 1
print("components for 95%", k95)

# whitening
Z = Xc @ comps_svd
Z_white = Z / S.mul(1 / (n - 1) ** 0.5)
cov_w = torch.cov(Z_white[:, :2].T)
print("PCA-whitened cov diag", cov_w.diagonal(), "off-diag small", cov_w[0, 1].abs().item() < 1e-10)
eps = 1e-5
W_zca = evecs @ torch.diag(1.0 / torch.sqrt(evals + eps)) @ evecs.T
X_zca = Xc @ W_zca
print("ZCA cov diag", torch.cov(X_zca.T).diagonal())
print("ZCA symmetric", torch.allclose(W_zca, W_zca.T))

# correlation-matrix PCA (standardised features)
std = X.std(dim=0, correction=1)
Xs = Xc / std
R = torch.corrcoef(X.T)
print("corrcoef matches cov of standardised", torch.allclose(R, torch.cov(Xs.T)))
ev_r = torch.linalg.eigvalsh(R).flip(0)
print("corr eigenvalues", ev_r, "sum", round(ev_r.sum().item(), 4))

# float32 pipeline
Xf = X.float()
Uf, Sf, Vhf = torch.linalg.svd(Xf - Xf.mean(0), full_matrices=False)
print("float32 S", Sf.dtype, (Sf.double() - S).abs().max().item() < 1e-3)
print("svdvals", torch.linalg.svdvals(Xc)[:3])

# projecting new points
x_new = torch.tensor([[1.0, -2.0, 0.5, 0.0, 3.0], [2.0, 0.0, 1.0, 1.0, 1.0]], dtype=torch.float64)
print("new projections\n", (x_new - mu) @ comps_svd[:, :2])
