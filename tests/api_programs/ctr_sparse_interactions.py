"""User-item interaction matrices as sparse COO/CSR tensors: construction, reprs, spmm, row sums, sparse grads."""

import torch
from torch import nn

torch.manual_seed(0)

users = torch.tensor([0, 0, 1, 2, 2, 2, 3, 0])
items = torch.tensor([1, 3, 0, 1, 2, 3, 4, 1])
clicks = torch.tensor([1.0, 2.0, 1.0, 1.0, 3.0, 1.0, 2.0, 1.0])
R = torch.sparse_coo_tensor(torch.stack([users, items]), clicks, (4, 5))
print(R)
print("coalesced?", R.is_coalesced(), "nnz", R._nnz())
Rc = R.coalesce()
print(Rc)
print("indices", Rc.indices().tolist(), "values", Rc.values().tolist())
print("dense", Rc.to_dense().tolist())

# row-normalised (per-user) weights and item popularity
row_sum = torch.sparse.sum(Rc, dim=1).to_dense()
col_sum = torch.sparse.sum(Rc, dim=0)
print("row sums", row_sum.tolist(), "col sums layout", col_sum.layout, col_sum.to_dense().tolist())
print("total", torch.sparse.sum(Rc).item())
norm_vals = Rc.values() / row_sum[Rc.indices()[0]]
Rn = torch.sparse_coo_tensor(Rc.indices(), norm_vals, Rc.shape)
print("normalised", Rn.to_dense().round(decimals=4).tolist())

# spmm: user profile = R @ item embeddings, with gradient into the dense factor
item_emb = nn.Parameter(torch.randn(5, 3))
profile = torch.sparse.mm(Rn, item_emb)
print("profile", profile.shape, profile.grad_fn.name(), profile.round(decimals=4).tolist()[0])
print("matches dense", torch.allclose(profile, Rn.to_dense() @ item_emb, atol=1e-6))
profile.sum().backward()
print("item grad", item_emb.grad.round(decimals=4).tolist())
print("torch.mm sparse", torch.allclose(torch.mm(Rn, item_emb), profile))
print(
    "addmm",
    torch.sparse.addmm(torch.ones(4, 3), Rn, item_emb.detach(), beta=0.5, alpha=2.0).round(decimals=4)[0].tolist(),
)

# CSR form for row slicing
Rcsr = Rc.to_sparse_csr()
print(Rcsr)
print("crow", Rcsr.crow_indices().tolist(), "col", Rcsr.col_indices().tolist())
print("csr @ dense", torch.allclose(Rcsr @ item_emb.detach(), Rc.to_dense() @ item_emb.detach(), atol=1e-6))
print("back to dense", torch.equal(Rcsr.to_dense(), Rc.to_dense()))
csr = torch.sparse_csr_tensor(
    torch.tensor([0, 2, 2, 3]), torch.tensor([0, 2, 1]), torch.tensor([1.0, 2.0, 3.0]), (3, 3)
)
print(csr.to_dense().tolist(), csr.layout)

# dense -> sparse and elementwise ops that keep sparsity
D = torch.tensor([[0.0, 2.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, -3.0]])
S = D.to_sparse()
print("to_sparse", S.indices().tolist(), S.values().tolist(), S.sparse_dim())
print("mul scalar", (S * 2).to_dense().tolist(), "add", (S + S).coalesce().values().tolist())
print("transpose", S.t().coalesce().indices().tolist())
print("sparse_dim=1", D.to_sparse(1).values().shape)
print("index_select", S.index_select(0, torch.tensor([2, 0])).to_dense().tolist())
print("abs/neg", S.abs().coalesce().values().tolist(), (-S).coalesce().values().tolist())

# uncoalesced duplicates sum on coalesce
dup = torch.sparse_coo_tensor(torch.tensor([[0, 0, 1], [1, 1, 0]]), torch.tensor([1.0, 4.0, 2.0]), (2, 2))
print("dup dense", dup.to_dense().tolist(), dup.coalesce().values().tolist())
print("empty", torch.sparse_coo_tensor(torch.zeros(2, 0, dtype=torch.long), torch.zeros(0), (2, 3)))
print("hybrid", torch.sparse_coo_tensor(torch.tensor([[0, 2]]), torch.ones(2, 3), (4, 3)).to_dense().sum(1).tolist())

for fn in (
    lambda: torch.sparse_coo_tensor(torch.tensor([[0, 1]]), torch.ones(3), (3,)),
    lambda: torch.sparse.mm(Rc, torch.randn(4, 3)),
    lambda: R.indices(),
):
    try:
        fn()
        print("no error")
    except Exception as e:
        print(type(e).__name__, e)
