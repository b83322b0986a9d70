"""Decision stumps and AdaBoost in torch: the best threshold per feature by sort and cumsum of (weighted)
labels, Gini impurity and information gain, a vectorised split search with argmin over a (feature, threshold)
grid, AdaBoost's reweighting with exp and staged predictions, and a depth-2 regression tree by cumsum of squares."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
dt = torch.float64

n, d = 80, 3
X = torch.rand(n, d, dtype=dt) * 2 - 1
y = torch.where((X[:, 0] > 0.2) ^ (X[:, 1] < -0.3), 1.0, -1.0).to(dt)
flip = torch.rand(n) < 0.05
y[flip] = -y[flip]
print("X", X.shape, "positives", int((y > 0).sum()), "flipped", int(flip.sum()))


def best_stump(X, y, w):
    """Weighted error of 'predict s where x > t' for every feature, threshold and sign; the best one."""
    best = (float("inf"), None, None, None)
    for j in range(X.shape[1]):
        xs, order = X[:, j].sort()
        ys, ws = y[order], w[order]
        # error of predicting +1 right of the split: positives on the left plus negatives on the right
        pos_left = torch.cat([torch.zeros(1, dtype=dt), torch.cumsum(ws * (ys > 0), 0)])
        neg_left = torch.cat([torch.zeros(1, dtype=dt), torch.cumsum(ws * (ys < 0), 0)])
        neg_right = neg_left[-1] - neg_left
        err_plus = pos_left + neg_right
        err_minus = w.sum() - err_plus
        errs = torch.stack([err_plus, err_minus])
        e, flat = errs.flatten().min(0)
        s_idx, pos = divmod(flat.item(), errs.shape[1])
        if e.item() < best[0]:
            lo = xs[pos - 1] if pos > 0 else xs[0] - 1
            hi = xs[pos] if pos < len(xs) else xs[-1] + 1
            best = (e.item(), j, ((lo + hi) / 2).item(), 1.0 if s_idx == 0 else -1.0)
    return best


def stump_predict(X, j, t, s):
    return torch.where(X[:, j] > t, s, -s).to(dt)


w0 = torch.full((n,), 1.0 / n, dtype=dt)
e, j, t, s = best_stump(X, y, w0)
print(f"best stump: feature {j} threshold {t:.4f} sign {s:+.0f} weighted error {e:.4f}")
print("error check", round((w0 * (stump_predict(X, j, t, s) != y)).sum().item(), 4))


def gini(counts):
    p = counts / counts.sum(-1, keepdim=True).clamp(min=1)
    return 1 - (p ** 2).sum(-1)


def entropy(counts):
    p = counts / counts.sum(-1, keepdim=True).clamp(min=1)
    return -(torch.special.xlogy(p, p)).sum(-1)


labels01 = (y > 0).long()
xs, order = X[:, 0].sort()
ls = labels01[order]
left = torch.stack([torch.cumsum(1 - ls, 0), torch.cumsum(ls, 0)], 1)[:-1].to(dt)
total = left[-1] + torch.stack([1 - ls[-1], ls[-1]]).to(dt)
right = total - left
nl = left.sum(1)
g_split = (nl * gini(left) + (n - nl) * gini(right)) / n
h_split = (nl * entropy(left) + (n - nl) * entropy(right)) / n
print("root gini", round(gini(total).item(), 4), "root entropy", round(entropy(total).item(), 4))
bi = g_split.argmin()
print("best gini split at", bi.item(), "threshold", round(((xs[bi] + xs[bi + 1]) / 2).item(), 4),
      "impurity", round(g_split[bi].item(), 4), "info gain", round((entropy(total) - h_split.min()).item(), 4))

# vectorised grid search: features x candidate thresholds
thr = torch.quantile(X, torch.linspace(0.05, 0.95, 19, dtype=dt), dim=0).T
pred_grid = torch.where(X.T.unsqueeze(1) > thr.unsqueeze(2), 1.0, -1.0)
err_grid = (pred_grid != y).to(dt).mean(2)
err_grid = torch.minimum(err_grid, 1 - err_grid)
fj, ft = divmod(err_grid.argmin().item(), err_grid.shape[1])
print("grid", tuple(err_grid.shape), "best", fj, round(thr[fj, ft].item(), 4), "err", round(err_grid.min().item(), 4))

# AdaBoost
w = w0.clone()
F_sum = torch.zeros(n, dtype=dt)
stumps = []
for m in range(12):
    e, j, t, s = best_stump(X, y, w)
    e = max(e, 1e-12)
    a = 0.5 * torch.log(torch.tensor((1 - e) / e, dtype=dt))
    h = stump_predict(X, j, t, s)
    w = w * torch.exp(-a * y * h)
    w = w / w.sum()
    F_sum += a * h
    stumps.append((j, t, s, a.item()))
    train_err = (torch.sign(F_sum) != y).to(dt).mean().item()
    if m % 3 == 0 or m == 11:
        print(f"round {m:2d} feat {j} thr {t:+.4f} alpha {a.item():.4f} train err {train_err:.4f} "
              f"max w {w.max().item():.4f}")
print("feature usage", torch.bincount(torch.tensor([st[0] for st in stumps]), minlength=d).tolist())
Xq = torch.tensor([[0.5, 0.5, 0.0], [0.5, -0.5, 0.0], [-0.5, 0.5, 0.0], [-0.5, -0.5, 0.0]], dtype=dt)
score = sum(a * stump_predict(Xq, j, t, s) for j, t, s, a in stumps)
print("query scores", score, "labels", torch.sign(score).tolist())
margins = y * F_sum / sum(st[3] for st in stumps)
print("margin quantiles", torch.quantile(margins, torch.tensor([0.0, 0.25, 0.5], dtype=dt)))

# regression stump by cumsum of squares
t_reg = torch.sin(3 * X[:, 0]) + 0.1 * torch.randn(n, dtype=dt)
xs, order = X[:, 0].sort()
ts = t_reg[order]
cs, cs2 = ts.cumsum(0), (ts ** 2).cumsum(0)
k = torch.arange(1, n, dtype=dt)
sse_left = cs2[:-1] - cs[:-1] ** 2 / k
sse_right = (cs2[-1] - cs2[:-1]) - (cs[-1] - cs[:-1]) ** 2 / (n - k)
sse = sse_left + sse_right
b = sse.argmin().item()
print("regression split", b, "threshold", round(((xs[b] + xs[b + 1]) / 2).item(), 4), "sse", round(sse[b].item(), 4),
      "root sse", round(((ts - ts.mean()) ** 2).sum().item(), 4))
print("leaf means", round(ts[:b + 1].mean().item(), 4), round(ts[b + 1:].mean().item(), 4))
