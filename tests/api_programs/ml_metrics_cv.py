"""Model-selection code in torch: k-fold and stratified splits from randperm, a ridge classifier scored per fold,
confusion matrices via bincount, precision/recall/F1 and Cohen's kappa, ROC and precision-recall curves by sort
and cumsum with trapezoid AUCs, calibration bins with quantile edges and histogram weights, bootstrap confidence
intervals with quantile(out=), and the errors these utilities raise."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
dt = torch.float64

n, d = 120, 4
X = torch.randn(n, d, dtype=dt)
w_true = torch.tensor([1.0, -1.5, 0.5, 0.0], dtype=dt)
y = (X @ w_true + 0.7 * torch.randn(n, dtype=dt) > 0.3).long()
print("class balance", torch.bincount(y).tolist())


def kfold(n, k, gen):
    perm = torch.randperm(n, generator=gen)
    return list(torch.tensor_split(perm, k))


def stratified(y, k, gen):
    folds = [[] for _ in range(k)]
    for c in torch.unique(y):
        idx = torch.nonzero(y == c).squeeze(1)
        idx = idx[torch.randperm(len(idx), generator=gen)]
        for i, part in enumerate(torch.tensor_split(idx, k)):
            folds[i].append(part)
    return [torch.cat(f).sort().values for f in folds]


def fit_ridge(X, y, alpha=1.0):
    t = 2.0 * y.to(X.dtype) - 1
    Xa = torch.cat([X, torch.ones(len(X), 1, dtype=X.dtype)], 1)
    A = Xa.T @ Xa + alpha * torch.eye(Xa.shape[1], dtype=X.dtype)
    return torch.linalg.solve(A, Xa.T @ t)


def decision(X, w):
    return X @ w[:-1] + w[-1]


g = torch.Generator().manual_seed(7)
folds = kfold(n, 5, g)
print("kfold sizes", [len(f) for f in folds], "first fold head", folds[0][:5].tolist())
sfolds = stratified(y, 5, torch.Generator().manual_seed(7))
print("stratified positives per fold", [int(y[f].sum()) for f in sfolds])

scores = torch.empty(n, dtype=dt)
accs = []
for i, te in enumerate(sfolds):
    mask = torch.ones(n, dtype=torch.bool)
    mask[te] = False
    w = fit_ridge(X[mask], y[mask])
    s = decision(X[te], w)
    scores[te] = s
    accs.append(((s > 0).long() == y[te]).double().mean().item())
accs_t = torch.tensor(accs, dtype=dt)
print("fold accuracies", accs_t, "mean", round(accs_t.mean().item(), 4), "std", round(accs_t.std().item(), 4))

pred = (scores > 0).long()
cm = torch.bincount(2 * y + pred, minlength=4).reshape(2, 2)
print("out-of-fold confusion\n", cm)
tn, fp, fn, tp = cm.flatten().double()
precision, recall = tp / (tp + fp), tp / (tp + fn)
f1 = 2 * precision * recall / (precision + recall)
po = (tp + tn) / n
pe = ((tp + fp) * (tp + fn) + (tn + fn) * (tn + fp)) / n ** 2
kappa = (po - pe) / (1 - pe)
mcc = (tp * tn - fp * fn) / torch.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
print(f"precision {precision:.4f} recall {recall:.4f} f1 {f1:.4f} kappa {kappa:.4f} mcc {mcc:.4f}")
norm_cm = cm.double() / cm.sum(1, keepdim=True)
print("row-normalised\n", norm_cm)


def roc_curve(y, s):
    order = torch.argsort(s, descending=True, stable=True)
    ys = y[order].double()
    tps = torch.cumsum(ys, 0)
    fps = torch.cumsum(1 - ys, 0)
    tpr = torch.cat([torch.zeros(1, dtype=dt), tps / tps[-1]])
    fpr = torch.cat([torch.zeros(1, dtype=dt), fps / fps[-1]])
    return fpr, tpr, s[order]


fpr, tpr, thr = roc_curve(y, scores)
auc = torch.trapezoid(tpr, fpr)
print("roc points", fpr.shape, "auc", round(auc.item(), 4))
pos, neg = scores[y == 1], scores[y == 0]
wins = (pos.unsqueeze(1) > neg.unsqueeze(0)).double()
auc_rank = wins.mean() + 0.5 * (pos.unsqueeze(1) == neg.unsqueeze(0)).double().mean()
print("rank-statistic auc agrees", torch.allclose(auc, auc_rank))
j = (tpr - fpr).argmax()
print("youden threshold", round(thr[j - 1].item(), 4), "tpr", round(tpr[j].item(), 4), "fpr", round(fpr[j].item(), 4))
order = torch.argsort(scores, descending=True)
hits = y[order].double()
prec_at = torch.cumsum(hits, 0) / torch.arange(1, n + 1, dtype=dt)
ap = (prec_at * hits).sum() / hits.sum()
print("average precision", round(ap.item(), 4), "precision@10", round(prec_at[9].item(), 4))

# calibration: squash scores, bin by quantiles, compare mean predicted and observed
p = torch.sigmoid(2 * scores)
edges = torch.quantile(p, torch.linspace(0, 1, 6, dtype=dt))
bins = torch.bucketize(p, edges[1:-1])
cnt = torch.bincount(bins, minlength=5).double()
mean_p = torch.zeros(5, dtype=dt).index_add_(0, bins, p) / cnt
obs = torch.zeros(5, dtype=dt).index_add_(0, bins, y.double()) / cnt
print("bin counts", cnt.long().tolist())
print("mean predicted", mean_p, "\nobserved", obs)
ece = (cnt / n * (mean_p - obs).abs()).sum()
print("ECE", round(ece.item(), 4), "brier", round((p - y.double()).pow(2).mean().item(), 4))
hist_all, e_all = torch.histogram(p, bins=4, range=(0.0, 1.0))
hist_pos, _ = torch.histogram(p, bins=4, range=(0.0, 1.0), weight=y.double())
print("reliability histogram", hist_all.tolist(), "positives", hist_pos.tolist(), "edges", e_all.tolist())

# bootstrap confidence interval of accuracy
gb = torch.Generator().manual_seed(11)
B = 200
idx = torch.randint(0, n, (B, n), generator=gb)
boot = (pred[idx] == y[idx]).double().mean(1)
ci = torch.empty(2, dtype=dt)
torch.quantile(boot, torch.tensor([0.025, 0.975], dtype=dt), out=ci)
print("bootstrap mean", round(boot.mean().item(), 4), "95% CI", ci)
print("percentile via nanquantile", torch.nanquantile(boot, 0.5, interpolation="nearest").item() in boot.tolist())

for name, fn in [
    ("histogram weight of another dtype", lambda: torch.histogram(p, bins=4, weight=y.float())),
    ("histogram weight of another shape", lambda: torch.histogram(p, bins=4, weight=p[:10])),
    ("quantile out dtype", lambda: torch.quantile(boot, 0.5, out=torch.empty((), dtype=torch.float32))),
    ("quantile q out of range", lambda: torch.quantile(boot, 1.5)),
    ("bincount of negatives", lambda: torch.bincount(torch.tensor([0, -1]))),
    ("bucketize with 2-D boundaries", lambda: torch.bucketize(p, edges.view(2, 3))),
]:
    try:
        fn()
    except (RuntimeError, ValueError) as e:
        print(f"{name}: {type(e).__name__}: {e}")
