"""CTR calibration after negative downsampling: re-weighting, normalized entropy, ECE, Platt and isotonic."""

import torch
import torch.nn.functional as F

torch.manual_seed(131)
torch.set_printoptions(precision=4)

n = 400
x = torch.randn(n, 3)
true_logit = x @ torch.tensor([1.2, -0.7, 0.4]) - 2.5
y = torch.bernoulli(torch.sigmoid(true_logit))
print("base ctr", round(y.mean().item(), 4), "positives", int(y.sum()))

# keep all positives and 25% of negatives; then fit a logistic model on the sample
rate = 0.25
keep = (y == 1) | (torch.rand(n) < rate)
xs, ys = x[keep].double(), y[keep].double()  # float64: L-BFGS's stopping tests would see float32 rounding
print("sampled", xs.shape[0], "sampled ctr", round(ys.mean().item(), 4))
w = torch.zeros(3, requires_grad=True, dtype=torch.float64)
b = torch.zeros(1, requires_grad=True, dtype=torch.float64)
opt = torch.optim.LBFGS([w, b], lr=0.5, max_iter=50, line_search_fn="strong_wolfe")


def closure():
    opt.zero_grad()
    loss = F.binary_cross_entropy_with_logits(xs @ w + b, ys)
    loss.backward()
    return loss


final = opt.step(closure)
print("lbfgs loss", round(final.item(), 4), "w", w.detach(), "b", round(b.item(), 4))
state = opt.state[opt._params[0]]
print("lbfgs evals", state["func_evals"], "iters", state["n_iter"])

with torch.no_grad():
    z = (x.double() @ w + b).float()
    p_biased = torch.sigmoid(z)
    # p = q / (q + (1 - q) / rate)
    p_cal = p_biased / (p_biased + (1 - p_biased) / rate)
    logit_shift = torch.sigmoid(z + torch.log(torch.tensor(rate)))
print("mean pred biased", round(p_biased.mean().item(), 4), "corrected", round(p_cal.mean().item(), 4),
      "true", round(y.mean().item(), 4))
print("formula == logit shift", torch.allclose(p_cal, logit_shift, atol=1e-6))
print("logit/expit round trip", torch.allclose(torch.special.expit(torch.logit(p_cal, eps=1e-6)), p_cal, atol=1e-5))


def normalized_entropy(p, y):
    ll = F.binary_cross_entropy(p, y)
    base = y.mean()
    ent = -(base * torch.log(base) + (1 - base) * torch.log1p(-base))
    return ll / ent


def ece(p, y, n_bins=10):
    edges = torch.linspace(0, 1, n_bins + 1)
    bins = torch.bucketize(p, edges[1:-1])
    count = torch.bincount(bins, minlength=n_bins).float()
    conf = torch.zeros(n_bins).index_add_(0, bins, p)
    acc = torch.zeros(n_bins).index_add_(0, bins, y)
    nz = count > 0
    gap = (conf[nz] / count[nz] - acc[nz] / count[nz]).abs()
    return (gap * count[nz]).sum() / p.numel(), count


for name, p in [("biased", p_biased), ("corrected", p_cal)]:
    e, counts = ece(p, y)
    print(f"{name:9s} logloss {F.binary_cross_entropy(p, y).item():.4f} NE {normalized_entropy(p, y).item():.4f} "
          f"ECE {e.item():.4f}")
print("bin counts", counts.long().tolist())

# Platt scaling on held-out scores: fit a, c in sigmoid(a * s + c)
s = torch.logit(p_biased, eps=1e-6)
a = torch.ones(1, requires_grad=True)
c = torch.zeros(1, requires_grad=True)
opt2 = torch.optim.Adam([a, c], lr=0.1)
for step in range(150):
    loss = F.binary_cross_entropy_with_logits(a * s + c, y)
    opt2.zero_grad()
    loss.backward()
    opt2.step()
print("platt a", round(a.item(), 4), "c", round(c.item(), 4), "loss", round(loss.item(), 4))
with torch.no_grad():
    p_platt = torch.sigmoid(a * s + c)
print("platt ECE", round(ece(p_platt, y)[0].item(), 4))


# isotonic regression by pool-adjacent-violators on sorted scores
def pava(yv, wv):
    vals, wts, sizes = [], [], []
    for v, wt in zip(yv.tolist(), wv.tolist()):
        vals.append(v)
        wts.append(wt)
        sizes.append(1)
        while len(vals) > 1 and vals[-2] > vals[-1]:
            v2, w2, s2 = vals.pop(), wts.pop(), sizes.pop()
            v1, w1, s1 = vals.pop(), wts.pop(), sizes.pop()
            vals.append((v1 * w1 + v2 * w2) / (w1 + w2))
            wts.append(w1 + w2)
            sizes.append(s1 + s2)
    return torch.repeat_interleave(torch.tensor(vals), torch.tensor(sizes))


order = torch.argsort(p_biased, stable=True)
iso_sorted = pava(y[order], torch.ones(n))
print("isotonic monotone", bool((iso_sorted[1:] >= iso_sorted[:-1] - 1e-7).all()), "levels",
      torch.unique(iso_sorted).numel())
p_iso = torch.empty(n).scatter_(0, order, iso_sorted.float())
print("isotonic mean", round(p_iso.mean().item(), 4), "ECE", round(ece(p_iso, y)[0].item(), 4))
grid = torch.tensor([0.05, 0.2, 0.5, 0.8])
pos = torch.searchsorted(p_biased[order].contiguous(), grid).clamp(max=n - 1)
print("isotonic lookup at", grid.tolist(), "->", iso_sorted[pos])

# ranking is unaffected by monotone recalibration
def auc(p, y):
    r = torch.empty(n)
    r[torch.argsort(p, stable=True)] = torch.arange(1, n + 1, dtype=torch.float32)
    npos = y.sum()
    return ((r * y).sum() - npos * (npos + 1) / 2) / (npos * (n - npos))


print("auc biased", round(auc(p_biased, y).item(), 4), "corrected", round(auc(p_cal, y).item(), 4),
      "platt", round(auc(p_platt, y).item(), 4))
