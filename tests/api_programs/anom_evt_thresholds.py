"""Statistical anomaly thresholds: Gaussian tail p-values (Normal.cdf, special.ndtr/ndtri, erfinv), chi-square
survival of Mahalanobis distances via special.gammaincc, the SPOT/POT method fitting a generalised Pareto tail with
LBFGS (strong Wolfe), histogram-based scores with histc/histogram(density), and Bonferroni/BH corrections."""

import math

import torch
from torch.distributions import Chi2, Normal, StudentT

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

z = torch.tensor([-3.0, -1.0, 0.0, 1.96, 4.0, 9.0], dtype=torch.float64)
n = Normal(0.0, 1.0)
print("cdf", n.cdf(z.float()), torch.special.ndtr(z))
print("two-sided p", 2 * (1 - torch.special.ndtr(z.abs())), torch.special.erfc(z.abs() / math.sqrt(2)))
print("log tails", torch.special.log_ndtr(-z), n.log_prob(torch.tensor([0.0, 40.0])))
q = torch.tensor([0.5, 0.975, 0.999, 1.0, 0.0], dtype=torch.float64)
print("ndtri", torch.special.ndtri(q), n.icdf(torch.tensor([0.975])), math.sqrt(2) * torch.erfinv(2 * q - 1))
print("erfinv corners", torch.erfinv(torch.tensor([-1.0, 1.0, 1.5, 0.0])), torch.erfinv(torch.tensor([0.5]).half()))

d = 4
m2 = torch.tensor([0.5, 3.0, 9.49, 20.0], dtype=torch.float64)
sf = torch.special.gammaincc(torch.tensor(d / 2, dtype=torch.float64), m2 / 2)
print("chi2 sf", sf, torch.special.gammainc(torch.tensor(2.0), torch.tensor([0.0, float("inf")])))
c2 = Chi2(torch.tensor(float(d)))
print("Chi2", c2.mean, c2.variance, c2.log_prob(torch.tensor([1.0, 9.49])), c2.concentration, c2.rate)
try:
    c2.icdf(torch.tensor([0.95]))
except NotImplementedError as e:
    print("NotImplementedError", e)
print("cdf via gamma", c2.cdf(torch.tensor([9.4877])).round(decimals=4))
t = StudentT(df=torch.tensor(3.0))
print("studentT", t.log_prob(torch.tensor([0.0, 5.0])), t.variance, StudentT(torch.tensor(1.5)).variance)

# SPOT: peaks over a high initial threshold, generalised Pareto fit by MLE with LBFGS
x = torch.distributions.Exponential(torch.tensor(1.0)).sample((500,)).double()
t0 = torch.quantile(x, 0.9)
peaks = x[x > t0] - t0
print("peaks", peaks.numel(), round(t0.item(), 4), peaks.dtype)
params = torch.zeros(2, dtype=torch.float64, requires_grad=True)
opt = torch.optim.LBFGS([params], lr=1, max_iter=50, line_search_fn="strong_wolfe", tolerance_grad=1e-9)


def nll():
    opt.zero_grad()
    xi, log_sigma = 0.01 + torch.sigmoid(params[0]), params[1]
    sigma = log_sigma.exp()
    loss = peaks.numel() * log_sigma + (1 / xi + 1) * torch.log1p(xi * peaks / sigma).sum()
    loss.backward()
    return loss


final = opt.step(nll)
xi, sigma = 0.01 + torch.sigmoid(params[0]).item(), params[1].exp().item()
print("gpd", round(xi, 3), round(sigma, 3), round(final.item(), 3))
st = opt.state[opt.param_groups[0]["params"][0]]
print("lbfgs state", sorted(k for k in st.keys()), st["n_iter"] > 0, type(st["func_evals"]).__name__)
q_risk, n_total, n_peaks = 1e-3, x.numel(), peaks.numel()
r = q_risk * n_total / n_peaks
z_q = t0 + sigma / xi * (r ** (-xi) - 1)
print("spot threshold", round(float(z_q), 2), "exceed", int((x > z_q).sum()))

# histogram scores (HBOS)
feats = torch.randn(200, 2)
scores = torch.zeros(200)
for j in range(2):
    hist = torch.histc(feats[:, j], bins=10, min=-4, max=4)
    edges = torch.linspace(-4, 4, 11)
    idx = torch.bucketize(feats[:, j], edges[1:-1])
    dens = hist / hist.sum() / 0.8
    scores += -torch.log(dens[idx] + 1e-6)
print("hbos", scores.topk(3).indices, round(scores.max().item(), 3))
h, e = torch.histogram(feats[:, 0], bins=5, range=(-2.0, 2.0), density=True)
print("histogram", h, e)
h2, e2 = torch.histogram(
    torch.tensor([1.0, 2.0, 1.0]), bins=torch.tensor([0.0, 1.0, 2.5]), weight=torch.tensor([1.0, 2.0, 3.0])
)
print(h2, e2, torch.histc(torch.tensor([1.0, 1.0, 1.0]), bins=3), torch.histc(torch.tensor([]), bins=2, min=0, max=1))
try:
    torch.histc(torch.tensor([1, 2]), bins=2)
except RuntimeError as err:
    print("RuntimeError", err)
try:
    torch.histc(torch.tensor([1.0]), bins=2, min=3, max=1)
except RuntimeError as err:
    print("RuntimeError", err)

# multiple testing corrections on p-values
p = torch.tensor([0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205])
m = p.numel()
print("bonferroni", (p * m).clamp(max=1.0) < 0.05)
order = p.argsort()
ranked = p[order] * m / torch.arange(1, m + 1)
adj = torch.flip(torch.cummin(torch.flip(ranked, [0]), 0).values, [0]).clamp(max=1)
bh = torch.empty_like(adj).scatter_(0, order, adj)
print("BH", bh, (bh < 0.05).nonzero().flatten())
