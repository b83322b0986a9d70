"""Discrete latent and autoregressive generative models: a Gumbel-softmax dVAE (RelaxedOneHotCategorical,
straight-through one-hot, KL to a uniform prior), MADE with masked linear layers, and an EDM/Karras sampler
with a preconditioned denoiser, Euler/Heun steps and stochastic churn."""

import math
import warnings
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.distributions as D

rng = np.random.default_rng(29)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def init_(module, scale=0.4):
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(T(*p.shape) * scale)
    return module


# --- dVAE with Gumbel-softmax latents ---
K, N = 4, 3  # categories per latent, latents
enc = init_(nn.Sequential(nn.Linear(8, 16), nn.ELU(), nn.Linear(16, N * K), nn.Unflatten(1, (N, K))))
dec = init_(nn.Sequential(nn.Flatten(), nn.Linear(N * K, 16), nn.ELU(), nn.Linear(16, 8)))
print(enc[-1], dec[0])
x = (T(6, 8) > 0).float()
logits = enc(x)
q = D.RelaxedOneHotCategorical(torch.tensor(0.7), logits=logits)
cat = D.OneHotCategorical(logits=logits)
print(q, cat, D.OneHotCategoricalStraightThrough(logits=logits))
print("shapes", q.batch_shape, q.event_shape, cat.event_shape, q.temperature.item() == 0.7)
soft = F.softmax(logits / 0.7, dim=-1)
print("relaxed log_prob", r(q.log_prob(soft)), r(cat.log_prob(F.one_hot(logits.argmax(-1), K).float())))
index = soft.max(dim=-1, keepdim=True)[1]
hard = torch.zeros_like(soft).scatter_(-1, index, 1.0)
st = hard - soft.detach() + soft
print("straight-through", torch.equal(st, hard), st.grad_fn is not None, r(st.sum(-1)))
g = F.gumbel_softmax(logits, tau=0.5, hard=True)
print("gumbel hard", tuple(g.shape), bool(((g == 0) | (g == 1)).all()), r(g.sum(-1)), g.requires_grad)
prior = D.OneHotCategorical(probs=torch.full((N, K), 1.0 / K))
kl = D.kl_divergence(cat, prior)
kl_manual = (F.softmax(logits, -1) * (F.log_softmax(logits, -1) + math.log(K))).sum(-1)
print("kl", r(kl), torch.allclose(kl, kl_manual, atol=1e-6), kl.shape)
opt = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=3e-3)
for step in range(3):
    tau = max(0.5, math.exp(-0.3 * step))
    lg = enc(x)
    y = F.softmax(lg / tau, dim=-1)
    z = torch.zeros_like(y).scatter_(-1, y.argmax(-1, keepdim=True), 1.0) - y.detach() + y
    recon = F.binary_cross_entropy_with_logits(dec(z), x, reduction="sum") / x.shape[0]
    klt = D.kl_divergence(D.OneHotCategorical(logits=lg), prior).sum(-1).mean()
    loss = recon + klt
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("dvae", step, round(tau, 4), round(recon.item(), 4), round(klt.item(), 4), r(enc[2].bias.grad, 4))
codes = enc(x).argmax(-1)


class HardOneHot(torch.autograd.Function):
    """One-hot of the argmax forward, softmax gradient backward (a straight-through Function)."""

    generate_vmap_rule = True

    @staticmethod
    def forward(lg):
        return F.one_hot(lg.argmax(-1), lg.shape[-1]).to(lg.dtype)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(F.softmax(inputs[0], -1))

    @staticmethod
    def backward(ctx, g):
        (p,) = ctx.saved_tensors
        return p * (g - (g * p).sum(-1, keepdim=True))


class LegacyHard(torch.autograd.Function):
    @staticmethod
    def forward(ctx, lg):
        return F.one_hot(lg.argmax(-1), lg.shape[-1]).to(lg.dtype)

    @staticmethod
    def backward(ctx, g):
        return g


lg0 = enc(x).detach()
w_out = torch.arange(K, dtype=torch.float32)
gfun = torch.func.grad(lambda l: (HardOneHot.apply(l) * w_out).sum())
print("st function", r(HardOneHot.apply(lg0[0])), r(gfun(lg0[0])), tuple(torch.func.vmap(gfun)(lg0).shape))
for bad in (lambda: torch.func.grad(lambda l: LegacyHard.apply(l).sum())(lg0[0]),
            lambda: torch.func.vmap(LegacyHard.apply)(lg0), lambda: LegacyHard()(lg0)):
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            bad()
    except RuntimeError as e:
        print("RuntimeError", e, [w.category.__name__ for w in caught])
