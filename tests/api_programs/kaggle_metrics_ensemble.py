"""Kaggle evaluation and ensembling code in torch: quadratic weighted kappa from a bincount confusion matrix,
optimised rounding thresholds with bucketize, rank averaging (argsort of argsort), Pearson/Spearman with corrcoef,
MAP@k from topk, clipped log loss, weighted logit blending, quantile clipping, and hill-climbing ensemble weights."""

import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(21)
N, C = 60, 5
y_true = torch.from_numpy(rng.integers(0, C, N))
base = y_true.double() + torch.from_numpy(rng.normal(0, 0.8, N))
preds = torch.stack([base + torch.from_numpy(rng.normal(0, s, N)) for s in (0.3, 0.6, 0.9)])
print("preds", preds.shape, preds.dtype)


def qwk(a, b, n=C):
    cm = torch.bincount(a * n + b, minlength=n * n).reshape(n, n).double()
    w = (torch.arange(n).view(-1, 1) - torch.arange(n).view(1, -1)).double() ** 2 / (n - 1) ** 2
    hist_a, hist_b = cm.sum(1), cm.sum(0)
    expected = torch.outer(hist_a, hist_b) / cm.sum()
    return 1 - (w * cm).sum() / (w * expected).sum()


def apply_thresholds(x, th):
    return torch.bucketize(x, th)


th0 = torch.tensor([0.5, 1.5, 2.5, 3.5], dtype=torch.float64)
for k in range(3):
    lab = apply_thresholds(preds[k], th0)
    print("model", k, "qwk", round(qwk(y_true, lab).item(), 4), "acc", round((lab == y_true).double().mean().item(), 4))
cm = torch.bincount(y_true * C + apply_thresholds(preds[0], th0), minlength=C * C).view(C, C)
print(cm)
th = th0.clone()
best = qwk(y_true, apply_thresholds(preds[0], th)).item()
for it in range(2):
    for i in range(4):
        for d in torch.linspace(-0.3, 0.3, 7, dtype=torch.float64):
            cand = th.clone()
            cand[i] += d
            cand, _ = torch.sort(cand)
            s = qwk(y_true, apply_thresholds(preds[0], cand)).item()
            if s > best + 1e-12:
                best, th = s, cand
print("opt thresholds", np.round(th.numpy(), 4).tolist(), "qwk", round(best, 4))
print("bucketize right", torch.bucketize(torch.tensor([0.5, 1.5]), th0.float(), right=True).tolist(),
      "searchsorted", torch.searchsorted(th0, torch.tensor([0.5, 2.0], dtype=torch.float64), side="right").tolist())


def rank(x):
    return torch.argsort(torch.argsort(x)).double() / (x.numel() - 1)


ranks = torch.stack([rank(p) for p in preds])
rank_avg = ranks.mean(0)
print("rank avg", np.round(rank_avg[:5].numpy(), 4).tolist())
cc = torch.corrcoef(torch.cat([preds, y_true.double().unsqueeze(0)]))
print("pearson with target", np.round(cc[-1, :3].numpy(), 4).tolist())
sp = torch.corrcoef(torch.stack([rank(p) for p in [*preds, y_true.double() + 1e-6 * torch.arange(N)]]))
print("spearman-ish", np.round(sp[-1, :3].numpy(), 4).tolist())
print("cov diag", np.round(torch.cov(preds).diagonal().numpy(), 4).tolist(),
      "aweights", np.round(torch.cov(preds, correction=0, aweights=torch.ones(N, dtype=torch.float64))
                           .diagonal().numpy(), 4).tolist())

# multi-class probabilities: log loss, blending, MAP@3.
logits = torch.from_numpy(rng.standard_normal((3, N, C)))
logits[:, torch.arange(N), y_true] += torch.tensor([1.0, 1.5, 0.5], dtype=torch.float64).view(3, 1)
probs = logits.softmax(-1)


def logloss(p, y, eps=1e-15):
    p = p.clamp(eps, 1 - eps)
    p = p / p.sum(1, keepdim=True)
    return -torch.log(p.gather(1, y.unsqueeze(1))).mean().item()


def map_at_k(p, y, k=3):
    top = p.topk(k, dim=1).indices
    hits = (top == y.unsqueeze(1)).double()
    return (hits / torch.arange(1, k + 1, dtype=torch.float64)).sum(1).mean().item()


for k in range(3):
    print("model", k, "logloss", round(logloss(probs[k], y_true), 4), "map@3", round(map_at_k(probs[k], y_true), 4),
          "nll", round(F.nll_loss(torch.log(probs[k]), y_true).item(), 4))
w = torch.full((3,), 1 / 3, dtype=torch.float64)
best = logloss((w.view(3, 1, 1) * probs).sum(0), y_true)
for step in range(20):
    i, j = step % 3, (step + 1) % 3
    cand = w.clone()
    delta = min(0.05, cand[j].item())
    cand[i] += delta
    cand[j] -= delta
    s = logloss((cand.view(3, 1, 1) * probs).sum(0), y_true)
    if s < best:
        best, w = s, cand
print("hill weights", np.round(w.numpy(), 4).tolist(), "blend logloss", round(best, 4))
geo = torch.exp(torch.log(probs).mean(0))
geo = geo / geo.sum(-1, keepdim=True)
print("geo mean logloss", round(logloss(geo, y_true), 4),
      "logit avg", round(logloss(logits.mean(0).softmax(-1), y_true), 4))
lo, hi = torch.quantile(preds[0], torch.tensor([0.01, 0.99], dtype=torch.float64))
print("quantile clip", round(lo.item(), 4), round(hi.item(), 4), "nanquantile",
      round(torch.nanquantile(torch.tensor([1.0, float("nan"), 3.0, 2.0]), 0.5).item(), 4))
print("median", round(preds[1].median().item(), 4),
      "interp lower", torch.quantile(torch.arange(4.0), 0.5, interpolation="lower").item())
sub = torch.stack([torch.arange(N), probs.mean(0).argmax(1)], 1)[:4]
print("submission", "\n".join(",".join(str(v) for v in row) for row in sub.tolist()))
try:
    torch.bincount(torch.tensor([-1, 2]))
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.quantile(preds[0].float(), 1.5)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.bucketize(torch.tensor([1.0]), torch.tensor([[1.0, 2.0]]))
except RuntimeError as e:
    print("RuntimeError", e)
