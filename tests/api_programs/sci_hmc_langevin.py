"""Hamiltonian Monte Carlo and Langevin samplers for a Bayesian logistic regression posterior: log densities and
their gradients by autograd, leapfrog integration, Metropolis corrections with a numpy RNG, MALA and unadjusted
Langevin, posterior summaries (mean, cov, corrcoef, quantile), effective sample size from autocorrelations, and
potential-scale reduction over chains."""

import math

import numpy as np
import torch

torch.set_printoptions(precision=4, sci_mode=False)
rng = np.random.default_rng(3)
f64 = torch.float64


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


n, d = 60, 3
X = torch.from_numpy(rng.standard_normal((n, d)))
X[:, 0] = 1.0
w_true = torch.tensor([0.5, -1.0, 2.0], dtype=f64)
p = torch.sigmoid(X @ w_true)
y = torch.from_numpy((rng.random(n) < p.numpy()).astype(np.float64))
print("data", X.shape, X.dtype, "positives", int(y.sum().item()))


def log_post(w, prior_scale=2.0):
    logits = X @ w
    ll = -torch.nn.functional.binary_cross_entropy_with_logits(logits, y, reduction="sum")
    lp = torch.distributions.Normal(0.0, prior_scale).log_prob(w).sum()
    return ll + lp


def grad_log_post(w):
    w = w.detach().requires_grad_(True)
    lp = log_post(w)
    (g,) = torch.autograd.grad(lp, w)
    return lp.detach(), g


w0 = torch.zeros(d, dtype=f64)
lp0, g0 = grad_log_post(w0)
print("log p(w0)", round(lp0.item(), 4), "grad", r(g0))
# analytic gradient check: X^T (y - sigmoid(Xw)) - w / s^2
g_an = X.T @ (y - torch.sigmoid(X @ w0)) - w0 / 4.0
print("grad matches analytic", torch.allclose(g0, g_an), "max err", float((g0 - g_an).abs().max()) < 1e-12)

# MAP by Newton with the autograd Hessian
w = w0.clone()
for it in range(8):
    _, g = grad_log_post(w)
    H = torch.autograd.functional.hessian(log_post, w)
    w = w - torch.linalg.solve(H, g)
print("MAP", r(w), "|grad|", float(grad_log_post(w)[1].norm()) < 1e-8)
H = torch.autograd.functional.hessian(log_post, w)
laplace_cov = torch.linalg.inv(-H)
print("Laplace sd", r(laplace_cov.diagonal().sqrt()), "symmetric", torch.allclose(laplace_cov, laplace_cov.T))
w_map = w.clone()


def leapfrog(q, pmom, eps, L):
    _, g = grad_log_post(q)
    pmom = pmom + 0.5 * eps * g
    for i in range(L):
        q = q + eps * pmom
        _, g = grad_log_post(q)
        if i < L - 1:
            pmom = pmom + eps * g
    pmom = pmom + 0.5 * eps * g
    return q, pmom


def hmc(q, n_samples, eps=0.12, L=10, seed=0):
    rs = np.random.default_rng(seed)
    samples, accepts = [], 0
    lp_q = grad_log_post(q)[0]
    for _ in range(n_samples):
        p0 = torch.from_numpy(rs.standard_normal(d))
        q_new, p_new = leapfrog(q, p0, eps, L)
        lp_new = grad_log_post(q_new)[0]
        log_accept = (lp_new - 0.5 * p_new.dot(p_new)) - (lp_q - 0.5 * p0.dot(p0))
        if math.log(rs.random()) < log_accept.item():
            q, lp_q = q_new, lp_new
            accepts += 1
        samples.append(q)
    return torch.stack(samples), accepts / n_samples


# energy conservation of the integrator
p0 = torch.from_numpy(rng.standard_normal(d))
H0 = -grad_log_post(w_map)[0] + 0.5 * p0.dot(p0)
q1, p1 = leapfrog(w_map, p0, 0.05, 20)
H1 = -grad_log_post(q1)[0] + 0.5 * p1.dot(p1)
print("leapfrog |dH| small", abs((H1 - H0).item()) < 0.05)
q_back, p_back = leapfrog(q1, -p1, 0.05, 20)
print("reversible", torch.allclose(q_back, w_map, atol=1e-10), torch.allclose(-p_back, p0, atol=1e-10))

