"""DLRM's feature interaction: bottom MLP, per-table embeddings, bmm dot products, triu/tril_indices selection."""

import torch
from torch import nn

torch.manual_seed(0)

num_dense, emb_dim = 4, 3
table_sizes = [10, 6, 8]
B = 4

bottom = nn.Sequential(nn.Linear(num_dense, 8), nn.ReLU(), nn.Linear(8, emb_dim), nn.ReLU())
tables = nn.ModuleList([nn.EmbeddingBag(n, emb_dim, mode="sum") for n in table_sizes])
for t in tables:
    nn.init.uniform_(t.weight, -((1 / t.num_embeddings) ** 0.5), (1 / t.num_embeddings) ** 0.5)
print(tables)

dense = torch.randn(B, num_dense).abs().log1p()
# sparse input: per table a flat index list with offsets
lS_i = [torch.tensor([1, 2, 9, 3, 0, 4]), torch.tensor([5, 0, 1, 2]), torch.tensor([7, 7, 7, 1, 2, 3, 4])]
lS_o = [torch.tensor([0, 2, 3, 5]), torch.tensor([0, 1, 2, 3]), torch.tensor([0, 3, 4, 6])]

x = bottom(dense)
ly = [t(i, o) for t, i, o in zip(tables, lS_i, lS_o)]
print("dense out", x.shape, "emb outs", [tuple(e.shape) for e in ly])

T = torch.cat([x] + ly, dim=1).view((B, -1, emb_dim))
print("T", T.shape, T.is_contiguous())
Z = torch.bmm(T, torch.transpose(T, 1, 2))
print("Z", Z.shape, Z.grad_fn.name())
ni = T.shape[1]

# the original code: lower triangle without the diagonal via explicit lists
offset = 0
li = torch.tensor([i for i in range(ni) for j in range(i + offset)])
lj = torch.tensor([j for i in range(ni) for j in range(i + offset)])
Zflat = Z[:, li, lj]
print("li", li.tolist())
print("lj", lj.tolist())

# the same with tril_indices(offset=-1) and triu_indices(offset=1) on the transpose
tri = torch.tril_indices(ni, ni, offset=-1)
print("tril_indices", tri.tolist(), tri.dtype)
print("same as lists", torch.equal(tri[0], li) and torch.equal(tri[1], lj))
triu = torch.triu_indices(ni, ni, offset=1)
print("triu_indices", triu.tolist())
print("triu == tril swapped", torch.allclose(Z[:, triu[0], triu[1]], Z[:, tri[1], tri[0]]))
print("rectangular", torch.triu_indices(3, 5, 2).tolist(), torch.tril_indices(4, 2).tolist())
print("empty", torch.triu_indices(0, 0).shape, torch.tril_indices(3, 3, -5).shape)

# self-interaction variant keeps the diagonal
tri_d = torch.tril_indices(ni, ni)
print("with diag", tri_d.shape[1], "without", tri.shape[1])

R = torch.cat([x] + [Zflat], dim=1)
print("R", R.shape)
top = nn.Sequential(nn.Linear(R.shape[1], 4), nn.ReLU(), nn.Linear(4, 1), nn.Sigmoid())
p = top(R)
print("p", p.squeeze(1).round(decimals=4).tolist())

y = torch.tensor([[1.0], [0.0], [0.0], [1.0]])
loss = nn.BCELoss()(p, y)
loss.backward()
print("loss", round(loss.item(), 4), loss.grad_fn.name())
print("table grads", [round(t.weight.grad.abs().sum().item(), 4) for t in tables])
print("unused rows have zero grad", tables[0].weight.grad[[5, 6, 7, 8]].abs().sum().item())

# cat interaction (no dot): flatten, and a 'mask'-based selection of the strict upper triangle
mask = torch.ones(ni, ni, dtype=torch.bool).triu(diagonal=1)
print("mask select", torch.allclose(Z[:, mask], Z[:, triu[0], triu[1]]))
print("masked_select shape", torch.masked_select(Z, mask).shape)

try:
    torch.bmm(T, T)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.triu_indices(3, 3, dtype=torch.float32)
except Exception as e:
    print(type(e).__name__, e)
