"""Sparse single-cell workflows: a cells x genes count matrix held as COO/CSR, per-cell size factors from sparse
sums, log1p on the stored values only, sparse-aware PCA with torch.pca_lowrank/svd_lowrank (singular values, which
do not depend on sign conventions), a kNN graph built as a sparse COO adjacency, symmetrised with its conjugate
transpose and coalesced, diffusion (MAGIC-style) by torch.sparse.mm powers, and a sparse-graph Laplacian smoothing."""

import warnings

import torch

nn = torch.nn
F = torch.nn.functional
warnings.simplefilter("ignore")

torch.manual_seed(0)
n_cells, n_genes = 24, 10
g = torch.Generator().manual_seed(7)
dense = torch.poisson(torch.rand(n_cells, n_genes, generator=g) ** 2 * 6, generator=g)
dense[:, 7:] = 0
dense[::3, 7] = torch.arange(8, dtype=torch.float32) + 1
dense = torch.tensor(
    [[float((i * 5 + j * 3) % 7 if (i + 2 * j) % 3 else 0) for j in range(n_genes)] for i in range(n_cells)]
)
X = dense.to_sparse()
print("coo", X.layout, X.shape, X._nnz(), X.is_coalesced(), X.indices().dtype, X.values().dtype)
csr = dense.to_sparse_csr()
print("csr", csr.crow_indices()[:6].tolist(), csr.col_indices()[:6].tolist(), csr.values().sum().item())
csr_lib = csr.sum(1, keepdim=True)
print("csr row sums", csr_lib.layout, csr_lib.shape, csr_lib.crow_indices()[:5].tolist(), csr_lib.values()[:5].tolist())
gene_w = torch.linspace(0.5, 1.5, n_genes).expand(n_cells, n_genes)
weighted = csr * gene_w
print(
    "csr * dense",
    weighted.layout,
    weighted._nnz(),
    round(weighted.values().sum().item(), 4),
    torch.equal(weighted.col_indices(), csr.col_indices()),
)
print("csr * coo", (csr * X).layout, round((csr * X).values().sum().item(), 4))
try:
    csr.sum(0)
except Exception as e:
    print(type(e).__name__, e)
try:
    csr * torch.ones(n_cells, 1)
except Exception as e:
    print(type(e).__name__, e)
lib = torch.sparse.sum(X, dim=1).to_dense()
print("library size", lib[:6].tolist(), lib.dtype)
size_factor = lib / lib.median()
rows = X.indices()[0]
norm_vals = X.values() / size_factor[rows] * 10
Xn = torch.sparse_coo_tensor(X.indices(), norm_vals, X.shape).coalesce()
Xl = torch.log1p(Xn)
print("log1p sparse", Xl.layout, Xl._nnz(), round(Xl.values().sum().item(), 4), round(Xl.to_dense().sum().item(), 4))
gene_mean = torch.sparse.sum(Xl, dim=0).to_dense() / n_cells
print("gene means", gene_mean.round(decimals=4).tolist())
print("mH", Xl.mH.layout, Xl.mH.shape, torch.equal(Xl.mH.to_dense(), Xl.to_dense().T), Xl.t().is_coalesced())

torch.manual_seed(0)
U, S, V = torch.pca_lowrank(Xl, q=4, center=True, niter=3)
dense_S = torch.linalg.svdvals(Xl.to_dense() - Xl.to_dense().mean(0))
print("pca_lowrank sparse", U.shape, V.shape, S.round(decimals=3).tolist(), dense_S[:4].round(decimals=3).tolist())
torch.manual_seed(0)
U2, S2, V2 = torch.svd_lowrank(Xl, q=4, niter=3)
recon = U2 @ torch.diag(S2) @ V2.mT
print(
    "svd_lowrank sparse",
    S2.round(decimals=3).tolist(),
    "recon err",
    round((recon - Xl.to_dense()).norm().item() / Xl.to_dense().norm().item(), 3),
)
torch.manual_seed(0)
S3 = torch.svd_lowrank(Xl.to_sparse_csr(), q=4, niter=3)[1]
print("csr svd_lowrank", torch.allclose(S3, S2, atol=1e-3))
emb = (Xl.to_dense() - gene_mean) @ V
print("embedding norms", emb.norm(dim=1)[:4].round(decimals=3).tolist())

k = 4
D = torch.cdist(emb, emb)
D.fill_diagonal_(float("inf"))
dist, nbr = D.topk(k, largest=False)
src = torch.arange(n_cells).repeat_interleave(k)
A = torch.sparse_coo_tensor(torch.stack([src, nbr.flatten()]), torch.ones(n_cells * k), (n_cells, n_cells))
A_sym = (A + A.mH).coalesce()
A_sym = torch.sparse_coo_tensor(A_sym.indices(), A_sym.values().clamp(max=1.0), A_sym.shape).coalesce()
print("graph nnz", A._nnz(), A_sym._nnz(), "sym", torch.equal(A_sym.to_dense(), A_sym.to_dense().T))
deg = torch.sparse.sum(A_sym, dim=1).to_dense()
print("degree", deg.tolist()[:8], deg.dtype)
r, c = A_sym.indices()
P = torch.sparse_coo_tensor(A_sym.indices(), A_sym.values() / deg[r], A_sym.shape).coalesce()
print("row stochastic", torch.sparse.sum(P, dim=1).to_dense().round(decimals=4).unique().tolist())
Y = Xl.to_dense()
for t in range(3):
    Y = torch.sparse.mm(P, Y)
print("diffused", Y.shape, Y[:2, :4].round(decimals=4).tolist(), round(Y.sum().item(), 3))
Lap = torch.sparse_coo_tensor(
    torch.cat([A_sym.indices(), torch.arange(n_cells).repeat(2, 1)], 1), torch.cat([-A_sym.values(), deg]), A_sym.shape
).coalesce()
z = torch.zeros(n_cells, 2, requires_grad=True)
opt = torch.optim.SGD([z], lr=0.05)
target = emb[:, :2].detach()
for step in range(3):
    loss = ((z - target) ** 2).sum() + 0.1 * (z * torch.sparse.mm(Lap, z)).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
print("smoothness", round((z * (Lap @ z)).sum().item(), 4), (Lap @ torch.ones(n_cells, 1)).abs().max().item())
try:
    torch.pca_lowrank(torch.zeros(2, 3, 2).to_sparse(), q=1)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.sparse.mm(P, torch.ones(5, 2))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.zeros(3).to_sparse().mH
except Exception as e:
    print(type(e).__name__, e)