chains = []
for c in range(3):
    s, acc = hmc(w_map + 0.1 * c, 70, eps=0.2, L=6, seed=c)
    chains.append(s[10:])
    print(f"chain {c} accept {acc:.3f} mean", r(s[10:].mean(0)))
chains = torch.stack(chains)
print("chains", chains.shape, chains.dtype)

flat = chains.reshape(-1, d)
print("posterior mean", np.round(flat.mean(0).numpy(), 2).tolist())
print("posterior cov diag", np.round(torch.cov(flat.T).diagonal().numpy(), 2).tolist())
print(
    "corrcoef shape",
    torch.corrcoef(flat.T).shape,
    "unit diag",
    torch.allclose(torch.corrcoef(flat.T).diagonal(), torch.ones(d, dtype=f64)),
)
qs = torch.quantile(flat, torch.tensor([0.05, 0.5, 0.95], dtype=f64), dim=0)
print("quantiles", qs.shape, "ordered", bool((qs[0] <= qs[1]).all() and (qs[1] <= qs[2]).all()))


def autocorr(x, max_lag):
    x = x - x.mean()
    n = x.shape[0]
    f = torch.fft.rfft(x, n=2 * n)
    ac = torch.fft.irfft(f * f.conj(), n=2 * n)[:max_lag]
    return ac / ac[0]


def ess(x):
    ac = autocorr(x, 40)
    neg = (ac < 0).nonzero()
    cut = int(neg[0]) if neg.numel() else 40
    return x.shape[0] / (1 + 2 * ac[1:cut].sum())


ac = autocorr(flat[:, 1], 5)
print("autocorr lag0", ac[0].item(), "decreasing-ish", bool(ac[1] < 1.0))
print("ess positive", all(float(ess(chains[c, :, 1])) > 0 for c in range(3)))


def rhat(ch):
    m, nn_ = ch.shape[:2]
    means = ch.mean(1)
    B = nn_ * means.var(0, unbiased=True)
    W = ch.var(1, unbiased=True).mean(0)
    var = (nn_ - 1) / nn_ * W + B / nn_
    return (var / W).sqrt()


print("rhat < 1.2", bool((rhat(chains) < 1.2).all()), rhat(chains).shape)


# MALA and ULA with a fixed step
def mala(q, n_samples, h, seed, adjust=True):
    rs = np.random.default_rng(seed)
    out, acc = [], 0
    lp_q, g_q = grad_log_post(q)
    for _ in range(n_samples):
        z = torch.from_numpy(rs.standard_normal(d))
        prop = q + 0.5 * h * g_q + math.sqrt(h) * z
        lp_p, g_p = grad_log_post(prop)
        if adjust:
            fwd = -((prop - q - 0.5 * h * g_q) ** 2).sum() / (2 * h)
            bwd = -((q - prop - 0.5 * h * g_p) ** 2).sum() / (2 * h)
            ok = math.log(rs.random()) < (lp_p + bwd - lp_q - fwd).item()
        else:
            ok = True
        if ok:
            q, lp_q, g_q = prop, lp_p, g_p
            acc += 1
        out.append(q)
    return torch.stack(out), acc / n_samples


s_mala, a_mala = mala(w_map, 150, 0.05, 7)
s_ula, a_ula = mala(w_map, 150, 0.05, 7, adjust=False)
print("MALA accept", round(a_mala, 3), "ULA accept", a_ula)
print("MALA mean", np.round(s_mala[30:].mean(0).numpy(), 1).tolist(), "ULA finite", bool(torch.isfinite(s_ula).all()))

# log evidence by importance sampling from the Laplace approximation
prop = torch.distributions.MultivariateNormal(w_map, covariance_matrix=laplace_cov)
print("proposal", prop, prop.batch_shape, prop.event_shape)
z = torch.from_numpy(rng.standard_normal((400, d)))
L_chol = torch.linalg.cholesky(laplace_cov)
draws = w_map + z @ L_chol.T
logw = torch.stack([log_post(wi) for wi in draws]) - prop.log_prob(draws)
log_Z = torch.logsumexp(logw, 0) - math.log(400)
lap_Z = lp0 * 0 + log_post(w_map) + 0.5 * d * math.log(2 * math.pi) + 0.5 * torch.logdet(laplace_cov)
print("log Z (IS)", round(log_Z.item(), 2), "log Z (Laplace)", round(lap_Z.item(), 2))
wnorm = torch.softmax(logw, 0)
print("IS ess", round((1 / (wnorm**2).sum()).item(), 1), "weights sum", round(wnorm.sum().item(), 6))
