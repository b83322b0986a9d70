"""Spectral GNN code: Laplacians, ChebNet filters, APPNP propagation, label propagation and sparse autograd."""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

rng = np.random.default_rng(21)


def r(t, k=8):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


N, FIN, C = 8, 3, 2
# two 4-cliques joined by one bridge edge
blocks = [(i, j) for b in (0, 4) for i in range(b, b + 4) for j in range(b, b + 4) if i < j] + [(3, 4)]
und = torch.tensor(blocks).t()
ei = torch.cat([und, und.flip(0)], dim=1)
x = torch.from_numpy(rng.standard_normal((N, FIN)).astype(np.float32))

W = torch.zeros(N, N).index_put_((ei[0], ei[1]), torch.ones(ei.size(1)))
deg = W.sum(1)
L = torch.diag(deg) - W
Ln = torch.eye(N) - deg.rsqrt().unsqueeze(1) * W * deg.rsqrt().unsqueeze(0)
evals = torch.linalg.eigvalsh(Ln.double())
print("deg", deg.tolist(), "L trace", L.trace().item())
print("normalized eigenvalues", r(evals, 8))
print("fiedler sign split", (torch.linalg.eigh(L.double()).eigenvectors[:, 1] > 0).tolist().count(True))
lmax = evals.max().item()
print("lambda_max", round(lmax, 4), "connected components", int((evals.abs() < 1e-5).sum()))

# dense -> sparse round trip and hybrid sparse tensors with edge features
Ls = Ln.to_sparse()
print("Ln sparse nnz", Ls._nnz(), "sparse_dim", Ls.sparse_dim(), "dense_dim", Ls.dense_dim())
ef = torch.from_numpy(rng.standard_normal((ei.size(1), 2)).astype(np.float32))
H = torch.sparse_coo_tensor(ei, ef, (N, N, 2)).coalesce()
print("hybrid", tuple(H.shape), "values", tuple(H.values().shape), "dense sum", r(H.to_dense().sum((0, 1))))
print("sparse.sum dim1", r(torch.sparse.sum(H, dim=1).to_dense(), 6))
print("index_select", tuple(Ls.index_select(0, torch.tensor([0, 7])).shape),
      r(Ls.index_select(0, torch.tensor([0, 7])).to_dense(), 8))


class ChebConv(nn.Module):
    def __init__(self, fin, fout, K):
        super().__init__()
        self.lins = nn.ModuleList([nn.Linear(fin, fout, bias=False) for _ in range(K)])
        self.bias = nn.Parameter(torch.zeros(fout))

    def forward(self, x, L_hat):
        Tx0, out = x, self.lins[0](x)
        if len(self.lins) > 1:
            Tx1 = torch.sparse.mm(L_hat, x)
            out = out + self.lins[1](Tx1)
        for lin in self.lins[2:]:
            Tx2 = 2.0 * torch.sparse.mm(L_hat, Tx1) - Tx0
            out = out + lin(Tx2)
            Tx0, Tx1 = Tx1, Tx2
        return out + self.bias


L_hat = (2.0 / lmax * Ln - torch.eye(N)).to_sparse()
cheb = ChebConv(FIN, C, K=3)
with torch.no_grad():
    for lin in cheb.lins:
        lin.weight.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, (C, FIN)).astype(np.float32)))
out = cheb(x, L_hat)
print("cheb", tuple(out.shape), r(out))
out.pow(2).mean().backward()
print("cheb grads", [r(lin.weight.grad, 3) for lin in cheb.lins])


def appnp(h, A_norm, K=10, alpha=0.1):
    z = h
    for _ in range(K):
        z = (1 - alpha) * torch.sparse.mm(A_norm, z) + alpha * h
    return z


A_tilde = W + torch.eye(N)
d = A_tilde.sum(1).rsqrt()
A_norm = (d.unsqueeze(1) * A_tilde * d.unsqueeze(0)).to_sparse()
z = appnp(F.one_hot(torch.tensor([0, 7]), N).float().t(), A_norm)
print("ppr from 0", r(z[:, 0]), "from 7", r(z[:, 1]))
closed = 0.1 * torch.linalg.inv(torch.eye(N) - 0.9 * A_norm.to_dense())
print("power iteration ~ closed form", r((closed[:, [0, 7]] - z).abs().max().unsqueeze(0), 1))

# label propagation from two seeds
y = torch.full((N,), -1, dtype=torch.long)
y[0], y[7] = 0, 1
mask = y >= 0
Y = torch.zeros(N, C)
Y[mask] = F.one_hot(y[mask], C).float()
P = Y.clone()
for _ in range(20):
    P = torch.sparse.mm(A_norm, P)
    P[mask] = Y[mask]
    P = P / P.sum(1, keepdim=True).clamp(min=1e-12)
print("label prop", P.argmax(1).tolist(), r(P[:, 1]))

# autograd through sparse constructors: grad reaches the values and the leaf sparse tensor
vals = torch.from_numpy(rng.uniform(0.5, 1.5, ei.size(1)).astype(np.float32)).requires_grad_(True)
S = torch.sparse_coo_tensor(ei, vals, (N, N))
h = torch.sparse.mm(S, x)
(h ** 2).sum().backward()
print("vals.grad", r(vals.grad))
S2 = torch.sparse_coo_tensor(ei, vals.detach(), (N, N)).coalesce().requires_grad_(True)
torch.sparse.mm(S2, x).sum().backward()
print("S2.grad", S2.grad.layout, S2.grad.is_sparse, tuple(S2.grad.shape), r(S2.grad.to_dense()[0]))
D = S2.to_dense()
print("to_dense grad_fn", type(D.grad_fn).__name__, "sparse.sum", round(torch.sparse.sum(S2).item(), 4))
try:
    torch.sparse.mm(S2, torch.ones(N + 1, 2))
except RuntimeError as e:
    print("RuntimeError:", type(e).__name__)
try:
    S2.view(-1)
except (RuntimeError, NotImplementedError) as e:
    print(type(e).__name__)
print("OK")
