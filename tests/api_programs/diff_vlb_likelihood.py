"""Likelihood evaluation of improved DDPM (Nichol & Dhariwal): learned-variance interpolation between beta_t and
the posterior's beta tilde, the clipped log posterior variance, normal KL between Gaussians, the discretized
Gaussian log-likelihood of 8-bit data with tanh's CDF approximation and torch.special's ndtr/log_ndtr, bits per
dim of the VLB terms, and the prior term at t = T."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)


def r(t, n=6):
    return [round(v, 4) for v in t.detach().double().flatten()[:n].tolist()]


T = 50
betas = torch.linspace(1e-4 * 1000 / T, 0.02 * 1000 / T, T, dtype=torch.float64)
alphas = 1 - betas
ac = torch.cumprod(alphas, 0)
ac_prev = torch.cat([torch.ones(1, dtype=torch.float64), ac[:-1]])
ac_prev2 = F.pad(ac[:-1], (1, 0), value=1.0)
post_var = betas * (1 - ac_prev) / (1 - ac)
post_log_var_clipped = torch.log(torch.cat([post_var[1:2], post_var[1:]]))
post_c1 = betas * ac_prev.sqrt() / (1 - ac)
post_c2 = (1 - ac_prev) * alphas.sqrt() / (1 - ac)
print(
    "pad == cat:",
    torch.equal(ac_prev, ac_prev2),
    "post_var[0]:",
    post_var[0].item(),
    "clipped:",
    r(post_log_var_clipped[:3], 3),
)
print("coefs:", r(post_c1[[0, 25, 49]], 3), r(post_c2[[0, 25, 49]], 3))


def extract(a, t, shape):
    return a.gather(-1, t).float().reshape(t.shape[0], *((1,) * (len(shape) - 1)))


def normal_kl(mean1, logvar1, mean2, logvar2):
    return 0.5 * (-1.0 + logvar2 - logvar1 + torch.exp(logvar1 - logvar2) + (mean1 - mean2) ** 2 * torch.exp(-logvar2))


def approx_standard_normal_cdf(x):
    return 0.5 * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3))))


def discretized_gaussian_log_likelihood(x, means, log_scales, cdf=approx_standard_normal_cdf):
    centered_x = x - means
    inv_stdv = torch.exp(-log_scales)
    cdf_plus = cdf(inv_stdv * (centered_x + 1.0 / 255.0))
    cdf_min = cdf(inv_stdv * (centered_x - 1.0 / 255.0))
    log_cdf_plus = torch.log(cdf_plus.clamp(min=1e-12))
    log_one_minus_cdf_min = torch.log((1.0 - cdf_min).clamp(min=1e-12))
    cdf_delta = cdf_plus - cdf_min
    return torch.where(
        x < -0.999, log_cdf_plus, torch.where(x > 0.999, log_one_minus_cdf_min, torch.log(cdf_delta.clamp(min=1e-12)))
    )


def mean_flat(t):
    return t.mean(dim=list(range(1, len(t.shape))))


img = torch.randint(0, 256, (3, 2, 4, 4), generator=torch.Generator().manual_seed(0)).to(torch.uint8)
x0 = img.float() / 127.5 - 1
print("data:", img.dtype, img.min().item(), img.max().item(), round(x0.mean().item(), 4))
t = torch.tensor([0, 10, 49])
noise = torch.randn_like(x0)
xt = extract(ac.sqrt(), t, x0.shape) * x0 + extract((1 - ac).sqrt(), t, x0.shape) * noise

# a fake model output: epsilon and v in [-1, 1] for the log-variance interpolation
model_eps = noise * 0.9 + 0.05
model_v = torch.tanh(x0 * 0.3)
min_log = extract(post_log_var_clipped, t, x0.shape)
max_log = extract(torch.log(betas), t, x0.shape)
frac = (model_v + 1) / 2
model_log_var = frac * max_log + (1 - frac) * min_log
pred_x0 = (
    extract((1.0 / ac).sqrt(), t, x0.shape) * xt - extract((1.0 / ac - 1).sqrt(), t, x0.shape) * model_eps
).clamp(-1, 1)
model_mean = extract(post_c1, t, x0.shape) * pred_x0 + extract(post_c2, t, x0.shape) * xt
true_mean = extract(post_c1, t, x0.shape) * x0 + extract(post_c2, t, x0.shape) * xt
true_log_var = extract(post_log_var_clipped, t, x0.shape)

kl = mean_flat(normal_kl(true_mean, true_log_var, model_mean, model_log_var)) / math.log(2.0)
nll = -discretized_gaussian_log_likelihood(x0, model_mean, 0.5 * model_log_var)
nll_bpd = mean_flat(nll) / math.log(2.0)
vb = torch.where(t == 0, nll_bpd, kl)
print("kl bpd:", r(kl), "decoder nll bpd:", r(nll_bpd), "vb:", r(vb))

exact = lambda z: torch.special.ndtr(z)
nll_exact = -discretized_gaussian_log_likelihood(x0, model_mean, 0.5 * model_log_var, cdf=exact)
print("exact cdf bpd:", r(mean_flat(nll_exact) / math.log(2.0)))
z = torch.tensor([-40.0, -10.0, -1.0, 0.0, 3.0, 10.0])
print("ndtr:", r(torch.special.ndtr(z)), "log_ndtr:", r(torch.special.log_ndtr(z)))
print("erf path:", r(0.5 * torch.erfc(-z / math.sqrt(2))), "approx:", r(approx_standard_normal_cdf(z)))
print("log of approx at -40:", torch.log(approx_standard_normal_cdf(z[:1]).clamp(min=1e-12)).item())

# prior term at t=T: KL(q(x_T|x_0) || N(0, I))
qt_mean = extract(ac.sqrt(), torch.full((3,), T - 1), x0.shape) * x0
qt_logvar = extract(torch.log(1 - ac), torch.full((3,), T - 1), x0.shape)
prior = mean_flat(normal_kl(qt_mean, qt_logvar, torch.tensor(0.0), torch.tensor(0.0))) / math.log(2.0)
print("prior bpd:", r(prior), "total (T*vb+prior):", r(T * vb + prior))

# gradient reaches the variance interpolation
mv = model_v.clone().requires_grad_(True)
frac = (mv + 1) / 2
lv = frac * max_log + (1 - frac) * min_log
loss = mean_flat(normal_kl(true_mean, true_log_var, model_mean.detach(), lv)).sum()
loss.backward()
print("var grad:", round(mv.grad.abs().sum().item(), 4), mv.grad.dtype)
try:
    extract(ac.sqrt(), torch.tensor([50]), x0.shape)
except Exception as e:
    print(type(e).__name__, e)
try:
    img.float().clamp(min=torch.tensor([0.0, 1.0]))
except Exception as e:
    print(type(e).__name__, e)
print(
    "uint8 arithmetic:",
    (img[0, 0, 0] + 200).tolist(),
    (img[0, 0, 0].float() / 127.5 - 1).dtype,
    (img[0, 0, 0] / 2).dtype,
)
