"""k-nearest-neighbour classification and regression in torch: cdist with p=1/2/inf, topk(largest=False) and
kthvalue, majority votes by mode and by bincount with distance weights, tie handling, leave-one-out accuracy
over k, radius neighbours, k-NN regression, and a batched chunked search."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

n_cls = 3
centers = torch.tensor([[0.0, 0.0], [2.5, 0.5], [1.0, 2.5]])
y = torch.arange(n_cls).repeat(30)
X = centers[y] + 0.8 * torch.randn(90, 2)
perm = torch.randperm(90)
tr, te = perm[:70], perm[70:]
Xtr, ytr, Xte, yte = X[tr], y[tr], X[te], y[te]
print("train", Xtr.shape, "test", Xte.shape, "class counts", torch.bincount(ytr).tolist())

D = torch.cdist(Xte, Xtr)
print("dist", D.shape, D.dtype, "p=1 head", torch.cdist(Xte[:2], Xtr[:3], p=1))
print("p=inf head", torch.cdist(Xte[:2], Xtr[:3], p=float("inf")))
k = 5
dk, ik = D.topk(k, dim=1, largest=False)
print("topk sorted", torch.all(dk[:, 1:] >= dk[:, :-1]).item(), "first row", dk[0], ik[0].tolist())
kth = D.kthvalue(k, dim=1)
print("kthvalue equals last topk", torch.equal(kth.values, dk[:, -1]))
nbr_labels = ytr[ik]
vote_mode = nbr_labels.mode(dim=1)
print("mode values", vote_mode.values.tolist())
print("mode indices", vote_mode.indices.tolist())
counts = torch.zeros(len(te), n_cls, dtype=torch.long).scatter_add_(1, nbr_labels, torch.ones_like(nbr_labels))
print("vote counts head\n", counts[:4])
pred = counts.argmax(1)
print("mode == argmax vote", torch.equal(pred, vote_mode.values))
w = 1.0 / (dk + 1e-8)
wvotes = torch.zeros(len(te), n_cls).index_put_((torch.arange(len(te)).unsqueeze(1).expand(-1, k), nbr_labels), w,
                                              accumulate=True)
pred_w = wvotes.argmax(1)
print("weighted votes head\n", wvotes[:3])
acc = (pred == yte).float().mean().item()
acc_w = (pred_w == yte).float().mean().item()
print(f"accuracy uniform={acc:.4f} distance-weighted={acc_w:.4f}")
cm = torch.bincount(yte * n_cls + pred, minlength=n_cls ** 2).view(n_cls, n_cls)
print("confusion\n", cm)

# ties in mode: the smallest value wins
t = torch.tensor([[2, 1, 1, 2, 0], [0, 0, 1, 1, 2], [3, 3, 3, 1, 1]])
print("mode ties", t.mode(1).values.tolist(), "bincount per row", [torch.bincount(r).argmax().item() for r in t])
print("torch.mode no dim", torch.mode(torch.tensor([4, 4, 1, 1, 7])))

# leave-one-out over k on the full set
Dfull = torch.cdist(X, X)
Dfull.fill_diagonal_(float("inf"))
for kk in (1, 3, 5, 7, 15):
    _, idx = Dfull.topk(kk, dim=1, largest=False)
    p = torch.mode(y[idx], dim=1).values
    print(f"loo k={kk:2d} acc={(p == y).float().mean().item():.4f}")

# radius neighbours
r = 0.5
within = D < r
print("neighbours within r", within.sum(1).tolist())
has = within.any(1)
rad_counts = torch.stack([torch.bincount(ytr[within[i]], minlength=n_cls) for i in range(len(te))])
print("radius pred (-1 none)", torch.where(has, rad_counts.argmax(1), torch.tensor(-1)).tolist())

# k-NN regression
f = lambda z: torch.sin(z[:, 0]) + 0.5 * z[:, 1]  # noqa: E731
yr = f(Xtr)
pred_r = yr[ik].mean(1)
pred_rw = (yr[ik] * w).sum(1) / w.sum(1)
print("knn regression mse", round((pred_r - f(Xte)).pow(2).mean().item(), 4),
      "weighted", round((pred_rw - f(Xte)).pow(2).mean().item(), 4))
print("median of neighbours", yr[ik].median(dim=1).values[:4])

# chunked search over a larger reference set
ref = torch.randn(2000, 8)
qry = torch.randn(17, 8)
best_d = torch.full((17, 3), float("inf"))
best_i = torch.zeros(17, 3, dtype=torch.long)
for start in range(0, 2000, 512):
    chunk = ref[start:start + 512]
    d = torch.cdist(qry, chunk)
    cat_d = torch.cat([best_d, d], 1)
    cat_i = torch.cat([best_i, torch.arange(start, start + len(chunk)).expand(17, -1)], 1)
    best_d, sel = cat_d.topk(3, dim=1, largest=False)
    best_i = cat_i.gather(1, sel)
full_d, full_i = torch.cdist(qry, ref).topk(3, dim=1, largest=False)
print("chunked equals full", torch.equal(best_i, full_i), torch.allclose(best_d, full_d))
print("nearest ids head", best_i[:3].tolist())
sq = (qry.unsqueeze(1) - ref[:5].unsqueeze(0)).pow(2).sum(-1).sqrt()
print("manual distance equals cdist", torch.allclose(sq, torch.cdist(qry, ref[:5]), atol=1e-5))
cos = torch.nn.functional.cosine_similarity(qry.unsqueeze(1), ref[:5].unsqueeze(0), dim=-1)
print("cosine neighbours", cos.argmax(1)[:6].tolist())

# Chebyshev (p=inf) distances with ties: every tied coordinate gets the whole gradient
pts = torch.tensor([[0.0, 0.0], [1.0, 1.0], [2.0, -1.0]], requires_grad=True)
d_inf = torch.cdist(pts, pts.detach() + 0.5, p=float("inf"))
g_inf, = torch.autograd.grad(d_inf.sum() + torch.pdist(pts, p=float("inf")).sum(), pts)
print("chebyshev", d_inf.detach(), type(d_inf.grad_fn).__name__, "\ngrad", g_inf)
