"""GraphSAGE-style neighbourhood aggregators on molecular graphs through CSR products: torch.sparse.mm(csr, X,
reduce) with sum/mean/amax/amin checked against scatter_reduce, gradients to the CSR values and the features,
a sparse adjacency kept as a module buffer through state_dict and torch.save/load, edge scores by
torch.sparse.sampled_addmm, and the errors of the reducing overload."""

import io

import torch
nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

# two molecules in one block-diagonal graph: methanol (C, O, 4 H) and ammonia (N, 3 H)
bonds = [(0, 1), (0, 2), (0, 3), (0, 4), (1, 5), (6, 7), (6, 8), (6, 9)]
src = torch.tensor([a for a, b in bonds] + [b for a, b in bonds])
dst = torch.tensor([b for a, b in bonds] + [a for a, b in bonds])
n = 10
order = torch.argsort(dst * n + src)
src, dst = src[order], dst[order]
crow = torch.zeros(n + 1, dtype=torch.long)
crow[1:] = torch.bincount(dst, minlength=n).cumsum(0)
w = torch.ones(src.numel())
A = torch.sparse_csr_tensor(crow, src, w, (n, n))
print("crow", A.crow_indices().tolist())
print("col", A.col_indices().tolist())
print("nnz", A._nnz(), A.layout, A.shape)

X = torch.randn(n, 4)
for reduce in ["sum", "mean", "amax", "amin"]:
    out = torch.sparse.mm(A, X, reduce)
    ref = torch.zeros(n, 4).scatter_reduce(0, dst[:, None].expand(-1, 4), X[src], reduce, include_self=False)
    print(reduce, torch.allclose(out, ref, atol=1e-6), out[0].round(decimals=4).tolist())
print("max alias", torch.equal(torch.sparse.mm(A, X, "max"), torch.sparse.mm(A, X, "amax")))
print("default", torch.allclose(torch.sparse.mm(A, X), torch.sparse.mm(A, X, "sum")))


class SAGE(nn.Module):
    def __init__(self, adj, d_in, d_out, aggr):
        super().__init__()
        self.register_buffer("adj", adj)
        self.aggr = aggr
        self.lin_self = nn.Linear(d_in, d_out)
        self.lin_nb = nn.Linear(d_in, d_out, bias=False)

    def forward(self, x):
        nb = torch.sparse.mm(self.adj, x, self.aggr)
        return F.normalize(self.lin_self(x) + self.lin_nb(nb), dim=-1)


layer = SAGE(A, 4, 3, "mean")
Xr = X.clone().requires_grad_(True)
h = layer(Xr)
print("h", tuple(h.shape), h.norm(dim=-1).round(decimals=4).tolist()[:3])
h.pow(3).sum().backward()
print("x grad", Xr.grad.abs().sum().round(decimals=4).item(),
      layer.lin_nb.weight.grad.abs().sum().round(decimals=4).item())

# learnable edge weights through the CSR values
wv = torch.rand(src.numel(), requires_grad=True)
for reduce in ["sum", "mean", "amax"]:
    Aw = torch.sparse_csr_tensor(crow, src, wv, (n, n))  # its node is freed by each autograd.grad
    out = torch.sparse.mm(Aw, X, reduce)
    (g,) = torch.autograd.grad(out.sum(), wv)
    print("edge grad", reduce, type(out.grad_fn).__name__, g.round(decimals=4).tolist()[:6])

# the adjacency buffer survives state_dict, save/load and a fresh module
sd = layer.state_dict()
print("state_dict", {k: (str(v.layout), tuple(v.shape)) for k, v in sd.items()})
buf = io.BytesIO()
torch.save(sd, buf)
buf.seek(0)
loaded = torch.load(buf, weights_only=True)
print("loaded adj", loaded["adj"].layout, loaded["adj"].crow_indices().tolist() == crow.tolist())
fresh = SAGE(torch.sparse_csr_tensor(torch.zeros(n + 1, dtype=torch.long), torch.zeros(0, dtype=torch.long),
                                     torch.zeros(0), (n, n)), 4, 3, "mean")
print("before", fresh.adj._nnz())
try:
    fresh.load_state_dict(loaded)
except RuntimeError as e:
    print("load", str(e).splitlines()[-1])
fresh.adj = torch.sparse_csr_tensor(crow, src, torch.zeros(src.numel()), (n, n))
fresh.load_state_dict(loaded)
print("after", fresh.adj._nnz(), torch.allclose(fresh(X), layer(X)))

# edge scores on the stored pattern: sampled_addmm computes (Q K^T) only where A is nonzero
Q, K = torch.randn(n, 8), torch.randn(n, 8)
S = torch.sparse.sampled_addmm(A, Q, K.T, beta=0.0, alpha=1 / 8 ** 0.5)
dense_scores = (Q @ K.T / 8 ** 0.5)[dst, src]
print("sampled", S.layout, torch.allclose(S.values(), dense_scores, atol=1e-5))
S2 = torch.sparse.sampled_addmm(A, Q, K.T)
print("sampled beta=1", torch.allclose(S2.values(), dense_scores * 8 ** 0.5 + 1, atol=1e-5))
att = torch.sparse.softmax(S.to_sparse_coo(), dim=1)
print("row-softmax sums", torch.sparse.sum(att, dim=1).to_dense().round(decimals=4).tolist())

for name, fn in {
    "coo reduce": lambda: torch.sparse.mm(A.to_sparse_coo(), X, "mean"),
    "coo sum given": lambda: torch.sparse.mm(A.to_sparse_coo(), X, "sum"),
    "prod": lambda: torch.sparse.mm(A, X, "prod"),
    "bad reduce": lambda: torch.sparse.mm(A, X, "median"),
    "shape": lambda: torch.sparse.mm(A, X[:5]),
    "sampled coo": lambda: torch.sparse.sampled_addmm(A.to_sparse_coo(), Q, K.T),
}.items():
    try:
        fn()
        print(name, "ok")
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0][:84])
