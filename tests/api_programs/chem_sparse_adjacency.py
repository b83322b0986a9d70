"""Bond graphs as sparse adjacency matrices: sparse_coo_tensor from edge lists with learnable bond weights
(grad_fn in the repr), duplicates summed by coalesce, symmetric normalisation D^-1/2 A D^-1/2 via torch.sparse.sum,
sparse.mm propagation with gradients to the edge values and the features, hybrid sparse tensors carrying bond
features, transposes and CSR conversion, torch.sparse.softmax over neighbours, and the sparse errors."""

import torch
nn = torch.nn

torch.manual_seed(0)

# benzene ring (6 carbons) + one substituent O on C0; edges listed both ways, one duplicated on purpose
ring = [(i, (i + 1) % 6) for i in range(6)] + [(0, 6)]
src = torch.tensor([a for a, b in ring] + [b for a, b in ring] + [0])
dst = torch.tensor([b for a, b in ring] + [a for a, b in ring] + [1])
n = 7
bond_order = torch.tensor([1.5] * 6 + [1.0] + [1.5] * 6 + [1.0] + [0.0])
w = nn.Parameter(torch.ones(src.numel()))

A = torch.sparse_coo_tensor(torch.stack([src, dst]), w * bond_order, (n, n))
print("A coalesced?", A.is_coalesced(), A._nnz(), A.layout, A.requires_grad, A.is_leaf)
print("A grad_fn", type(A.grad_fn).__name__)
Ac = A.coalesce()
print(Ac)
print("dense", Ac.to_dense().tolist()[0])

deg = torch.sparse.sum(Ac, dim=1).to_dense()
print("deg", deg.tolist(), type(deg.grad_fn).__name__)
dinv = deg.clamp_min(1e-12).pow(-0.5)
r, c = Ac.indices()
norm_vals = dinv[r] * Ac.values() * dinv[c]
An = torch.sparse_coo_tensor(Ac.indices(), norm_vals, (n, n)).coalesce()
print("norm vals", An.values().round(decimals=4).tolist()[:5])
print("symmetric", torch.allclose(An.to_dense(), An.t().to_dense()), type(An.t().grad_fn).__name__)

X = torch.randn(n, 4, requires_grad=True)
lin = nn.Linear(4, 3)
H = torch.sparse.mm(An, lin(X))
H2 = torch.relu(H)
out = torch.sparse.mm(An, H2).sum(0)
loss = out.pow(2).sum()
loss.backward()
print("H", H.shape, type(H.grad_fn).__name__, round(loss.item(), 4))
print("w.grad", w.grad.round(decimals=4).tolist())
print("X.grad", X.grad.abs().sum().round(decimals=4).item())

# the same with a dense matmul operand on the left (A @ X) and torch.mm
Y = An @ X
print("matmul", type(Y.grad_fn).__name__, torch.allclose(Y, An.to_dense() @ X, atol=1e-6))
print("mm", type(torch.mm(An, X).grad_fn).__name__)

# hybrid COO: each bond carries a 3-d feature vector
feat = torch.eye(3)[torch.tensor([1, 1, 1, 1, 1, 1, 0])].repeat(2, 1)
E = torch.sparse_coo_tensor(torch.stack([src[:-1], dst[:-1]]), feat, (n, n, 3)).coalesce()
print("hybrid", E.sparse_dim(), E.dense_dim(), E.shape, E.values().shape)
print("hybrid sum", torch.sparse.sum(E, dim=1).to_dense().tolist())
print("hybrid dense", E.to_dense()[0, 6].tolist(), E.to_dense()[1, 2].tolist())

# CSR for fast row access
csr = Ac.detach().to_sparse_csr()
print("crow", csr.crow_indices().tolist(), "col", csr.col_indices().tolist())
print("csr matvec", (csr @ torch.ones(n, 1)).squeeze(1).tolist())
print("csr back", torch.equal(csr.to_sparse_coo().to_dense(), Ac.detach().to_dense()))

# neighbour attention: sparse softmax per row
scores = torch.sparse_coo_tensor(Ac.indices(), torch.arange(float(Ac._nnz())) / 10, (n, n)).coalesce()
att = torch.sparse.softmax(scores, dim=1)
print("att row sums", torch.sparse.sum(att, dim=1).to_dense().round(decimals=4).tolist())
print("att", att.values().round(decimals=4).tolist()[:4], type(att.grad_fn).__name__ if att.grad_fn else None)
print("log_softmax", torch.sparse.log_softmax(scores, dim=0).values().round(decimals=4).tolist()[:3])

# elementwise arithmetic and the private parts
print("2A-A", torch.equal((Ac * 2 - Ac).to_dense(), Ac.to_dense()), type((Ac + Ac).grad_fn).__name__)
print("_values", Ac._values().requires_grad, Ac._indices().shape)
print("to_sparse", type(X.to_sparse().grad_fn).__name__, X.detach().to_sparse(1)._nnz())

for name, fn in {
    "values uncoalesced": lambda: A.values(),
    "mm shape": lambda: torch.sparse.mm(Ac, torch.ones(3, 2)),
    "sparse + dense": lambda: Ac + torch.ones(n, n),
    "nnz mismatch": lambda: torch.sparse_coo_tensor(torch.stack([src, dst]), torch.ones(3), (n, n)),
    "len size": lambda: torch.sparse_coo_tensor(torch.stack([src, dst]), torch.ones(src.numel()), (n,)),
    "negative index": lambda: torch.sparse_coo_tensor(torch.tensor([[0, -1]]), torch.ones(2), (3,),
                                                      check_invariants=True),
    "int requires_grad": lambda: torch.sparse_coo_tensor(torch.tensor([[0]]), torch.tensor([1]), (3,),
                                                         requires_grad=True),
}.items():
    try:
        fn()
        print(name, "ok")
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
try:
    Ac.view(-1)
except NotImplementedError as e:
    print("view", type(e).__name__, str(e)[:52])
