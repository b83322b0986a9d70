"""Maximum-likelihood inference and classical tests written by hand in PyTorch: a gamma MLE by Newton with digamma
and polygamma (and the same Hessian by autograd), observed Fisher information and Wald intervals, normal quantiles
by special.ndtri, chi-square and KS statistics, a bootstrap with a numpy RNG, kernel density estimates with
logsumexp, and torch.func transforms over parameters (grad with has_aux, jacrev argnums, vmap in_dims/chunk_size,
functional_call on a likelihood module)."""

import math

import numpy as np
import torch
from torch import nn
from torch.func import functional_call, grad, grad_and_value, jacrev, vmap

torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64
rng = np.random.default_rng(12)


def r(x, k=6, nd=4):
    return np.round(x.detach().double().flatten()[:k].numpy(), nd).tolist()


x = torch.from_numpy(rng.gamma(3.0, 2.0, 400))  # shape 3, scale 2
n = x.numel()
print("data", x.shape, x.dtype, "mean", round(x.mean().item(), 3), "var", round(x.var().item(), 3))

# method of moments start, then Newton on the profile likelihood in the shape k
mean, logmean, meanlog = x.mean(), x.mean().log(), x.log().mean()
s = logmean - meanlog
k = (3 - s + torch.sqrt((s - 3) ** 2 + 24 * s)) / (12 * s)
print("approx shape", round(k.item(), 4))
for it in range(6):
    f = torch.log(k) - torch.digamma(k) - s
    fp = 1 / k - torch.polygamma(1, k)
    k = k - f / fp
print(
    "MLE shape",
    round(k.item(), 4),
    "scale",
    round((mean / k).item(), 4),
    "special.digamma == digamma",
    torch.equal(torch.special.digamma(k), torch.digamma(k)),
)


def gamma_nll(params, data):
    log_k, log_theta = params.unbind()
    kk, th = log_k.exp(), log_theta.exp()
    return -(torch.xlogy(kk - 1, data) - data / th - torch.lgamma(kk) - kk * torch.log(th)).sum()


p_hat = torch.stack([k.log(), (mean / k).log()])
g_hat = torch.autograd.functional.jacobian(lambda p: gamma_nll(p, x), p_hat)
print("gradient at MLE ~0", bool(g_hat.abs().max() < 1e-8))
dist = torch.distributions.Gamma(k, 1 / (mean / k))
print("nll == -Gamma.log_prob", torch.allclose(gamma_nll(p_hat, x), -dist.log_prob(x).sum()))


# observed information in (k, theta) and Wald intervals
def nll_nat(kt):
    kk, th = kt.unbind()
    return -(torch.xlogy(kk - 1, x) - x / th - torch.lgamma(kk) - kk * torch.log(th)).sum()


kt = torch.stack([k, mean / k])
Iobs = torch.autograd.functional.hessian(nll_nat, kt)
# analytic: [[n psi'(k), n/theta], [n/theta, n k / theta^2]]
Ian = torch.stack([torch.stack([n * torch.polygamma(1, k), n / kt[1]]), torch.stack([n / kt[1], n * k / kt[1] ** 2])])
print("observed info", r(Iobs, 4, 2), "analytic match", torch.allclose(Iobs, Ian, rtol=1e-6))
cov = torch.linalg.inv(Iobs)
se = cov.diagonal().sqrt()
z975 = torch.special.ndtri(torch.tensor(0.975, dtype=f64))
print("z_0.975", round(z975.item(), 6), "ndtr back", round(torch.special.ndtr(z975).item(), 6))
lo, hi = kt - z975 * se, kt + z975 * se
print("95% CI k", r(torch.stack([lo[0], hi[0]]), nd=3), "theta", r(torch.stack([lo[1], hi[1]]), nd=3))
print("corr(k, theta)", round((cov[0, 1] / (se[0] * se[1])).item(), 4))

# goodness of fit: chi-square over quantile bins and the KS statistic
qs = torch.linspace(0.1, 0.9, 9, dtype=f64)
edges = torch.quantile(x, qs)
obs = torch.bincount(torch.bucketize(x, edges), minlength=10).to(f64)
cdf_edges = dist.cdf(edges)
probs = torch.diff(cdf_edges, prepend=torch.zeros(1, dtype=f64), append=torch.ones(1, dtype=f64))
chi2 = ((obs - n * probs) ** 2 / (n * probs)).sum()
print("chi2", round(chi2.item(), 3), "bins", obs.tolist()[:4])
xs, _ = torch.sort(x)
F_emp_hi = torch.arange(1, n + 1, dtype=f64) / n
F_emp_lo = torch.arange(0, n, dtype=f64) / n
Fm = dist.cdf(xs)
ks = torch.maximum((F_emp_hi - Fm).abs().max(), (Fm - F_emp_lo).abs().max())
print("KS D", round(ks.item(), 4), "critical 5%", round(1.358 / math.sqrt(n), 4))
print(
    "erf/erfc/erfinv",
    round(torch.erf(torch.tensor(0.5, dtype=f64)).item(), 6),
    round(torch.special.erfc(torch.tensor(0.5, dtype=f64)).item(), 6),
    round(torch.erfinv(torch.tensor(0.5, dtype=f64)).item(), 6),
)
print(
    "log_ndtr tail",
    round(torch.special.log_ndtr(torch.tensor(-10.0, dtype=f64)).item(), 4),
    "gammaln",
    round(torch.special.gammaln(torch.tensor(10.5, dtype=f64)).item(), 6),
)
print("gammainc", round(torch.special.gammainc(k, xs[200] / kt[1]).item(), 4), "== cdf", round(Fm[200].item(), 4))

