"""Single-cell RNA-seq preprocessing as scanpy-style code does it in torch: a counts matrix with library-size
normalisation and log1p, QC metrics (mitochondrial fraction, detected genes), highly-variable genes by dispersion
with topk, scaling with clipping, PCA through torch.pca_lowrank, torch.svd_lowrank and full SVD with sign flips, a kNN
graph from cdist/topk made symmetric, Leiden-free clustering by label propagation, and marker genes by rank."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
n_cells, n_genes = 60, 40
g = torch.Generator().manual_seed(3)
programs = torch.rand(3, n_genes, generator=g) ** 3 * 20
labels = torch.arange(n_cells) % 3
rate = programs[labels] * torch.linspace(0.5, 1.5, n_cells)[:, None] + 0.1
counts = torch.poisson(rate, generator=g)
print("counts", counts.shape, counts.dtype, int(counts.sum().item()) > 0, counts.eq(0).float().mean().item() < 1)
counts = rate.round()
mito = torch.zeros(n_genes, dtype=torch.bool)
mito[-3:] = True
libsize = counts.sum(1)
pct_mito = counts[:, mito].sum(1) / libsize * 100
n_detected = counts.gt(0).sum(1)
print("qc", libsize[:4].tolist(), n_detected[:4].tolist(), pct_mito[:4].round(decimals=4).tolist())
keep = (n_detected >= 5) & (pct_mito < 30)
print("cells kept", keep.sum().item(), n_detected.dtype)

norm = counts / libsize[:, None] * 1e4
logx = torch.log1p(norm)
print("log1p", logx.shape, round(logx.mean().item(), 4), round(torch.expm1(logx).sum(1)[0].item(), 2))
mean = norm.mean(0)
var = norm.var(0, unbiased=True)
disp = var / mean.clamp_min(1e-12)
log_disp = torch.log(disp)
bins = torch.bucketize(torch.log1p(mean), torch.quantile(torch.log1p(mean), torch.tensor([0.25, 0.5, 0.75])))
norm_disp = torch.zeros_like(log_disp)
for b in bins.unique():
    sel = bins == b
    m, s = log_disp[sel].mean(), log_disp[sel].std(unbiased=True)
    norm_disp[sel] = (log_disp[sel] - m) / s
hv = norm_disp.topk(12, sorted=True)
print("hvg", sorted(hv.indices.tolist()), hv.values[:3].round(decimals=4).tolist())
hv_mask = torch.zeros(n_genes, dtype=torch.bool).index_fill_(0, hv.indices, True)
print("seurat_v3 var", torch.var_mean(logx[:, hv_mask], dim=0, correction=1)[1][:3].round(decimals=4).tolist())

X = logx[:, hv_mask]
X = (X - X.mean(0)) / X.std(0).clamp_min(1e-8)
X = X.clamp(max=10.0)
U, S, Vh = torch.linalg.svd(X, full_matrices=False)
max_abs = U.gather(0, U.abs().argmax(0, keepdim=True)).sign()
U, Vh = U * max_abs, Vh * max_abs.T
pcs = U[:, :5] * S[:5]
print("svd S", S[:5].round(decimals=4).tolist(), "var ratio", (S[:5] ** 2 / (S**2).sum()).round(decimals=4).tolist())
torch.manual_seed(1)
U2, S2, V2 = torch.pca_lowrank(X, q=5, center=False, niter=4)
print("pca_lowrank", U2.shape, S2.shape, V2.shape, torch.allclose(S2, S[:5], rtol=1e-3))
U3, S3, V3 = torch.svd_lowrank(X, q=5, niter=4)
print(
    "svd_lowrank",
    torch.allclose(S3, S[:5], rtol=1e-3),
    torch.allclose((U3 * S3) @ V3.T, (U[:, :5] * S[:5]) @ Vh[:5], atol=1e-2),
)
evals = torch.linalg.eigvalsh(X.T @ X / (n_cells - 1)).flip(0)
print("eigvalsh", torch.allclose(evals[:5], S[:5] ** 2 / (n_cells - 1), rtol=1e-4))

k = 6
D = torch.cdist(pcs, pcs)
D.fill_diagonal_(float("inf"))
dist, nbr = D.topk(k, largest=False)
print("knn", nbr.shape, nbr[0].tolist(), dist[0, :2].round(decimals=4).tolist())
Adj = torch.zeros(n_cells, n_cells).scatter_(1, nbr, 1.0)
Adj = ((Adj + Adj.T) > 0).float()
print("edges", int(Adj.sum().item()), "sym", torch.equal(Adj, Adj.T))
same = (labels[nbr] == labels[:, None]).float().mean()
print("knn purity", round(same.item(), 4))
sigma = dist[:, -1:].clamp_min(1e-6)
W = torch.zeros(n_cells, n_cells).scatter_(1, nbr, torch.exp(-((dist / sigma) ** 2)))
print("gaussian kernel row sums", W.sum(1)[:3].round(decimals=4).tolist())

lab = torch.arange(n_cells)
for it in range(10):
    votes = F.one_hot(lab, n_cells).float()
    new = (Adj @ votes + votes * 0.5).argmax(1)
    if torch.equal(new, lab):
        break
    lab = new
clusters, lab_ids = torch.unique(lab, return_inverse=True)
print("clusters", clusters.numel(), torch.bincount(lab_ids).tolist(), it)
ari_like = F.one_hot(lab_ids).T.float() @ F.one_hot(labels).float()
print("contingency", ari_like.tolist())

ranks = logx.argsort(0).argsort(0).float()
for c in range(3):
    r1 = ranks[labels == c].mean(0)
    print("markers", c, r1.topk(3).indices.tolist())
print(
    "median, nanmedian", logx.median(0).values[:3].round(decimals=4).tolist(), logx.nanmedian().round(decimals=4).item()
)
print(
    "sparse csr",
    counts.to_sparse_csr().values().numel() == counts.count_nonzero().item(),
    counts.count_nonzero(dim=0)[:5].tolist(),
)
try:
    torch.pca_lowrank(X, q=50)
except Exception as e:
    print(type(e).__name__, e)
try:
    logx.topk(41, dim=1)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.quantile(logx, 1.5)
except Exception as e:
    print(type(e).__name__, e)
