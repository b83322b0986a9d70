"""Diffusion samplers on an analytic Gaussian denoiser and a small MLP: DDPM ancestral, DDIM (eta=0 and eta>0),
Karras sigmas with Euler and Heun (k-diffusion style), DPM-Solver++(2M), and the x0 clipping/thresholding they use.
Noise comes from a fixed deterministic bank so every sampler's trajectory is reproducible across backends."""

import math

import torch
import torch.nn as nn

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)


def r(x, n=6):
    return [round(v, 4) for v in x.detach().double().flatten()[:n].tolist()]


D, B = 4, 3
MU = torch.tensor([0.5, -1.0, 0.25, 2.0])
S = torch.tensor([0.3, 0.8, 1.2, 0.5])


def analytic_x0(x, sigma):
    """E[x0 | x = x0 + sigma * eps] for x0 ~ N(MU, S^2): the optimal denoiser, so samplers can be checked."""
    sigma = sigma.reshape(-1, 1) if torch.is_tensor(sigma) and sigma.ndim else sigma
    return (S ** 2 * x + sigma ** 2 * MU) / (S ** 2 + sigma ** 2)


class Bank:
    """Deterministic 'randn' stand-in: a golden-ratio sequence pushed through the normal quantile function."""

    def __init__(self):
        self.i = 0

    def __call__(self, *shape):
        n = math.prod(shape)
        k = torch.arange(n, dtype=torch.float32) + 97 * self.i
        self.i += 1
        u = torch.remainder(k * 0.7548777 + 0.5698403, 1.0).clamp(1e-3, 1 - 1e-3)
        return torch.special.ndtri(u).reshape(shape)


# ---- discrete DDPM / DDIM on a VP schedule ----
TT = 100
betas = torch.linspace(1e-4, 0.2, TT, dtype=torch.float64)
ac = torch.cumprod(1 - betas, 0).float()
betas = betas.float()


def eps_model(x, t):
    a = ac[t].sqrt().reshape(-1, 1)
    s = (1 - ac[t]).sqrt().reshape(-1, 1)
    sigma = s / a
    x0 = analytic_x0(x / a, sigma)
    return (x - a * x0) / s


@torch.no_grad()
def ddpm_sample(noise):
    x = noise(B, D)
    for i in reversed(range(TT)):
        t = torch.full((B,), i, dtype=torch.long)
        eps = eps_model(x, t)
        ab, b = ac[i], betas[i]
        ab_prev = ac[i - 1] if i > 0 else torch.tensor(1.0)
        x0 = ((x - (1 - ab).sqrt() * eps) / ab.sqrt()).clamp(-3, 3)
        mean = (b * ab_prev.sqrt() / (1 - ab)) * x0 + ((1 - ab_prev) * (1 - b).sqrt() / (1 - ab)) * x
        if i > 0:
            var = b * (1 - ab_prev) / (1 - ab)
            x = mean + var.sqrt() * noise(B, D)
        else:
            x = mean
    return x


@torch.no_grad()
def ddim_sample(noise, steps, eta=0.0):
    seq = torch.linspace(0, TT - 1, steps).long().tolist()
    x = noise(B, D)
    for i, j in zip(reversed(seq), reversed([-1] + seq[:-1])):
        at = ac[i]
        an = ac[j] if j >= 0 else torch.tensor(1.0)
        e = eps_model(x, torch.full((B,), i, dtype=torch.long))
        x0 = (x - e * (1 - at).sqrt()) / at.sqrt()
        c1 = eta * ((1 - at / an) * (1 - an) / (1 - at)).sqrt()
        c2 = ((1 - an) - c1 ** 2).sqrt()
        x = an.sqrt() * x0 + c1 * noise(B, D) + c2 * e
    return x, seq


x = ddpm_sample(Bank())
print("ddpm", x.shape, r(x, 8))
x, seq = ddim_sample(Bank(), 10)
print("ddim eta=0", seq, r(x, 8))
x, _ = ddim_sample(Bank(), 25, eta=1.0)
print("ddim eta=1", r(x, 8))

# ---- DDIM is deterministic and invertible for eta=0: same noise -> same sample ----
x1, _ = ddim_sample(Bank(), 10)
x2, _ = ddim_sample(Bank(), 10)
print("ddim deterministic", torch.equal(x1, x2))


# ---- k-diffusion style: Karras sigmas, Euler, Heun, DPM-Solver++(2M) ----
def get_sigmas_karras(n, sigma_min, sigma_max, rho=7.0):
    ramp = torch.linspace(0, 1, n)
    min_inv_rho = sigma_min ** (1 / rho)
    max_inv_rho = sigma_max ** (1 / rho)
    sigmas = (max_inv_rho + ramp * (min_inv_rho - max_inv_rho)) ** rho
    return torch.cat([sigmas, sigmas.new_zeros([1])])


def get_sigmas_exponential(n, sigma_min, sigma_max):
    sigmas = torch.linspace(math.log(sigma_max), math.log(sigma_min), n).exp()
    return torch.cat([sigmas, sigmas.new_zeros([1])])


