"""Sparse-tensor docstring examples: sparse_coo_tensor, coalesce, to_sparse/to_dense, sparse.sum/mm, CSR basics."""

import torch

i = torch.tensor([[0, 1, 1], [2, 0, 2]])
v = torch.tensor([3, 4, 5], dtype=torch.float32)
s = torch.sparse_coo_tensor(i, v, [2, 4])
print("coo", s)
print("coo attrs", s.is_sparse, s.layout, s.shape, s.dtype, s._nnz(), s.sparse_dim(), s.dense_dim(), s.is_coalesced())
print("to_dense", s.to_dense())
print("infer size", torch.sparse_coo_tensor(i, v).shape, torch.sparse_coo_tensor(i, v, dtype=torch.float64).dtype)
print(
    "empty sparse",
    torch.sparse_coo_tensor(torch.empty([1, 0]), [], [1]),
    torch.sparse_coo_tensor(torch.empty([1, 0]), torch.empty([0, 2]), [1, 2]).shape,
)
dup = torch.sparse_coo_tensor(torch.tensor([[0, 0, 1], [1, 1, 0]]), torch.tensor([1.0, 2.0, 3.0]), (2, 2))
print("uncoalesced", dup.is_coalesced(), dup._nnz(), dup.to_dense())
c = dup.coalesce()
print("coalesce", c.is_coalesced(), c._nnz(), c.indices(), c.values())
print(
    "hybrid", torch.sparse_coo_tensor(torch.tensor([[0, 2]]), torch.tensor([[1.0, 2.0], [3.0, 4.0]]), (3, 2)).to_dense()
)
d = torch.tensor([[0.0, 0.0, 1.5], [2.0, 0.0, 0.0]])
sp = d.to_sparse()
print("to_sparse", sp.indices(), sp.values(), sp.shape, d.to_sparse(sparse_dim=1).values())
print(
    "sparse ops",
    (sp * 2).to_dense(),
    (sp + sp).to_dense(),
    torch.sparse.sum(sp),
    torch.sparse.sum(sp, dim=0).to_dense(),
)
print("sparse mm", torch.sparse.mm(sp, torch.ones(3, 2)), torch.mm(sp, torch.eye(3)).layout, (sp @ torch.ones(3)).shape)
print("sparse addmm", torch.sparse.addmm(torch.ones(2, 2), sp, torch.ones(3, 2), beta=0.5, alpha=2.0))
print("sparse t", sp.t().to_dense(), sp.transpose(0, 1).shape, sp.coalesce().indices().dtype)
print("sparse softmax", torch.sparse.softmax(sp, dim=1).to_dense())
print("sparse sum dims", torch.sparse.sum(c, dim=(0, 1)), c.sum(), c.to_dense().sum(1))
csr = d.to_sparse_csr()
print("csr", csr.crow_indices(), csr.col_indices(), csr.values(), csr.layout, csr.to_dense())
ct = torch.sparse_csr_tensor(
    torch.tensor([0, 2, 4]), torch.tensor([0, 1, 0, 1]), torch.tensor([1.0, 2.0, 3.0, 4.0]), dtype=torch.float64
)
print("sparse_csr_tensor", ct.to_dense(), ct.shape, ct.dtype, (ct @ torch.ones(2, dtype=torch.float64)))
print("csr to coo", csr.to_sparse().indices(), csr.to_sparse_coo().values())
g = torch.sparse_coo_tensor(i, v, [2, 4], requires_grad=True)
(torch.sparse.mm(g, torch.ones(4, 1))).sum().backward()
print("sparse grad", g.grad.layout, g.grad.to_dense())
print(
    "sparse zeros",
    torch.zeros(2, 3, layout=torch.sparse_coo)._nnz(),
    torch.sparse_coo_tensor(size=(2, 3)).to_dense().sum(),
)
print("sparse indexing", c.to_dense()[1], sp.to_dense()[1, 0])
print("sparse resize", sp.coalesce().values().shape, torch.sparse.sum(sp, dim=1).values(), sp.is_sparse_csr)
for bad in [
    lambda: torch.sparse_coo_tensor(torch.tensor([[0, 1]]), torch.tensor([1.0]), (3,)),
    lambda: dup.indices(),
    lambda: torch.sparse.mm(sp, torch.ones(2, 2)),
    lambda: csr.indices(),
    lambda: torch.ones(2, layout=torch.sparse_coo),
    lambda: torch.zeros(3, layout="strided"),
    lambda: torch.zeros(2, layout=torch.strided, dtype=torch.int8),
    lambda: sp.crow_indices(),
]:
    try:
        out = bad()
        print("ok", out)
    except Exception as e:
        print(type(e).__name__, ":", str(e).split("\n")[0])
