"""PaDiM (Defard et al.) per-position multivariate Gaussians: random channel selection with index_select on
concatenated interpolated feature maps, mean/covariance by einsum and torch.cov (with weights and correction),
the 0.01*I regulariser, Mahalanobis maps via linalg.inv, solve, cholesky_solve and solve_triangular."""

import warnings

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

B, H, W = 12, 4, 4
f1 = torch.randn(B, 6, H, W)
f2 = torch.randn(B, 8, H // 2, W // 2)
emb = torch.cat([f1, F.interpolate(f2, size=(H, W), mode="nearest")], dim=1)
print("emb", emb.shape, emb.is_contiguous())
g = torch.Generator().manual_seed(1024)
idx = torch.randperm(emb.shape[1], generator=g)[:5]
idx_sorted = torch.sort(idx).values
print("idx", idx.tolist(), idx_sorted.tolist())
emb = torch.index_select(emb, 1, idx)
b, c, h, w = emb.size()
e = emb.view(b, c, h * w)
mean = torch.mean(e, dim=0)
cov = torch.zeros(c, c, h * w)
I = torch.eye(c)
for i in range(h * w):
    cov[:, :, i] = torch.cov(e[:, :, i].T) + 0.01 * I
print("mean", mean.shape, mean[:, 0])
print("cov[:, :, 0]", cov[:, :, 0])

# einsum version of the same covariance (a vectorised rewrite used in anomalib)
centered = e - mean
cov2 = torch.einsum("bcn,bdn->cdn", centered, centered) / (b - 1) + 0.01 * I.unsqueeze(-1)
print("einsum cov equal", torch.allclose(cov, cov2, atol=1e-5))
cov_np = cov.permute(2, 0, 1)
print("permuted", cov_np.shape, cov_np.stride(), cov_np.is_contiguous())
inv = torch.linalg.inv(cov_np)
print("inv stride", inv.shape, inv.stride())

# mahalanobis per position for a test batch
t = torch.randn(3, c, h * w) * torch.tensor([1.0, 1.0, 3.0]).view(3, 1, 1)
delta = (t - mean).permute(2, 0, 1)
d_inv = torch.sqrt(torch.einsum("nbc,ncd,nbd->nb", delta, inv, delta))
sol = torch.linalg.solve(cov_np, delta.transpose(1, 2))
d_solve = torch.sqrt((delta.transpose(1, 2) * sol).sum(1))
L = torch.linalg.cholesky(cov_np)
z = torch.linalg.solve_triangular(L, delta.transpose(1, 2), upper=False)
d_chol = z.norm(dim=1)
y = torch.cholesky_solve(delta.transpose(1, 2), L)
d_cs = torch.sqrt((delta.transpose(1, 2) * y).sum(1))
print("dist", d_inv.T.reshape(3, h, w)[:, 0])
print(
    "agree",
    torch.allclose(d_inv, d_solve, atol=1e-4),
    torch.allclose(d_inv, d_chol, atol=1e-4),
    torch.allclose(d_inv, d_cs, atol=1e-4),
)
score_map = d_inv.T.reshape(3, 1, h, w)
up = F.interpolate(score_map, size=8, mode="bilinear", align_corners=False)
print("up", up.shape, up[:, 0, 0, :3])
print("image scores", up.flatten(1).max(1).values)
print("solve left=False", torch.linalg.solve(cov_np[0], delta[0], left=False).shape)

# torch.cov corners
x = torch.tensor([[0.0, 1.0, 2.0, 4.0], [1.0, 0.5, 3.0, 1.0]])
print(torch.cov(x), torch.cov(x, correction=0), torch.cov(x[0]))
fw = torch.tensor([1, 2, 1, 3])
aw = torch.tensor([0.5, 1.0, 2.0, 1.0])
print(torch.cov(x, fweights=fw), torch.cov(x, aweights=aw), torch.cov(x, fweights=fw, aweights=aw, correction=2))
print(torch.corrcoef(x), torch.cov(x.double()).dtype, torch.cov(torch.tensor([[1, 2, 4]])).dtype)

with warnings.catch_warnings(record=True) as ws:
    warnings.simplefilter("always")
    print(torch.cov(torch.tensor([[1.0, 2.0]]), correction=3), [str(m.message).split(" (Triggered")[0] for m in ws])
for bad in [
    dict(fweights=torch.tensor([1.0, 2, 1, 3])),
    dict(fweights=torch.tensor([1, -2, 1, 3])),
    dict(aweights=torch.tensor([1.0, 2.0])),
    dict(aweights=torch.tensor([1.0, -1, 1, 1])),
]:
    try:
        torch.cov(x, **bad)
    except RuntimeError as err:
        print("RuntimeError", err)
try:
    torch.cov(torch.zeros(2, 2, 2))
except RuntimeError as err:
    print("RuntimeError", err)
try:
    torch.linalg.cholesky(torch.tensor([[1.0, 2.0], [2.0, 1.0]]))
except RuntimeError as err:
    print(type(err).__name__, err)
try:
    torch.linalg.inv(torch.zeros(2, 3, 3))
except RuntimeError as err:
    print(type(err).__name__, err)
Lx, info = torch.linalg.cholesky_ex(torch.tensor([[[4.0, 2.0], [2.0, 1.0]], [[1.0, 0.0], [0.0, 2.0]]]))
print(info, info.dtype)
inv_x, info2 = torch.linalg.inv_ex(torch.tensor([[1.0, 2.0], [2.0, 4.0]]))
print(info2)