def to_d(x, sigma, denoised):
    return (x - denoised) / sigma


@torch.no_grad()
def sample_euler(model, x, sigmas):
    for i in range(len(sigmas) - 1):
        denoised = model(x, sigmas[i] * x.new_ones([x.shape[0]]))
        d = to_d(x, sigmas[i], denoised)
        x = x + d * (sigmas[i + 1] - sigmas[i])
    return x


@torch.no_grad()
def sample_heun(model, x, sigmas):
    for i in range(len(sigmas) - 1):
        s_in = x.new_ones([x.shape[0]])
        denoised = model(x, sigmas[i] * s_in)
        d = to_d(x, sigmas[i], denoised)
        dt = sigmas[i + 1] - sigmas[i]
        if sigmas[i + 1] == 0:
            x = x + d * dt
        else:
            x_2 = x + d * dt
            d_2 = to_d(x_2, sigmas[i + 1], model(x_2, sigmas[i + 1] * s_in))
            x = x + (d + d_2) / 2 * dt
    return x


@torch.no_grad()
def sample_dpmpp_2m(model, x, sigmas):
    sigma_fn = lambda t: t.neg().exp()
    t_fn = lambda sigma: sigma.log().neg()
    old_denoised = None
    for i in range(len(sigmas) - 1):
        denoised = model(x, sigmas[i] * x.new_ones([x.shape[0]]))
        t, t_next = t_fn(sigmas[i]), t_fn(sigmas[i + 1])
        h = t_next - t
        if old_denoised is None or sigmas[i + 1] == 0:
            x = (sigma_fn(t_next) / sigma_fn(t)) * x - (-h).expm1() * denoised
        else:
            h_last = t - t_fn(sigmas[i - 1])
            r_ = h_last / h
            denoised_d = (1 + 1 / (2 * r_)) * denoised - (1 / (2 * r_)) * old_denoised
            x = (sigma_fn(t_next) / sigma_fn(t)) * x - (-h).expm1() * denoised_d
        old_denoised = denoised
    return x


sig = get_sigmas_karras(12, 0.002, 80.0)
print("karras", sig[:4], sig[-3:], sig.dtype, len(sig))
print("exponential", r(get_sigmas_exponential(6, 0.01, 10.0), 7))
x_T = Bank()(256, D) * sig[0]
calls = {"n": 0}


def counted(x, s):
    calls["n"] += 1
    return analytic_x0(x, s)


for name, fn in [("euler", sample_euler), ("heun", sample_heun), ("dpmpp_2m", sample_dpmpp_2m)]:
    calls["n"] = 0
    out = fn(counted, x_T.clone(), sig)
    print(f"{name:9s} nfe={calls['n']:2d} mean {r(out.mean(0), 4)} std {r(out.std(0), 2)}")

# ---- a learned denoiser with EDM preconditioning, deterministic weights ----
class Denoiser(nn.Module):
    def __init__(self, sigma_data=0.5):
        super().__init__()
        self.sigma_data = sigma_data
        self.net = nn.Sequential(nn.Linear(D + 1, 32), nn.SiLU(), nn.Linear(32, 32), nn.SiLU(), nn.Linear(32, D))
        with torch.no_grad():
            for k, p in enumerate(self.parameters()):
                p.copy_(0.3 * torch.sin(torch.arange(p.numel(), dtype=torch.float32) * (0.7 + 0.11 * k)).view_as(p))

    def forward(self, x, sigma):
        sigma = sigma.reshape(-1, 1)
        c_skip = self.sigma_data ** 2 / (sigma ** 2 + self.sigma_data ** 2)
        c_out = sigma * self.sigma_data / (sigma ** 2 + self.sigma_data ** 2).sqrt()
        c_in = 1 / (sigma ** 2 + self.sigma_data ** 2).sqrt()
        c_noise = sigma.log() / 4
        F_x = self.net(torch.cat([c_in * x, c_noise], dim=1))
        return c_skip * x + c_out * F_x


model = Denoiser().eval()
xs = Bank()(5, D) * 10.0
for name, fn in [("euler", sample_euler), ("heun", sample_heun), ("dpmpp_2m", sample_dpmpp_2m)]:
    out = fn(model, xs.clone(), get_sigmas_karras(8, 0.002, 10.0))
    print(f"mlp {name:9s}", r(out, 8), out.requires_grad)

# ---- dynamic thresholding (Imagen): per-sample quantile of |x0| ----
x0_pred = torch.linspace(-3, 3, 2 * 8).reshape(2, 8) * torch.tensor([[1.0], [0.4]])
s = torch.quantile(x0_pred.abs().reshape(2, -1), 0.9, dim=1)
s = torch.maximum(s, torch.ones_like(s)).view(-1, 1)
print("threshold s", s.flatten(), "clipped", r(torch.clamp(x0_pred, -s, s) / s, 8))
