"""Kaggle feature engineering and stacking in torch: stratified folds in numpy, out-of-fold target encoding with
index_add_/bincount and smoothing, kNN features from torch.cdist + topk, penultimate embeddings captured by a
forward hook, and a logistic-regression stacker fitted with LBFGS on the level-1 predictions."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(17)
N, K = 80, 4
cat = torch.from_numpy(rng.integers(0, 6, N))
num = torch.from_numpy(rng.standard_normal((N, 3)))
y = ((num[:, 0] + (cat == 3).double() * 1.2 + 0.4 * torch.from_numpy(rng.standard_normal(N))) > 0.5).double()
print("target mean", round(y.mean().item(), 4), "dtypes", cat.dtype, num.dtype)


def stratified_folds(y, k, seed):
    r = np.random.default_rng(seed)
    fold = np.empty(len(y), dtype=np.int64)
    for c in np.unique(y):
        idx = np.where(y == c)[0]
        r.shuffle(idx)
        fold[idx] = np.arange(len(idx)) % k
    return torch.from_numpy(fold)


folds = stratified_folds(y.numpy(), K, 0)
print("fold sizes", torch.bincount(folds).tolist(), "pos per fold", torch.bincount(folds, weights=y).tolist())


def target_encode(cat_tr, y_tr, cat_ap, n_cat=6, alpha=5.0):
    sums = torch.zeros(n_cat, dtype=torch.float64).index_add_(0, cat_tr, y_tr)
    counts = torch.bincount(cat_tr, minlength=n_cat).double()
    prior = y_tr.mean()
    enc = (sums + alpha * prior) / (counts + alpha)
    return enc[cat_ap]


te = torch.zeros(N, dtype=torch.float64)
for f in range(K):
    tr, va = folds != f, folds == f
    te[va] = target_encode(cat[tr], y[tr], cat[va])
print("oof te", np.round(te[:6].numpy(), 4).tolist())
full_enc = target_encode(cat, y, torch.arange(6))
print("full enc", np.round(full_enc.numpy(), 4).tolist())
sc = torch.zeros(6, dtype=torch.float64).scatter_add_(0, cat, y)
sr = torch.zeros(6, dtype=torch.float64).scatter_reduce_(0, cat, y, reduce="mean", include_self=False)
print("scatter_add == index_add", torch.equal(sc, torch.zeros(6, dtype=torch.float64).index_add_(0, cat, y)),
      "scatter mean", np.round(sr.numpy(), 4).tolist())


def knn_features(x_ref, y_ref, x_q, k=5, exclude_self=False):
    d = torch.cdist(x_q, x_ref)
    if exclude_self:
        d.fill_diagonal_(float("inf"))
    dist, idx = d.topk(k, dim=1, largest=False)
    return torch.stack([y_ref[idx].mean(1), dist.mean(1), dist[:, 0]], 1)


knn = torch.zeros(N, 3, dtype=torch.float64)
for f in range(K):
    tr, va = folds != f, folds == f
    knn[va] = knn_features(num[tr], y[tr], num[va])
print("knn feats", np.round(knn[:3].numpy(), 4).tolist())
self_knn = knn_features(num, y, num, exclude_self=True)
print("self-excluded nearest > 0", bool((self_knn[:, 2] > 0).all()))
print("cdist p=1 vs manual", torch.allclose(torch.cdist(num[:4], num[4:8], p=1),
                                            (num[:4, None] - num[None, 4:8]).abs().sum(-1)))


class MLP(nn.Module):
    def __init__(self, d_in):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d_in, 8), nn.Tanh(), nn.Linear(8, 4), nn.Tanh())
        self.head = nn.Linear(4, 1)

    def forward(self, x):
        return self.head(self.body(x)).squeeze(-1)


feats = torch.cat([num, te.unsqueeze(1), knn], 1).float()
feats = (feats - feats.mean(0)) / feats.std(0)
print("features", tuple(feats.shape), feats.dtype)
captured = {}
oof_mlp = torch.zeros(N)
for f in range(K):
    tr, va = folds != f, folds == f
    net = MLP(feats.shape[1])
    pr = np.random.default_rng(100 + f)
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(torch.from_numpy((0.3 * pr.standard_normal(tuple(p.shape))).astype(np.float32)))
    opt = torch.optim.Adam(net.parameters(), lr=0.05)
    for _ in range(40):
        opt.zero_grad()
        F.binary_cross_entropy_with_logits(net(feats[tr]), y[tr].float()).backward()
        opt.step()
    h = net.body.register_forward_hook(lambda m, i, o: captured.__setitem__("emb", o.detach()))
    with torch.no_grad():
        oof_mlp[va] = torch.sigmoid(net(feats[va]))
    h.remove()
    print("fold", f, "emb", tuple(captured["emb"].shape), "hooks left", len(net.body._forward_hooks))
acc_mlp = ((oof_mlp > 0.5).double() == y).double().mean().item()
acc_te = ((te > 0.5).double() == y).double().mean().item()
acc_knn = ((knn[:, 0] > 0.5).double() == y).double().mean().item()
print("level-1 acc mlp", round(acc_mlp, 4), "te", round(acc_te, 4), "knn", round(acc_knn, 4))

L1 = torch.stack([torch.logit(oof_mlp.double(), eps=1e-4), te, knn[:, 0]], 1)
w = torch.zeros(3, dtype=torch.float64, requires_grad=True)
b = torch.zeros(1, dtype=torch.float64, requires_grad=True)
lbfgs = torch.optim.LBFGS([w, b], lr=1, max_iter=50, line_search_fn="strong_wolfe")


def closure():
    lbfgs.zero_grad()
    loss = F.binary_cross_entropy_with_logits(L1 @ w + b, y) + 1e-3 * (w ** 2).sum()
    loss.backward()
    return loss


final = lbfgs.step(closure)
print("stacker loss", round(final.item(), 4), "->", round(closure().item(), 4))
print("stacker w", np.round(w.detach().numpy(), 3).tolist(), "b", round(b.item(), 3))
st = torch.sigmoid(L1 @ w + b).detach()
print("stack acc", round(((st > 0.5).double() == y).double().mean().item(), 4))
print("lbfgs state keys", sorted(lbfgs.state_dict()["state"][0].keys())[:4])
try:
    torch.cdist(num, num.float())
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.zeros(6).index_add_(0, cat, y)
except RuntimeError as e:
    print("RuntimeError", e)
