"""Multi-hop sparse adjacency code: A @ A neighbourhoods, row slicing, typed casts, sparse grad_fns (MixHop)."""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

rng = np.random.default_rng(29)


def r(t, k=8):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


N, FIN = 7, 3
und = torch.tensor([[0, 1, 2, 3, 4, 5, 0], [1, 2, 3, 4, 5, 6, 3]])
ei = torch.cat([und, und.flip(0)], dim=1)
A = torch.sparse_coo_tensor(ei, torch.ones(ei.size(1)), (N, N)).coalesce()
print("A type", A.type(), "nnz", A._nnz())

A2 = torch.sparse.mm(A, A)
print("A2", A2.layout, A2.is_coalesced(), A2._nnz(), "row0", A2.to_dense()[0].tolist())
A3 = A2 @ A
print("A3 diag", torch.diagonal(A3.to_dense()).tolist(), "walks", int(torch.sparse.sum(A3).item()))
print("A@A == dense", torch.equal(A2.to_dense(), A.to_dense() @ A.to_dense()))

# 2-hop reachability without self: boolean/int views of the sparse products
reach = (A2.to_dense() > 0) & ~torch.eye(N, dtype=torch.bool)
print("2-hop counts", reach.sum(1).tolist())
Ai = A.long()
print("A long", Ai.dtype, Ai.type(), Ai._values()[:4].tolist(), "bool", A.bool().to_dense()[0].tolist())
print("A2 int", A2.int()._values().tolist())

# slicing rows and columns of a sparse adjacency
rows = A.index_select(0, torch.tensor([0, 3]))
print("rows", tuple(rows.shape), rows.is_coalesced(), rows._indices().tolist())
cols = torch.index_select(A2, 1, torch.tensor([6, 0]))
print("cols", tuple(cols.shape), cols._indices().tolist(), cols._values().tolist())
Z = torch.zeros_like(A)
print("zeros_like", Z.layout, Z._nnz(), tuple(Z.shape), "empty_like", torch.empty_like(A).is_sparse)
try:
    torch.ones_like(A)
except NotImplementedError as e:
    print("NotImplementedError", str(e).split(" with ")[0])


class MixHop(nn.Module):
    """MixHop: concatenate A^p X W_p for p in powers, propagating with sparse products."""

    def __init__(self, fin, fout, powers=(0, 1, 2)):
        super().__init__()
        self.powers = powers
        self.lins = nn.ModuleList([nn.Linear(fin, fout, bias=False) for _ in powers])

    def forward(self, x, adj):
        outs, h, p_done = [], x, 0
        for p, lin in zip(self.powers, self.lins):
            while p_done < p:
                h = torch.sparse.mm(adj, h)
                p_done += 1
            outs.append(lin(h))
        return torch.cat(outs, dim=1)


deg = torch.sparse.sum(A, dim=1).to_dense() + 1
dinv = deg.rsqrt()
I = torch.sparse_coo_tensor(torch.arange(N).repeat(2, 1), torch.ones(N), (N, N))
A_hat = (A + I).coalesce()
idx = A_hat.indices()
A_norm = torch.sparse_coo_tensor(idx, dinv[idx[0]] * A_hat.values() * dinv[idx[1]], (N, N)).coalesce()
model = MixHop(FIN, 2)
with torch.no_grad():
    for lin in model.lins:
        lin.weight.copy_(torch.from_numpy(rng.uniform(-0.6, 0.6, (2, FIN)).astype(np.float32)))
x = torch.from_numpy(rng.standard_normal((N, FIN)).astype(np.float32))
out = model(x, A_norm)
print("mixhop", tuple(out.shape), r(out))
F.mse_loss(out, torch.zeros_like(out)).backward()
print("mixhop grads", [r(l.weight.grad, 3) for l in model.lins])

# a learnable edge weighting: gradients through coalesce, sparse @ sparse and sparse.sum
w = torch.from_numpy(rng.uniform(0.5, 1.5, ei.size(1)).astype(np.float32)).requires_grad_(True)
W = torch.sparse_coo_tensor(ei, w, (N, N))
Wc = W.coalesce()
W2 = torch.sparse.mm(Wc, Wc)
s_rows = torch.sparse.sum(W2, dim=1)
soft = torch.sparse.softmax(Wc, dim=1)
print("grad_fns", [type(t.grad_fn).__name__ for t in (Wc, W2, Wc @ Wc, s_rows, soft, torch.sparse.log_softmax(Wc, 1))])
loss = s_rows.to_dense().pow(2).sum() + (soft.to_dense() * torch.arange(N).float()).sum()
loss.backward()
print("loss", round(loss.item(), 4), "w.grad", r(w.grad, 10))
print("OK")
