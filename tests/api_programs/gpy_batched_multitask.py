"""Batched independent multi-output GPs and an intrinsic-coregionalisation multitask GP: batch-shaped raw
hyperparameters, batched Cholesky/cholesky_solve with broadcasting, Kronecker structure, and batched MLL fits."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(8)
torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64

n, t = 15, 3
x = torch.linspace(0, 1, n, dtype=f64).unsqueeze(-1)
Y = torch.stack([torch.sin(6 * x[:, 0]), torch.cos(6 * x[:, 0]), x[:, 0] ** 2], 0) + 0.05 * torch.randn(t, n, dtype=f64)
print("Y", tuple(Y.shape))

raw_ls = torch.zeros(t, 1, 1, dtype=f64, requires_grad=True)
raw_os = torch.zeros(t, 1, 1, dtype=f64, requires_grad=True)
raw_noise = torch.full((t, 1), -3.0, dtype=f64, requires_grad=True)


def batch_kernel(a, b):
    ls, os_ = F.softplus(raw_ls), F.softplus(raw_os)
    d2 = (a.unsqueeze(-2) - b.unsqueeze(-3)).pow(2).sum(-1)  # n x m
    return os_ * torch.exp(-0.5 * d2.unsqueeze(0) / ls**2)  # t x n x m


def batch_mll():
    K = batch_kernel(x, x)
    K = K + torch.diag_embed(F.softplus(raw_noise).expand(t, n))
    L = torch.linalg.cholesky(K)
    alpha = torch.cholesky_solve(Y.unsqueeze(-1), L)
    quad = (Y.unsqueeze(-1) * alpha).sum((-1, -2))
    logdet = 2 * L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    return -0.5 * (quad + logdet + n * math.log(2 * math.pi)) / n


m = batch_mll()
print("batch mll", m.round(decimals=4), m.shape)
opt = torch.optim.Adam([raw_ls, raw_os, raw_noise], lr=0.05)
for it in range(50):
    opt.zero_grad()
    loss = -batch_mll().sum()
    loss.backward()
    opt.step()
print("fitted ls", F.softplus(raw_ls).detach().flatten().round(decimals=3))
print("fitted noise", F.softplus(raw_noise).detach().flatten().round(decimals=4))
print("grad shapes", raw_ls.grad.shape, raw_noise.grad.shape)

K = batch_kernel(x, x).detach() + 1e-4 * torch.eye(n, dtype=f64)
L = torch.linalg.cholesky(K)
shared = torch.randn(n, 2, dtype=f64)
sol = torch.cholesky_solve(shared, L)  # broadcast one rhs across the batch
print("broadcast solve", tuple(sol.shape), sol.stride())
ref = torch.stack([torch.linalg.solve(K[i], shared) for i in range(t)])
print("matches per-task", torch.allclose(sol, ref, atol=1e-6))
try:
    torch.cholesky_solve(torch.randn(2, n, 1, dtype=f64), L)
except RuntimeError as e:
    print(type(e).__name__, e)

# ICM: K = B kron Kx with B = W W^T + diag(v)
W = torch.randn(t, 1, dtype=f64)
v = torch.tensor([0.1, 0.2, 0.3], dtype=f64)
B = W @ W.mT + torch.diag(v)
Kx = torch.exp(-0.5 * torch.cdist(x, x).pow(2) / 0.2**2)
Kfull = torch.kron(B, Kx) + 0.01 * torch.eye(n * t, dtype=f64)
print("kron", tuple(Kfull.shape), "sym", torch.allclose(Kfull, Kfull.mT))
eB, QB = torch.linalg.eigh(B)
eK, QK = torch.linalg.eigh(Kx)
lam = (eB.unsqueeze(-1) * eK.unsqueeze(0)).reshape(-1) + 0.01
print("kron logdet", round(lam.log().sum().item(), 3), round(torch.logdet(Kfull).item(), 3))
y = Y.reshape(-1)
Qy = (QB.mT @ Y @ QK).reshape(-1)
alpha_fast = (QB @ (Qy / lam).reshape(t, n) @ QK.mT).reshape(-1)
print("kron solve", torch.allclose(alpha_fast, torch.linalg.solve(Kfull, y), atol=1e-6))
vals = torch.linalg.eigvalsh(torch.stack([B, Kx[:t, :t]]))
print("batched eigvalsh", vals.shape, vals.stride())
print(
    "expand batch",
    Kx.expand(t, n, n).is_contiguous(),
    torch.linalg.cholesky(Kx.expand(t, n, n) + torch.eye(n, dtype=f64)).stride(),
)
