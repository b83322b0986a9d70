"""Sparse embedding gradients as large-vocabulary recommenders use them: sparse=True, SparseAdam, coalesce, parts."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(3)
torch.set_printoptions(precision=4)

emb = nn.Embedding(10, 3, sparse=True)
print(emb, "sparse", emb.sparse)
idx = torch.tensor([[1, 4, 4], [7, 1, 0]])
out = emb(idx)
print("out", out.shape, out.grad_fn.name())
(out * torch.arange(1.0, 4.0)).sum().backward()
g = emb.weight.grad
print("is_sparse", g.is_sparse, g.layout, g.shape, "coalesced", g.is_coalesced())
print("nnz", g._nnz(), "sparse_dim", g.sparse_dim(), "dense_dim", g.dense_dim())
print("raw indices", g._indices().tolist())
print("raw values", g._values())
gc = g.coalesce()
print("coalesced", gc.is_coalesced(), gc.indices().tolist())
print("coalesced values", gc.values())
print("dense rows", g.to_dense().sum(1))

# accumulation across two backward passes concatenates, coalesce sums duplicates
emb(torch.tensor([4, 9])).sum().backward()
g2 = emb.weight.grad
print("after 2nd backward nnz", g2._nnz(), "coalesced nnz", g2.coalesce()._nnz())
print("row 4 grad", g2.to_dense()[4])

# padding_idx rows get no gradient
emb_p = nn.Embedding(6, 2, padding_idx=0, sparse=True)
print("pad row", emb_p.weight[0])
emb_p(torch.tensor([0, 0, 3, 5, 3])).sum().backward()
gp = emb_p.weight.grad.coalesce()
print("pad grad indices", gp.indices().tolist(), gp.values().tolist())

# F.embedding with sparse=True, and max_norm renormalising rows in place
w = torch.randn(8, 4, requires_grad=True)
y = F.embedding(torch.tensor([2, 2, 5]), w, sparse=True)
y.pow(2).sum().backward()
print("F.embedding grad", w.grad.layout, w.grad.coalesce().indices().tolist())
emb_n = nn.Embedding(5, 4, max_norm=1.0)
before = emb_n.weight.detach().norm(dim=1)
emb_n(torch.tensor([1, 3]))
after = emb_n.weight.detach().norm(dim=1)
print("norms before", before)
print("norms after ", after)

# training: SparseAdam for the tables, Adam for the dense tower
torch.manual_seed(4)
n_users, n_items = 40, 60
u = torch.randint(0, n_users, (256,))
i = torch.randint(0, n_items, (256,))
label = ((u % 3) == (i % 3)).float()
print("label mean", label.mean().item())


class SparseTwoTable(nn.Module):
    def __init__(self):
        super().__init__()
        self.user = nn.Embedding(n_users, 8, sparse=True)
        self.item = nn.Embedding(n_items, 8, sparse=True)
        self.head = nn.Linear(8, 1)

    def forward(self, u, i):
        return self.head(self.user(u) * self.item(i)).squeeze(-1)


model = SparseTwoTable()
sparse_p = list(model.user.parameters()) + list(model.item.parameters())
dense_p = list(model.head.parameters())
opt_s = torch.optim.SparseAdam(sparse_p, lr=0.03)
opt_d = torch.optim.Adam(dense_p, lr=0.03)
print(opt_s)
for step in range(40):
    b = torch.randint(0, 256, (64,))
    logit = model(u[b], i[b])
    loss = F.binary_cross_entropy_with_logits(logit, label[b])
    opt_s.zero_grad()
    opt_d.zero_grad()
    loss.backward()
    if step == 0:
        gu = model.user.weight.grad
        print("user grad", gu.is_sparse, gu._nnz(), "unique rows", gu.coalesce()._nnz(),
              "head grad sparse", model.head.weight.grad.is_sparse)
    opt_s.step()
    opt_d.step()
    if step % 13 == 0:
        print(f"step {step} loss {loss.item():.4f}")
st = opt_s.state[model.user.weight]
print("sparse adam state", sorted(st.keys()), st["exp_avg"].layout, st["exp_avg"].shape, int(st["step"]))
touched = (st["exp_avg"].abs().sum(1) > 0).sum().item()
print("rows with moments", touched, "of", n_users)
with torch.no_grad():
    acc = ((model(u, i) > 0).float() == label).float().mean()
print("train acc", round(acc.item(), 4))

# SparseAdam refuses dense gradients
lin = nn.Linear(2, 1)
try:
    opt = torch.optim.SparseAdam(lin.parameters())
    lin(torch.ones(1, 2)).sum().backward()
    opt.step()
except RuntimeError as e:
    print("RuntimeError:", e)

# sparse grads with SGD + momentum is fine, with weight_decay it is not
e2 = nn.Embedding(4, 2, sparse=True)
e2(torch.tensor([1])).sum().backward()
sgd = torch.optim.SGD(e2.parameters(), lr=0.1)
sgd.step()
print("sgd row1", e2.weight[1])
try:
    sgd_wd = torch.optim.SGD(e2.parameters(), lr=0.1, weight_decay=0.01)
    sgd_wd.step()
except RuntimeError as e:
    print("RuntimeError:", e)

# manual sparse update with index_add_, the way some libraries apply grads
table = torch.zeros(5, 2)
gg = torch.sparse_coo_tensor(torch.tensor([[3, 1, 3]]), torch.ones(3, 2), (5, 2))
gg = gg.coalesce()
table.index_add_(0, gg.indices()[0], gg.values(), alpha=-0.5)
print("table", table)
table.add_(gg, alpha=0.25)
print("table + sparse", table)