# bootstrap the shape parameter (moment estimator, vectorised)
B = 200
idx = torch.from_numpy(rng.integers(0, n, (B, n)))
boot = x[idx]
k_mom = boot.mean(1) ** 2 / boot.var(1)
print(
    "bootstrap k",
    round(k_mom.mean().item(), 3),
    "se",
    round(k_mom.std().item(), 3),
    "CI",
    r(torch.quantile(k_mom, torch.tensor([0.025, 0.975], dtype=f64)), nd=2),
)

# kernel density estimate with logsumexp
grid = torch.linspace(0.5, 20, 6, dtype=f64)
h = 1.06 * x.std() * n ** (-0.2)
logk = -0.5 * ((grid[:, None] - x[None, :]) / h) ** 2 - math.log(h * math.sqrt(2 * math.pi))
kde = torch.exp(torch.logsumexp(logk, 1) - math.log(n))
print("bandwidth", round(h.item(), 4), "kde", r(kde, nd=4), "pdf", r(dist.log_prob(grid).exp(), nd=4))


# torch.func over the likelihood
def nll_aux(params, data):
    v = gamma_nll(params, data)
    return v, {"mean_loglik": -v / data.numel()}


gvec, aux = grad(nll_aux, has_aux=True)(p_hat, x)
print("grad has_aux", gvec.shape, "aux", round(aux["mean_loglik"].item(), 4))
g2, val = grad_and_value(gamma_nll)(p_hat + 0.1, x)
print("grad_and_value", r(g2, nd=2), round(val.item(), 3))
jd = jacrev(gamma_nll, argnums=1)(p_hat, x[:5])
print("jacrev argnums=1", jd.shape, r(jd, 5, 4))
per_point = vmap(lambda xi: gamma_nll(p_hat, xi[None]))(x[:8])
print("vmap per-point nll", r(per_point, 4, 4), "sum", torch.allclose(per_point.sum(), gamma_nll(p_hat, x[:8])))
scores = vmap(grad(gamma_nll), in_dims=(None, 0))(p_hat, x[:, None])
print("per-point scores", scores.shape, "mean ~0", bool(scores.mean(0).abs().max() < 1e-8))
fisher_opg = scores.T @ scores
print("OPG vs hessian (log scale)", r(fisher_opg, 4, 1), r(torch.func.hessian(gamma_nll)(p_hat, x), 4, 1))
chunked = vmap(grad(gamma_nll), in_dims=(None, 0), chunk_size=64)(p_hat, x[:, None])
print("chunk_size same", torch.allclose(chunked, scores))
grid_k = torch.stack([torch.linspace(2.0, 4.0, 5, dtype=f64).log(), torch.full((5,), kt[1].log().item(), dtype=f64)], 1)
prof = vmap(gamma_nll, in_dims=(0, None))(grid_k, x)
print("profile nll", r(prof - prof.min(), 5, 2))


class GammaLik(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_k = nn.Parameter(torch.zeros((), dtype=f64))
        self.log_theta = nn.Parameter(torch.zeros((), dtype=f64))

    def forward(self, data):
        return gamma_nll(torch.stack([self.log_k, self.log_theta]), data)


model = GammaLik()
params = {"log_k": p_hat[0], "log_theta": p_hat[1]}
print(
    "functional_call",
    round(functional_call(model, params, (x,)).item(), 4),
    "module params untouched",
    model.log_k.item(),
)
g_mod = grad(lambda p: functional_call(model, p, (x,)))(params)
print("grad wrt dict", sorted(g_mod), bool(max(abs(v.item()) for v in g_mod.values()) < 1e-8))
opt = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=100, line_search_fn="strong_wolfe")


def closure():
    opt.zero_grad()
    loss = model(x)
    loss.backward()
    return loss


opt.step(closure)
print("LBFGS on module", round(model.log_k.exp().item(), 4), round(model.log_theta.exp().item(), 4))

try:
    grad(lambda p: (p * 2, 1))(p_hat)
except Exception as e:
    print(type(e).__name__, str(e)[:100])
try:
    vmap(gamma_nll, in_dims=(0, 0))(grid_k, x)
except Exception as e:
    print(type(e).__name__, str(e)[:100])
try:
    torch.polygamma(-1, k)
except Exception as e:
    print(type(e).__name__, e)
