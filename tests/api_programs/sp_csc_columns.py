"""Column-compressed (CSC) matrices as solver and scipy-ported code uses them: parts, conversions, transposes."""

import torch

torch.set_printoptions(precision=4)
torch.manual_seed(0)

D = torch.tensor([[1.0, 0.0, 2.0, 0.0],
                  [0.0, 0.0, 3.0, 0.0],
                  [4.0, 5.0, 0.0, 6.0]])

csc = D.to_sparse_csc()
print(csc)
print("layout", csc.layout, "is_sparse", csc.is_sparse, "is_sparse_csr", csc.is_sparse_csr)
print("ccol", csc.ccol_indices().tolist(), "row", csc.row_indices().tolist())
print("values", csc.values().tolist(), "nnz", csc._nnz(), "dims", csc.sparse_dim(), csc.dense_dim())
print("round trip", torch.equal(csc.to_dense(), D))
ccol = csc.ccol_indices()
print("column nnz", (ccol[1:] - ccol[:-1]).tolist())

# scipy-style construction from column pointers (as a CSC matrix exported from scipy.sparse)
indptr = torch.tensor([0, 2, 3, 5])
indices = torch.tensor([0, 2, 1, 0, 2])
data = torch.tensor([0.5, -1.0, 2.0, 1.5, 0.25], dtype=torch.float64)
M = torch.sparse_csc_tensor(indptr, indices, data, (3, 3))
print(M)
print("M dense\n", M.to_dense())
print("inferred size", tuple(torch.sparse_csc_tensor(indptr, indices, data).shape))

# conversions between the three sparse layouts
coo = M.to_sparse()
print("to COO", coo.layout, coo._indices().tolist(), coo._values().tolist())
print("coalesced", coo.coalesce().indices().tolist())
csr = M.to_sparse_csr()
print("to CSR", csr.crow_indices().tolist(), csr.col_indices().tolist(), csr.values().tolist())
print("CSR back to CSC", csr.to_sparse_csc().ccol_indices().tolist())
print("COO to CSC", coo.to_sparse_csc().row_indices().tolist())
print("dense to_sparse(layout=csc)", D.to_sparse(layout=torch.sparse_csc).layout)

# the transpose of a CSR matrix is CSC over the same arrays, and back
Ct = csr.t()
print(Ct)
print("CSR.t() layout", Ct.layout, "equal", torch.equal(Ct.to_dense(), M.to_dense().t()))
print("CSC.t() layout", M.t().layout, M.t().crow_indices().tolist())
print("transpose(0, 1)", M.transpose(0, 1).layout)

# products with dense operands
X = torch.randn(4, 2)
print("csc @ X\n", csc @ X)
print("matches dense", torch.allclose(csc @ X, D @ X, atol=1e-6))
print("torch.mm", torch.allclose(torch.mm(csc, X), D @ X, atol=1e-6))
print("sparse.mm", torch.allclose(torch.sparse.mm(csc, X), D @ X, atol=1e-6))
print("csc @ v", (csc @ torch.tensor([1.0, -1.0, 0.5, 2.0])).tolist())
print("dense @ csc", (torch.ones(2, 3) @ csc).tolist())
print("addmm", torch.addmm(torch.ones(3, 2), csc, X, beta=0.5))

# columns as a basis: A^T A via the CSC and its CSR transpose
gram = torch.sparse.mm(csc.t().to_sparse_csr(), D)
print("gram\n", gram)

# values-only ops keep the layout
print("scaled", (csc * 2).values().tolist(), (csc * 2).layout)
print("negated", (-csc).values().tolist())
print("abs layout", csc.abs().layout, "sum", csc.sum().item())
print("double", csc.double().dtype, csc.double().layout)
print("clone equal", torch.equal(csc.clone().to_dense(), D), "detach", csc.detach().layout)

# gradients reach the stored values
w = torch.tensor([[0.0, 2.0], [3.0, 0.0]], requires_grad=True)
(w.to_sparse_csc().to_dense() * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
print("dense grad through to_sparse_csc", w.grad.tolist())
vals = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
A = torch.sparse_csc_tensor(torch.tensor([0, 1, 3]), torch.tensor([1, 0, 1]), vals, (2, 2))
(A @ torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
print("values grad", vals.grad.tolist())

# what the layout refuses, in PyTorch's words
for name, fn in [("crow_indices", lambda: csc.crow_indices()), ("indices", lambda: csc.indices()),
                 ("coalesce", lambda: csc.coalesce()), ("stride", lambda: csc.stride()),
                 ("divide", lambda: csc / 2), ("type", lambda: csc.type()),
                 ("ccol of CSR", lambda: csr.ccol_indices()), ("row of COO", lambda: coo.row_indices()),
                 ("ccol of dense", lambda: D.ccol_indices()),
                 ("bad ccol", lambda: torch.sparse_csc_tensor(torch.tensor([0, 1, 4]), torch.tensor([0, 1, 2]),
                                                              torch.ones(3), (3, 2), check_invariants=True)),
                 ("bad rows", lambda: torch.sparse_csc_tensor(torch.tensor([0, 1, 3]), torch.tensor([0, 1, 5]),
                                                              torch.ones(3), (3, 2), check_invariants=True)),
                 ("ccol length", lambda: torch.sparse_csc_tensor(torch.tensor([0, 1, 3, 3]), torch.tensor([0, 1, 2]),
                                                                 torch.ones(3), (3, 2), check_invariants=True)),
                 ("crow length", lambda: torch.sparse_csr_tensor(torch.tensor([0, 1, 3, 3]), torch.tensor([0, 1, 2]),
                                                                 torch.ones(3), (2, 3), check_invariants=True))]:
    try:
        fn()
    except RuntimeError as e:
        print(f"{name}: RuntimeError: {e}")
