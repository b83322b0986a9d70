"""Sparse embedding gradients as large-vocabulary models train them: nn.Embedding(sparse=True) grads (uncoalesced
COO with one row per lookup), padding_idx rows left out, coalesce() summing duplicates, SGD with momentum and
weight decay refusals, Adagrad's sparse path, SparseAdam's lazy moments and state, mixing sparse and dense
parameter groups, to_dense() comparisons with the dense path, and the errors optimizers give for sparse grads."""

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)

V, D = 8, 3
ids = torch.tensor([[1, 3, 3, 0], [5, 1, 0, 0]])

dense = nn.Embedding(V, D, padding_idx=0)
sparse = nn.Embedding(V, D, padding_idx=0, sparse=True)
sparse.load_state_dict(dense.state_dict())
print(sparse)
for e in (dense, sparse):
    (e(ids) ** 2).sum().backward()
g = sparse.weight.grad
print("layout", g.layout, "coalesced", g.is_coalesced(), "nnz", g._nnz(), "shape", tuple(g.shape))
print("indices", g._indices().tolist())
gc = g.coalesce()
print("coalesced indices", gc.indices().tolist(), gc.is_coalesced())
print(gc.values())
print("dense grad equal", torch.allclose(g.to_dense(), dense.weight.grad))
print("pad row in values", bool((g._indices() == 0).any()), "pad row dense", dense.weight.grad[0].tolist())

# F.embedding with sparse=True on a plain weight
w = torch.randn(V, D, requires_grad=True)
F.embedding(torch.tensor([2, 2, 7]), w, sparse=True).sum().backward()
print("F.embedding sparse", w.grad.is_sparse, w.grad.coalesce().values().tolist())

# EmbeddingBag sparse grads
bag = nn.EmbeddingBag(V, D, mode="mean", sparse=True)
bag(torch.tensor([1, 2, 2, 6]), torch.tensor([0, 3])).sum().backward()
print("bag grad", bag.weight.grad.coalesce().indices().tolist(),
      [round(v, 4) for v in bag.weight.grad.coalesce().values()[:, 0].tolist()])


def run(opt_name, **kw):
    torch.manual_seed(1)
    emb = nn.Embedding(V, D, sparse=True)
    head = nn.Linear(D, 2)
    before = emb.weight.detach().clone()
    if opt_name == "SparseAdam":
        opt = torch.optim.SparseAdam(emb.parameters(), lr=0.1, **kw)
        dense_opt = torch.optim.Adam(head.parameters(), lr=0.1)
    else:
        opt = getattr(torch.optim, opt_name)(list(emb.parameters()) + list(head.parameters()), lr=0.1, **kw)
        dense_opt = None
    x = torch.tensor([[1, 2], [2, 4], [6, 1]])
    y = torch.tensor([0, 1, 0])
    for _ in range(3):
        opt.zero_grad()
        if dense_opt:
            dense_opt.zero_grad()
        loss = F.cross_entropy(head(emb(x).mean(1)), y)
        loss.backward()
        opt.step()
        if dense_opt:
            dense_opt.step()
    moved = (emb.weight.detach() - before).abs().sum(1).gt(0)
    print(opt_name, kw, round(loss.item(), 4), "moved rows", moved.nonzero().flatten().tolist())
    return opt, emb


opt, emb = run("SGD")
run("SGD", momentum=0.9)
opt, emb = run("Adagrad")
st = opt.state[emb.weight]
print("adagrad state", sorted(st), st["sum"].is_sparse, st["sum"][3].tolist())
opt, emb = run("SparseAdam", betas=(0.8, 0.99))
st = opt.state[emb.weight]
print("sparseadam state", sorted(st), st["step"], st["exp_avg"].is_sparse)
print("exp_avg untouched rows zero", st["exp_avg"][[0, 3, 5, 7]].abs().sum().item())
print(st["exp_avg_sq"][1])
print(opt)

# sparse grads to optimizers that cannot take them
for name, kw in (("Adam", {}), ("AdamW", {}), ("SGD", {"weight_decay": 0.1}), ("RMSprop", {})):
    emb = nn.Embedding(V, D, sparse=True)
    emb(torch.tensor([1])).sum().backward()
    try:
        getattr(torch.optim, name)(emb.parameters(), lr=0.1, **kw).step()
        print(name, "ok")
    except Exception as err:
        print(name, type(err).__name__, err)
lin = nn.Linear(2, 2)
try:
    torch.optim.SparseAdam(lin.parameters())
except Exception as err:
    print(type(err).__name__, str(err)[:100])
lin(torch.ones(1, 2)).sum().backward()
emb = nn.Embedding(V, D, sparse=True)
opt = torch.optim.SparseAdam(emb.parameters())
opt.param_groups[0]["params"].append(lin.weight)
try:
    opt.step()
except Exception as err:
    print(type(err).__name__, str(err)[:100])

# gradient utilities meet sparse grads
emb = nn.Embedding(V, D, sparse=True)
emb(torch.tensor([1, 1, 4])).sum().backward()
try:
    n = nn.utils.clip_grad_norm_(emb.parameters(), 1.0)
    print("clip norm", round(n.item(), 4), emb.weight.grad.is_sparse)
except Exception as err:  # the message's first sentence (ember's ending is its own, docs/sparse.md)
    print(type(err).__name__, str(err).split(". ")[0].split(": ")[0])
print("grad sum", emb.weight.grad.coalesce().values().sum().item(), torch.sparse.sum(emb.weight.grad).item())
emb.zero_grad()
print("after zero_grad", emb.weight.grad)
try:
    nn.Embedding(V, D, sparse=True, max_norm=1.0)(torch.tensor([1, 2])).sum().backward()
    print("max_norm with sparse ok")
except Exception as err:
    print(type(err).__name__, err)
