"""CSR as scipy-minded code uses it: row pointers, conversions, reprs and products."""

import torch

torch.set_printoptions(precision=4)

D = torch.tensor([[1.0, 0.0, 2.0, 0.0],
                  [0.0, 0.0, 3.0, 0.0],
                  [4.0, 5.0, 0.0, 6.0]])

csr = D.to_sparse_csr()
print(csr)
print("layout", csr.layout, "is_sparse", csr.is_sparse, "is_sparse_csr", csr.is_sparse_csr)
print("crow", csr.crow_indices().tolist(), "col", csr.col_indices().tolist())
print("values", csr.values().tolist(), "nnz", csr._nnz(), "shape", tuple(csr.shape))
print("round trip", torch.equal(csr.to_dense(), D))

# per-row counts from the row pointers (a common degree computation)
crow = csr.crow_indices()
print("row nnz", (crow[1:] - crow[:-1]).tolist())

# build CSR from parts, as a graph loader does from an edge list sorted by source
crow2 = torch.tensor([0, 2, 3, 5])
col2 = torch.tensor([0, 2, 1, 0, 2])
val2 = torch.tensor([0.5, -1.0, 2.0, 1.5, 0.25])
A = torch.sparse_csr_tensor(crow2, col2, val2, (3, 3))
print(A)
print("A dense\n", A.to_dense())
print("A dtype", A.dtype, "index dtype", A.crow_indices().dtype)

# CSR with float64 values and explicit dtype
A64 = torch.sparse_csr_tensor(crow2, col2, val2, (3, 3), dtype=torch.float64)
print("A64", A64.dtype, A64.values().dtype)

# CSR -> COO and COO -> CSR
coo = A.to_sparse()
print("to_sparse", coo.layout, coo.is_coalesced(), coo.indices().tolist())
print("to_sparse_coo", A.to_sparse_coo().layout)
back = coo.to_sparse_csr()
print("coo->csr crow", back.crow_indices().tolist(), "col", back.col_indices().tolist())

# products with a dense matrix
torch.manual_seed(0)
X = torch.randn(4, 2)
print("csr @ X\n", csr @ X)
print("matches dense", torch.allclose(csr @ X, D @ X))
print("torch.mm(csr, X)", torch.allclose(torch.mm(csr, X), D @ X))
print("sparse.mm", torch.allclose(torch.sparse.mm(csr, X), D @ X))
v = torch.tensor([1.0, -1.0, 0.5, 2.0])
print("csr @ v", (csr @ v).tolist())
print("addmm", torch.sparse.addmm(torch.ones(3, 2), csr, X, beta=0.5, alpha=2.0))

# scalar ops and sums stay within CSR
print("csr * 2 layout", (csr * 2).layout, (csr * 2).values().tolist())
try:
    csr / 4
except RuntimeError as e:
    print("csr / 4 RuntimeError:", e)
print("neg", (-csr).values().tolist())
print("sum", csr.sum().item())

# CSR validation errors, as from a malformed loader
try:
    torch.sparse_csr_tensor(torch.tensor([0, 2, 1]), torch.tensor([0, 1]), torch.tensor([1.0, 2.0]), (2, 2),
                            check_invariants=True)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.sparse_csr_tensor(torch.tensor([1, 2, 2]), torch.tensor([0, 1]), torch.tensor([1.0, 2.0]), (2, 2),
                            check_invariants=True)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.sparse_csr_tensor(torch.tensor([0, 1, 2]), torch.tensor([0, 3]), torch.tensor([1.0, 2.0]), (2, 2),
                            check_invariants=True)
except RuntimeError as e:
    print("RuntimeError:", e)

# conversion of an empty row / all-zero matrix
Z = torch.zeros(3, 2).to_sparse_csr()
print("zeros csr", Z.crow_indices().tolist(), Z._nnz())
print("clone", torch.equal(A.clone().to_dense(), A.to_dense()), "detach", A.detach().layout)
print("to double", A.to(torch.float64).dtype, A.double().values().dtype)
