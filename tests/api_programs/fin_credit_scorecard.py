"""A credit scorecard as a bank's model-development code writes it: quantile binning with torch.quantile and
bucketize, weight-of-evidence and information value by bincount/scatter_add, a logistic regression on WoE features
with BCEWithLogitsLoss(pos_weight) and L-BFGS, the KS statistic and AUC by sorting (and AUC by rank sums), Gini,
points-to-double-odds scaling, a population stability index, and a confusion matrix at a cutoff."""

import math

import torch

torch.manual_seed(0)
n = 2000
income = torch.randn(n).mul(0.5).add(10.5).exp()
util = torch.rand(n)
age = torch.randint(21, 70, (n,)).float()
logit = -1.5 - 0.8 * (income.log() - 10.5) + 2.0 * (util - 0.5) - 0.02 * (age - 45)
default = (torch.rand(n) < torch.sigmoid(logit)).float()
print("default rate", round(default.mean().item(), 2), default.dtype)


def woe_table(x, y, bins=5):
    edges = torch.quantile(x, torch.linspace(0, 1, bins + 1)[1:-1])
    b = torch.bucketize(x, edges)
    bad = torch.bincount(b, weights=y, minlength=bins)
    tot = torch.bincount(b, minlength=bins).float()
    good = tot - bad
    dist_bad = (bad + 0.5) / (bad.sum() + 0.5 * bins)
    dist_good = (good + 0.5) / (good.sum() + 0.5 * bins)
    woe = torch.log(dist_good / dist_bad)
    iv = ((dist_good - dist_bad) * woe).sum()
    return b, woe, iv, tot


feats = {"income": income, "util": util, "age": age}
cols, ivs = [], {}
for name, x in feats.items():
    b, woe, iv, tot = woe_table(x, default)
    cols.append(woe[b])
    ivs[name] = iv.item() > 0.02
    print(
        name, "bin counts", tot.long().tolist(), "monotone woe", bool((woe.diff() > 0).all() or (woe.diff() < 0).all())
    )
print("informative", ivs)
X = torch.stack(cols, dim=1)

sums = torch.zeros(5).scatter_add_(
    0, torch.bucketize(util, torch.quantile(util, torch.linspace(0, 1, 6)[1:-1])), default
)
print(
    "scatter_add bads",
    sums.tolist()
    == torch.bincount(
        torch.bucketize(util, torch.quantile(util, torch.linspace(0, 1, 6)[1:-1])), weights=default
    ).tolist(),
)

model = torch.nn.Linear(3, 1)
torch.nn.init.zeros_(model.weight)
torch.nn.init.zeros_(model.bias)
pos_weight = (1 - default.mean()) / default.mean()
crit = torch.nn.BCEWithLogitsLoss(pos_weight=pos_weight.reshape(1))
opt = torch.optim.LBFGS(model.parameters(), max_iter=100, line_search_fn="strong_wolfe")


def closure():
    opt.zero_grad()
    loss = crit(model(X).squeeze(1), default) + 1e-3 * model.weight.pow(2).sum()
    loss.backward()
    return loss


opt.step(closure)
with torch.no_grad():
    score = model(X).squeeze(1)
print("coef signs", torch.sign(model.weight.detach()).squeeze(0).tolist(), model.weight.requires_grad)


def ks_auc(s, y):
    order = torch.argsort(s, descending=True, stable=True)
    ys = y[order]
    tpr = torch.cumsum(ys, 0) / ys.sum()
    fpr = torch.cumsum(1 - ys, 0) / (1 - ys).sum()
    ks = (tpr - fpr).max()
    auc = torch.trapezoid(torch.cat([torch.zeros(1), tpr]), torch.cat([torch.zeros(1), fpr]))
    return ks, auc


ks, auc = ks_auc(score, default)
ranks = torch.empty(n)
ranks[torch.argsort(score)] = torch.arange(1, n + 1).float()
npos = default.sum()
auc_rank = (ranks[default == 1].sum() - npos * (npos + 1) / 2) / (npos * (n - npos))
print(
    "ks", round(ks.item(), 2), "auc", round(auc.item(), 2), "rank auc agrees", abs(auc.item() - auc_rank.item()) < 1e-3
)
print("gini", round(2 * auc.item() - 1, 2))

pdo, base_score, base_odds = 20.0, 600.0, 50.0
factor = pdo / math.log(2)
offset = base_score - factor * math.log(base_odds)
points = offset - factor * score
print("points range", round(points.min().item(), -1) < round(points.max().item(), -1), points.dtype)
bands = torch.bucketize(points, torch.tensor([500.0, 550.0, 600.0, 650.0]))
print("band counts sum", torch.bincount(bands, minlength=5).sum().item())

train_pts, recent_pts = points[:1000], points[1000:] + 5.0
edges = torch.quantile(train_pts, torch.linspace(0, 1, 11)[1:-1])
e = torch.histc(torch.bucketize(train_pts, edges).float(), bins=10, min=0, max=9) / 1000
a = torch.histc(torch.bucketize(recent_pts, edges).float(), bins=10, min=0, max=9) / 1000
psi = ((a - e) * torch.log((a + 1e-6) / (e + 1e-6))).sum()
print("psi small", psi.item() < 0.25, tuple(e.shape))

pred = (torch.sigmoid(score) > 0.5).long()
cm = torch.bincount(default.long() * 2 + pred, minlength=4).reshape(2, 2)
print("confusion sums", cm.sum().item(), cm.dtype, cm.shape)

for bad in [
    lambda: torch.bincount(torch.tensor([-1, 2])),
    lambda: torch.bincount(torch.tensor([[1, 2]])),
    lambda: torch.bincount(torch.tensor([0, 1]), weights=torch.ones(3)),
    lambda: torch.bincount(torch.tensor([0.5])),
    lambda: crit(score, default.long()),
    lambda: torch.nn.BCEWithLogitsLoss()(score, default[:10]),
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
