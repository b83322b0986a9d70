"""COO tensors as scientific code builds them: indices/values/size, duplicates, coalesce, reprs and layouts."""

import torch

torch.set_printoptions(precision=4)

# a 3x4 matrix given as (row, col, value) triplets, with a duplicate at (1, 2)
rows = torch.tensor([0, 1, 1, 2, 1])
cols = torch.tensor([1, 2, 0, 3, 2])
vals = torch.tensor([1.5, -2.0, 0.25, 3.0, 4.0])
S = torch.sparse_coo_tensor(torch.stack([rows, cols]), vals, (3, 4))
print(S)
print("layout", S.layout, "is_sparse", S.is_sparse, "is_coalesced", S.is_coalesced())
print("sparse_dim", S.sparse_dim(), "dense_dim", S.dense_dim(), "nnz", S._nnz(), "shape", S.shape)
print("dtype", S.dtype, "device", S.device, "requires_grad", S.requires_grad)

C = S.coalesce()
print(C)
print("coalesced", C.is_coalesced(), "nnz", C._nnz())
print("indices", C.indices().tolist())
print("values", C.values().tolist())
print("dense\n", C.to_dense())
print("dense via S equals C", torch.equal(S.to_dense(), C.to_dense()))

# indices()/values() refuse an uncoalesced tensor; _indices()/_values() do not
try:
    S.indices()
except RuntimeError as e:
    print("RuntimeError:", e)
print("_indices", S._indices().tolist(), "_values", S._values().tolist())

# size inferred from the indices
T = torch.sparse_coo_tensor(torch.tensor([[0, 4], [2, 1]]), torch.tensor([1.0, 2.0]))
print("inferred size", tuple(T.shape), T.size())

# integer and double values, explicit dtype
Ti = torch.sparse_coo_tensor(torch.tensor([[0, 1], [1, 0]]), torch.tensor([3, 7]), (2, 2))
print(Ti)
Td = torch.sparse_coo_tensor(torch.tensor([[0, 1], [1, 0]]), [0.5, 1.5], (2, 2), dtype=torch.float64)
print(Td.dtype, Td.to_dense().tolist())

# hybrid COO: one sparse dim, one dense dim (rows of features)
H = torch.sparse_coo_tensor(torch.tensor([[0, 2]]), torch.tensor([[1.0, 2.0], [3.0, 4.0]]), (4, 2))
print(H)
print("hybrid sparse_dim", H.sparse_dim(), "dense_dim", H.dense_dim(), "values shape", tuple(H._values().shape))
print(H.to_dense())

# dense -> sparse round trips
D = torch.tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, -3.0]])
sp = D.to_sparse()
print(sp)
print("to_sparse coalesced", sp.is_coalesced(), "round trip", torch.equal(sp.to_dense(), D))
sp1 = D.to_sparse(1)
print("to_sparse(1)", sp1.sparse_dim(), sp1.dense_dim(), sp1._nnz(), sp1._values().tolist())

# empty sparse tensor
E = torch.sparse_coo_tensor(torch.empty(2, 0, dtype=torch.long), torch.empty(0), (2, 3))
print(E)
print("empty coalesced", E.is_coalesced(), "sum", torch.sparse.sum(E).item())

# zero-sized and explicit zeros are kept as stored elements
Z = torch.sparse_coo_tensor(torch.tensor([[0, 1], [0, 1]]), torch.tensor([0.0, 5.0]), (2, 2)).coalesce()
print("explicit zero nnz", Z._nnz(), Z.values().tolist())

# coalesce sums many duplicates, sorted lexicographically
torch.manual_seed(0)
ri = torch.randint(0, 3, (2, 12))
rv = torch.randn(12)
R = torch.sparse_coo_tensor(ri, rv, (3, 3))
Rc = R.coalesce()
print("random nnz", R._nnz(), "->", Rc._nnz())
print("random indices", Rc.indices().tolist())
print("random values", [round(v, 4) for v in Rc.values().tolist()])
dense_ref = torch.zeros(3, 3).index_put_((ri[0], ri[1]), rv, accumulate=True)
print("matches index_put accumulate", torch.allclose(Rc.to_dense(), dense_ref))

# type conversions
print("double", R.double().dtype, "long nnz", Rc.long()._nnz(), "bool", Rc.bool().dtype)
print("type()", Rc.type(), Rc.double().type())
print("clone equal", torch.equal(Rc.clone().to_dense(), Rc.to_dense()))
print("detach layout", Rc.detach().layout)
