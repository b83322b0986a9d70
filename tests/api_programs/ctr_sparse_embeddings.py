"""sparse=True embedding tables: COO gradients, coalescing, SparseAdam next to a dense optimizer, Adagrad, errors."""

import torch
from torch import nn

torch.manual_seed(0)

emb = nn.Embedding(10, 3, sparse=True)
bag = nn.EmbeddingBag(6, 3, mode="mean", sparse=True)
print(emb, bag)
idx = torch.tensor([[1, 4, 4], [7, 1, 0]])
out = emb(idx)
out.pow(2).sum().backward()
g = emb.weight.grad
print("layout", g.layout, "is_sparse", g.is_sparse, "is_coalesced", g.is_coalesced())
print("nnz before coalesce", g._nnz(), "indices", g._indices().tolist())
gc = g.coalesce()
print("coalesced indices", gc.indices().tolist(), "values sum", round(gc.values().sum().item(), 4))
print("dense equals", torch.allclose(gc.to_dense(), g.to_dense()))
dense_ref = torch.zeros(10, 3).index_add_(0, idx.flatten(), 2 * emb.weight.detach()[idx.flatten()])
print("matches index_add", torch.allclose(g.to_dense(), dense_ref, atol=1e-6))
print("sparse_dim", g.sparse_dim(), "dense_dim", g.dense_dim(), "shape", tuple(g.shape))

b_out = bag(torch.tensor([0, 2, 2, 5]), torch.tensor([0, 1]))
b_out.sum().backward()
bg = bag.weight.grad
print("bag grad", bg.layout, bg._nnz(), bg.coalesce().to_dense().round(decimals=4).tolist())

# sparse grads accumulate by concatenation
emb.zero_grad(set_to_none=True)
for _ in range(2):
    emb(torch.tensor([3, 3])).sum().backward()
print("accumulated nnz", emb.weight.grad._nnz(), "row3", emb.weight.grad.to_dense()[3].tolist())


# a model mixing sparse embeddings with dense towers: SparseAdam + Adam
class TwoTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.user = nn.Embedding(20, 4, sparse=True)
        self.item = nn.Embedding(30, 4, sparse=True)
        self.mlp = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1))

    def forward(self, u, i):
        return self.mlp(torch.cat([self.user(u), self.item(i)], -1)).squeeze(-1)


model = TwoTower()
sparse_params = [model.user.weight, model.item.weight]
dense_params = list(model.mlp.parameters())
opt_sparse = torch.optim.SparseAdam(sparse_params, lr=0.05)
opt_dense = torch.optim.Adam(dense_params, lr=0.05)
print(opt_sparse)
u = torch.randint(0, 20, (32,))
i = torch.randint(0, 30, (32,))
y = ((u + i) % 3 == 0).float()
before = model.user.weight.detach().clone()
for step in range(15):
    opt_sparse.zero_grad()
    opt_dense.zero_grad()
    loss = nn.functional.binary_cross_entropy_with_logits(model(u, i), y)
    loss.backward()
    opt_sparse.step()
    opt_dense.step()
print("loss", round(loss.item(), 4))
touched = (model.user.weight.detach() != before).any(1)
print("touched rows == seen users", torch.equal(touched.nonzero().flatten(), torch.unique(u)))
st = opt_sparse.state[model.user.weight]
print("state keys", sorted(st.keys()), "step", st["step"], "exp_avg layout", st["exp_avg"].layout)
print("state_dict groups", opt_sparse.state_dict()["param_groups"])

# Adagrad and SGD accept sparse gradients too
for cls, kw in ((torch.optim.Adagrad, {"lr": 0.1}), (torch.optim.SGD, {"lr": 0.1})):
    e = nn.Embedding(5, 2, sparse=True)
    nn.init.constant_(e.weight, 1.0)
    o = cls(e.parameters(), **kw)
    e(torch.tensor([0, 0, 2])).sum().backward()
    o.step()
    print(cls.__name__, e.weight.detach().round(decimals=4).tolist())

# the errors users meet
e = nn.Embedding(5, 2, sparse=True)
e(torch.tensor([1])).sum().backward()
for make in (
    lambda: torch.optim.Adam(e.parameters()),
    lambda: torch.optim.AdamW(e.parameters()),
    lambda: torch.optim.RMSprop(e.parameters()),
):
    try:
        make().step()
    except Exception as ex:
        print(type(ex).__name__, ex)
lin = nn.Linear(2, 1)
lin(torch.ones(1, 2)).sum().backward()
try:
    torch.optim.SparseAdam(lin.parameters()).step()
except Exception as ex:
    print(type(ex).__name__, ex)
try:
    torch.optim.SparseAdam([{"params": [lin.weight]}, {"params": [lin.bias]}], lr=-1)
except Exception as ex:
    print(type(ex).__name__, ex)
