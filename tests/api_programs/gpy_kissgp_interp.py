"""KISS-GP / SKI by hand: a regular inducing grid, cubic convolution interpolation weights found with
searchsorted, a sparse interpolation matrix W, Toeplitz MVMs through the FFT, and W K_grid W^T against the exact K."""

import math

import torch

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(7)
f64 = torch.float64


def cubic_weight(s):
    s = s.abs()
    w = torch.zeros_like(s)
    m1 = s <= 1
    m2 = (s > 1) & (s < 2)
    w = torch.where(m1, 1.5 * s**3 - 2.5 * s**2 + 1, w)
    w = torch.where(m2, -0.5 * s**3 + 2.5 * s**2 - 4 * s + 2, w)
    return w


def interp_indices(x, grid):
    h = grid[1] - grid[0]
    left = torch.searchsorted(grid, x, right=True) - 1
    offsets = torch.arange(-1, 3)
    idx = (left.unsqueeze(-1) + offsets).clamp(0, grid.numel() - 1)
    s = (x.unsqueeze(-1) - grid[idx]) / h
    return idx, cubic_weight(s)


grid = torch.linspace(-0.2, 1.2, 30, dtype=f64)
x = torch.rand(12, dtype=f64).sort().values
idx, w = interp_indices(x, grid)
print("idx", idx[:3].tolist(), idx.dtype, "w rows sum", w.sum(-1).round(decimals=6)[:4].tolist())
rows = torch.arange(12).unsqueeze(-1).expand_as(idx)
W = torch.sparse_coo_tensor(torch.stack([rows.reshape(-1), idx.reshape(-1)]), w.reshape(-1), (12, 30))
print(W.layout, W.is_coalesced(), W._nnz(), W.dtype)
Wc = W.coalesce()
print("coalesced nnz", Wc._nnz(), Wc.indices().shape, Wc.values().shape)
print("bucketize", torch.bucketize(x[:4], grid).tolist(), torch.bucketize(x[:4], grid, out_int32=True).dtype)


def rbf(a, b, ls=0.2):
    return torch.exp(-0.5 * (a.unsqueeze(-1) - b.unsqueeze(-2)).pow(2) / ls**2)


col = rbf(grid[:1], grid)[0]  # first column of the symmetric Toeplitz K_grid


def toeplitz_mv(c, v):
    n = c.numel()
    circ = torch.cat([c, c.new_zeros(1), c[1:].flip(0)])
    vpad = torch.cat([v, v.new_zeros(n, *v.shape[1:])])
    out = torch.fft.irfft(torch.fft.rfft(circ).unsqueeze(-1) * torch.fft.rfft(vpad, dim=0), n=2 * n, dim=0)
    return out[:n]


Kg = rbf(grid, grid)
v = torch.randn(30, 2, dtype=f64)
print("toeplitz mv err", (toeplitz_mv(col, v) - Kg @ v).abs().max().item() < 1e-10)
Kski = torch.sparse.mm(W, (torch.sparse.mm(W, Kg)).t())
Kexact = rbf(x, x)
print("ski err", round((Kski - Kexact).abs().max().item(), 4), Kski.shape, Kski.layout)
print("Wt @ y", (W.t() @ torch.ones(12, dtype=f64)).sum().round(decimals=4).item())
dense = W.to_dense()
print("to_dense rows", dense.sum(-1).round(decimals=4)[:3].tolist(), (dense != 0).sum(-1)[:3].tolist())
# MVM with the SKI kernel without forming it
y = torch.sin(4 * x)
Ky = W @ toeplitz_mv(col, (W.t() @ y.unsqueeze(-1)))
print("ski mvm", (Ky.squeeze(-1) - Kexact @ y).abs().max().item() < 0.05)
# gradient of interpolated values w.r.t. grid values
u = torch.randn(30, dtype=f64, requires_grad=True)
fx = torch.sparse.mm(W, u.unsqueeze(-1)).squeeze(-1)
fx.pow(2).sum().backward()
print("u.grad nonzero", int((u.grad != 0).sum()), round(u.grad.abs().sum().item(), 4))
Wcsr = dense.to_sparse_csr()
print("csr", Wcsr.layout, Wcsr.crow_indices()[:4].tolist(), torch.allclose(Wcsr @ u.detach(), fx.detach()))
kron = torch.kron(rbf(grid[:3], grid[:3]), torch.eye(2, dtype=f64))
print("kron", kron.shape, kron[1, :4].round(decimals=4))
try:
    torch.sparse.mm(W, torch.randn(29, 1, dtype=f64))
except RuntimeError as e:
    print(type(e).__name__, e)
print(torch.searchsorted(grid, torch.tensor([[-1.0, 0.5], [2.0, 1.2]], dtype=f64), side="right"))
try:
    torch.searchsorted(grid.flip(0).unsqueeze(0).expand(2, -1), torch.tensor([0.5], dtype=f64))
except RuntimeError as e:
    print(type(e).__name__, e)
print(
    "grid spacing", round((grid[1] - grid[0]).item() * 29, 4), math.isclose(grid.diff().std().item(), 0, abs_tol=1e-12)
)
