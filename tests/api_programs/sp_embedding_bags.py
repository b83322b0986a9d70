"""Sparse embedding gradients as recommender code trains them: Embedding/EmbeddingBag with SparseAdam and SGD."""

import torch
import torch.nn.functional as F
from torch import nn

torch.set_printoptions(precision=4)
torch.manual_seed(0)


def r(t, k=8):
    return [round(v, 4) for v in t.detach().reshape(-1)[:k].tolist()]


# --- nn.Embedding(sparse=True): the weight's grad is a sparse COO tensor --------------------------
emb = nn.Embedding(10, 3, sparse=True)
print(emb)
print("weight", r(emb.weight, 6))
ids = torch.tensor([[1, 4, 4], [7, 1, 0]])
out = emb(ids)
print("out", tuple(out.shape), r(out, 6))
out.sum().backward()
g = emb.weight.grad
print("grad layout", g.layout, "is_sparse", g.is_sparse, "shape", tuple(g.shape))
print("grad nnz", g._nnz(), "coalesced", g.is_coalesced())
print("grad _indices", g._indices().tolist())
gc = g.coalesce()
print("coalesced indices", gc.indices().tolist(), "values", r(gc.values(), 12))
print(gc)

# a second backward accumulates (uncoalesced until coalesce())
emb(torch.tensor([4, 9])).sum().backward()
print("accumulated nnz", emb.weight.grad._nnz(), "rows", emb.weight.grad.coalesce().indices().tolist())
print("row 4 grad", r(emb.weight.grad.to_dense()[4]))

# padding_idx rows get no gradient entries
emb_p = nn.Embedding(6, 2, padding_idx=0, sparse=True)
print("padding row", emb_p.weight[0].tolist())
emb_p(torch.tensor([0, 2, 0, 3])).sum().backward()
print("padding grad indices", emb_p.weight.grad._indices().tolist())

# --- SparseAdam over sparse gradients: only the looked-up rows move --------------------------------
torch.manual_seed(1)
model = nn.Embedding(8, 4, sparse=True)
before = model.weight.detach().clone()
opt = torch.optim.SparseAdam(model.parameters(), lr=0.05)
print(opt)
target = torch.randn(3, 4)
for step in range(5):
    opt.zero_grad()
    loss = F.mse_loss(model(torch.tensor([2, 5, 2])), target)
    loss.backward()
    opt.step()
    print(f"sparseadam step {step} loss {loss.item():.4f}")
moved = (model.weight.detach() != before).any(dim=1)
print("rows moved", moved.nonzero().flatten().tolist())
st = opt.state[model.weight]
print("state keys", sorted(st.keys()), "step", st["step"].item() if torch.is_tensor(st["step"]) else st["step"])
print("exp_avg layout", st["exp_avg"].layout, "row 2", r(st["exp_avg"][2], 4))

# SparseAdam refuses dense gradients
dense_p = nn.Parameter(torch.randn(3))
opt_bad = torch.optim.SparseAdam([dense_p], lr=0.1)
dense_p.sum().backward()
try:
    opt_bad.step()
except RuntimeError as e:
    print("RuntimeError:", e)

# Adam refuses sparse gradients
emb_a = nn.Embedding(5, 2, sparse=True)
adam = torch.optim.Adam(emb_a.parameters(), lr=0.1)
emb_a(torch.tensor([1])).sum().backward()
try:
    adam.step()
except RuntimeError as e:
    print("RuntimeError:", e)

# SGD with momentum on sparse gradients
torch.manual_seed(2)
emb_s = nn.Embedding(6, 2, sparse=True)
sgd = torch.optim.SGD(emb_s.parameters(), lr=0.5, momentum=0.9)
for step in range(3):
    sgd.zero_grad()
    emb_s(torch.tensor([1, 3, 1])).pow(2).sum().backward()
    sgd.step()
print("sgd weight", r(emb_s.weight, 12))
buf = sgd.state[emb_s.weight]["momentum_buffer"]
print("momentum buffer layout", buf.layout, "dense", r(buf.to_dense(), 12))

# --- EmbeddingBag: sum / mean / max with offsets -------------------------------------------------
torch.manual_seed(3)
flat = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
offsets = torch.tensor([0, 4])
for mode in ("sum", "mean", "max"):
    bag = nn.EmbeddingBag(10, 3, mode=mode)
    o = bag(flat, offsets)
    print(mode, tuple(o.shape), r(o, 6))
bag = nn.EmbeddingBag(10, 3, mode="mean", sparse=True)
print(bag)
o = bag(flat, offsets)
o.sum().backward()
print("bag grad", bag.weight.grad.layout, bag.weight.grad._nnz(), r(bag.weight.grad.coalesce().values(), 6))

# 2-D input: each row is a bag, no offsets
bag2 = nn.EmbeddingBag(10, 2, mode="sum")
print("2-D bags", r(bag2(torch.tensor([[1, 2], [3, 3]])), 4))

# per_sample_weights (mode='sum' only)
bag_w = nn.EmbeddingBag(10, 2, mode="sum", sparse=True)
psw = torch.tensor([0.5, 1.0, 2.0, -1.0, 0.25, 0.5, 1.0, 1.0])
ow = bag_w(flat, offsets, per_sample_weights=psw)
print("weighted", r(ow, 4))
ow.sum().backward()
print("weighted grad rows", bag_w.weight.grad.coalesce().indices().tolist())
try:
    nn.EmbeddingBag(10, 2, mode="mean")(flat, offsets, per_sample_weights=psw)
except NotImplementedError as e:
    print("NotImplementedError:", e)

# include_last_offset and padding_idx in bags
bag_l = nn.EmbeddingBag(10, 2, mode="sum", include_last_offset=True, padding_idx=4)
ol = bag_l(flat, torch.tensor([0, 3, 8]))
print("include_last_offset", tuple(ol.shape), r(ol, 4))

# max mode cannot give sparse gradients
try:
    nn.EmbeddingBag(10, 2, mode="max", sparse=True)(flat, offsets)
except ValueError as e:
    print("ValueError:", e)
try:
    F.embedding_bag(flat, torch.randn(10, 2), offsets, mode="max", sparse=True)
except ValueError as e:
    print("ValueError:", e)

# functional forms with sparse=True
wt = torch.randn(10, 2, requires_grad=True)
F.embedding(torch.tensor([3, 3, 8]), wt, sparse=True).sum().backward()
print("F.embedding grad", wt.grad.layout, wt.grad._indices().tolist())
wt.grad = None
F.embedding_bag(flat, wt, offsets, mode="sum", sparse=True).sum().backward()
print("F.embedding_bag grad nnz", wt.grad._nnz(), "dense row 4", r(wt.grad.to_dense()[4]))

# from_pretrained with sparse=True and freeze=False
pre = nn.Embedding.from_pretrained(torch.arange(12.0).reshape(6, 2), freeze=False, sparse=True)
pre(torch.tensor([5])).sum().backward()
print("from_pretrained", pre.sparse, pre.weight.grad.layout, pre.weight.grad.to_dense()[5].tolist())
