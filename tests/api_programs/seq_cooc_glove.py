"""Count-based and GloVe word vectors: a windowed co-occurrence matrix built as a sparse COO tensor (duplicates
coalesced) and with index_put_(accumulate=True), PPMI, a truncated SVD's spectrum, GloVe's weighted least squares
trained with Adagrad, and nearest neighbours by cosine similarity, cdist and topk."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(23)
text = ("the cat sat on the mat the dog sat on the log the cat saw the dog "
        "a cat and a dog sat on a mat").split()
vocab = sorted(set(text))
stoi = {w: i for i, w in enumerate(vocab)}
ids = torch.tensor([stoi[w] for w in text])
V, WIN = len(vocab), 2
print("vocab", V, vocab[:6], "tokens", ids.numel())


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


rows, cols, vals = [], [], []
for off in range(1, WIN + 1):
    a, b = ids[:-off], ids[off:]
    w = torch.full((a.numel(),), 1.0 / off)
    rows += [a, b]
    cols += [b, a]
    vals += [w, w]
idx = torch.stack([torch.cat(rows), torch.cat(cols)])
coo = torch.sparse_coo_tensor(idx, torch.cat(vals), (V, V))
print("raw nnz", coo._nnz(), "coalesced", coo.is_coalesced())
coo = coo.coalesce()
print("nnz", coo._nnz(), coo.is_coalesced(), coo.dtype, coo.layout, tuple(coo.indices().shape))
dense = coo.to_dense()
X = torch.zeros(V, V).index_put_((idx[0], idx[1]), torch.cat(vals), accumulate=True)
print("same as index_put", torch.allclose(dense, X), "symmetric", torch.equal(dense, dense.t()))
print("row sums", r(torch.sparse.sum(coo, dim=1).to_dense(), 8), "total", round(torch.sparse.sum(coo).item(), 4))
print("spmm", r(torch.sparse.mm(coo, torch.ones(V, 1)).flatten(), 8), r((coo @ torch.eye(V))[stoi["cat"]], 8))

# PPMI.
total = X.sum()
pw = X.sum(1, keepdim=True) / total
pc = X.sum(0, keepdim=True) / total
pmi = torch.log(X / total / (pw * pc))
ppmi = pmi.clamp(min=0).nan_to_num(0.0, posinf=0.0, neginf=0.0)
print("ppmi", r(ppmi[stoi["cat"]], V), "finite", bool(torch.isfinite(ppmi).all()))
S = torch.linalg.svdvals(ppmi.double())
print("svd spectrum", r(S, 5), "energy k=3", round((S[:3].square().sum() / S.square().sum()).item(), 4))
U, Sv, Vh = torch.linalg.svd(ppmi.double())
print("reconstruct", torch.allclose(U @ torch.diag(Sv) @ Vh, ppmi.double(), atol=1e-8), U.shape, Vh.dtype)

# GloVe.
D, XMAX, ALPHA = 4, 3.0, 0.75
nz = X.nonzero(as_tuple=True)
xij = X[nz]
weight = torch.where(xij < XMAX, (xij / XMAX) ** ALPHA, torch.ones_like(xij))
print("pairs", xij.numel(), "weights", r(weight), "log", r(torch.log(xij)))
Wm = nn.Embedding(V, D)
Wc = nn.Embedding(V, D)
bm = nn.Embedding(V, 1)
bc = nn.Embedding(V, 1)
with torch.no_grad():
    for e in (Wm, Wc, bm, bc):
        e.weight.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(e.weight.shape)).astype(np.float32)))
params = [p for e in (Wm, Wc, bm, bc) for p in e.parameters()]
opt = torch.optim.Adagrad(params, lr=0.1, initial_accumulator_value=0.1)
for epoch in range(30):
    i, j = nz
    pred = (Wm(i) * Wc(j)).sum(1) + bm(i).squeeze(1) + bc(j).squeeze(1)
    loss = (weight * (pred - torch.log(xij)) ** 2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 10 == 9:
        print("glove epoch", epoch, round(loss.item(), 4))
print("adagrad state", sorted(opt.state[params[0]]), r(opt.state[params[0]]["sum"], 4), opt.state[params[0]]["step"])

# Nearest neighbours.
vec = F.normalize((Wm.weight + Wc.weight).detach(), dim=1)
sims = vec @ vec.t()
sims.fill_diagonal_(-2.0)
top = sims.topk(2, dim=1)
for w in ["cat", "dog", "mat"]:
    print("nn", w, [vocab[k] for k in top.indices[stoi[w]].tolist()], r(top.values[stoi[w]], 2))
cs = F.cosine_similarity(vec[stoi["cat"]].unsqueeze(0), vec, dim=1)
print("cosine", r(cs, V), int(cs.argsort(descending=True)[1]))
dist = torch.cdist(vec[:3], vec, p=2)
same = torch.allclose(dist[0] ** 2, 2 - 2 * (vec[0] @ vec.t()), atol=1e-5)
print("cdist", tuple(dist.shape), r(dist[0], 5), "l2 vs cos", same)
analogy = vec[stoi["cat"]] - vec[stoi["mat"]] + vec[stoi["log"]]
print("analogy", vocab[int(F.cosine_similarity(analogy[None], vec).argmax())])

for label, fn in [
    ("coo bad index", lambda: torch.sparse_coo_tensor(torch.tensor([[0, V]]).t().t(), torch.ones(1), (V,)).to_dense()),
    ("sparse int mm", lambda: torch.sparse.mm(coo, torch.ones(V, 1, dtype=torch.long))),
    ("cosine shapes", lambda: F.cosine_similarity(vec[:2], vec[:3])),
    ("index_put dtype", lambda: torch.zeros(3).index_put_((torch.tensor([0]),), torch.ones(1, dtype=torch.float64))),
    ("cdist 1-D", lambda: torch.cdist(vec[0], vec)),
]:
    try:
        fn()
        print(label, "ok")
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:100])