print("codes", codes.tolist()[:3], torch.bincount(codes.flatten(), minlength=K).tolist())


# --- MADE ---
class MaskedLinear(nn.Linear):
    def __init__(self, in_f, out_f, bias=True):
        super().__init__(in_f, out_f, bias)
        self.register_buffer("mask", torch.ones(out_f, in_f))

    def set_mask(self, mask):
        self.mask.data.copy_(torch.from_numpy(mask.astype(np.uint8).T))

    def forward(self, input):
        return F.linear(input, self.mask * self.weight, self.bias)


D_IN, H = 4, 8
m_in = np.arange(D_IN)
m_h = np.array([i % (D_IN - 1) for i in range(H)])
masks = [m_in[:, None] <= m_h[None, :], m_h[:, None] < m_in[None, :]]
made = init_(nn.Sequential(MaskedLinear(D_IN, H), nn.ReLU(), MaskedLinear(H, D_IN)))
made[0].set_mask(masks[0])
made[2].set_mask(masks[1])
print("masks", made[0].mask.dtype, made[0].mask.long().sum().item(), made[2].mask.long().sum(1).tolist())
xin = T(1, D_IN).requires_grad_(True)
jac = torch.stack([torch.autograd.grad(made(xin)[0, i], xin, retain_graph=True)[0][0] for i in range(D_IN)])
print("autoregressive", torch.equal((jac != 0), torch.tril(torch.ones(D_IN, D_IN), -1).bool() & (jac != 0)),
      bool(torch.triu(jac).eq(0).all()))
xb = (T(5, D_IN) > 0).float()
nll = F.binary_cross_entropy_with_logits(made(xb), xb, reduction="none").sum(1)
print("made nll", r(nll))
sample = torch.zeros(2, D_IN)
u = torch.from_numpy(rng.random((2, D_IN)).astype(np.float32))
for i in range(D_IN):
    p = torch.sigmoid(made(sample))[:, i]
    sample[:, i] = (u[:, i] < p).float()
print("made sample", sample.tolist())


# --- EDM preconditioning and Karras sampler ---
def karras_sigmas(n, sigma_min=0.02, sigma_max=80.0, rho=7.0):
    ramp = torch.linspace(0, 1, n, dtype=torch.float64)
    s = (sigma_max ** (1 / rho) + ramp * (sigma_min ** (1 / rho) - sigma_max ** (1 / rho))) ** rho
    return torch.cat([s, torch.zeros_like(s[:1])])


class EDMDenoiser(nn.Module):
    def __init__(self, dim, sigma_data=0.5):
        super().__init__()
        self.sigma_data = sigma_data
        self.net = nn.Sequential(nn.Linear(dim + 1, 16), nn.SiLU(), nn.Linear(16, dim))

    def forward(self, x, sigma):
        sigma = sigma.reshape(-1, 1).to(torch.float32)
        sd2 = self.sigma_data ** 2
        c_skip = sd2 / (sigma ** 2 + sd2)
        c_out = sigma * self.sigma_data / (sigma ** 2 + sd2).sqrt()
        c_in = 1 / (sd2 + sigma ** 2).sqrt()
        c_noise = sigma.log() / 4
        f = self.net(torch.cat([c_in * x, c_noise], dim=1))
        return c_skip * x + c_out * f


den = init_(EDMDenoiser(3))
sig = karras_sigmas(5)
print("sigmas", r(sig), sig.dtype)
xe = T(2, 3) * sig[0].float()
for i, (s0, s1) in enumerate(zip(sig[:-1], sig[1:])):
    gamma = min(0.4 / 5, math.sqrt(2) - 1) if 0.05 <= s0 <= 50 else 0.0
    s_hat = s0 * (1 + gamma)
    xe = xe + (s_hat ** 2 - s0 ** 2).sqrt().float() * T(2, 3) * 0.5
    with torch.no_grad():
        d = (xe - den(xe, s_hat.expand(2))) / s_hat.float()
        x_next = xe + (s1 - s_hat).float() * d
        if s1 > 0:
            d2 = (x_next - den(x_next, s1.expand(2))) / s1.float()
            x_next = xe + (s1 - s_hat).float() * 0.5 * (d + d2)
    xe = x_next
    print("edm", i, round(s_hat.item(), 4), r(xe, 3))
try:
    torch.arange(4).clamp_(0.5, 2)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.cdist(T(2, 3), T(2, 3), p=-2)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    D.OneHotCategorical(logits=logits).log_prob(torch.zeros(6, N, K + 1))
except (RuntimeError, ValueError) as e:
    print(type(e).__name__, str(e).split("\n")[0])
