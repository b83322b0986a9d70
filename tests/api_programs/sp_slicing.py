"""Slicing and reshaping sparse COO tensors as sequence and GNN code does: select, narrow_copy, unsqueeze,
index_select, in-place value ops, and the hybrid layouts they produce."""

import torch

torch.set_printoptions(precision=4)
torch.manual_seed(0)


def show(name, t):
    if t.layout == torch.sparse_coo:
        print(f"{name}: size={tuple(t.shape)} sparse_dim={t.sparse_dim()} nnz={t._nnz()} "
              f"coalesced={t.is_coalesced()} indices={t._indices().tolist()}")
        print("   values", [round(x, 4) for x in t._values().reshape(-1).tolist()])
    else:
        print(f"{name}: dense {tuple(t.shape)}", [round(v, 4) for v in t.reshape(-1).tolist()])


# a batch of 3 sparse "documents" x 5 vocabulary terms, with one duplicate entry
i = torch.tensor([[0, 0, 1, 2, 2, 0], [1, 3, 0, 4, 1, 1]])
v = torch.randn(6)
X = torch.sparse_coo_tensor(i, v, (3, 5))
show("X", X)
show("X.coalesce()", X.coalesce())

# one document, one term column, a window of terms
show("select(0, 0)", X.select(0, 0))
show("select(1, 1)", X.select(1, 1))
show("select(0, -1)", X.coalesce().select(0, -1))
show("narrow_copy(1, 1, 3)", X.narrow_copy(1, 1, 3))
show("narrow_copy(0, 1, 2)", X.coalesce().narrow_copy(0, 1, 2))
print("select equals dense", torch.allclose(X.select(0, 0).to_dense(), X.to_dense()[0]))
print("narrow equals dense", torch.allclose(X.narrow_copy(1, 1, 3).to_dense(), X.to_dense()[:, 1:4]))

# adding a batch dim, as before a batched product
show("unsqueeze(0)", X.unsqueeze(0))
show("unsqueeze(1)", X.coalesce().unsqueeze(1))
show("unsqueeze(-1)", X.coalesce().unsqueeze(-1))

# hybrid: sparse rows of dense embeddings
E = torch.sparse_coo_tensor(torch.tensor([[0, 3, 3]]), torch.arange(6.0).reshape(3, 2), (5, 2))
show("E", E)
show("E.select(0, 3)", E.select(0, 3))
show("E.select(1, 1)", E.select(1, 1))
show("E.unsqueeze(2)", E.unsqueeze(2))
show("E.index_select(0, [3, 0])", E.index_select(0, torch.tensor([3, 0])))

# in-place ops on the stored values
Y = X.coalesce()
Y.neg_()
show("neg_", Y)
Y.abs_()
show("abs_", Y)
Y.sqrt_()
show("sqrt_", Y)
Z = X.clone()
Z.mul_(3)
Z.div_(2)
show("mul_ div_", Z)
try:
    X.clone().abs_()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    X.to_dense(torch.float64)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    X.narrow_copy(1, 3, 4)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    X.select(0, 7)
except IndexError as e:
    print("IndexError:", e)
print("to_dense().to(float64)", X.to_dense().to(torch.float64).dtype)
