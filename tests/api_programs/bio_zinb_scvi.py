"""scVI-style count likelihoods: negative-binomial and zero-inflated NB log-probabilities written with lgamma and
softplus in log space (mu/theta and logits parameterisations), checked against torch.distributions.NegativeBinomial
and Poisson, an encoder/decoder VAE with library-size offsets and a KL warmup, gradients of lgamma/digamma, and the
special-function corners (polygamma, multigammaln, gammaln at poles, xlog1py)."""

import math

import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions

torch.manual_seed(0)
f64 = torch.float64


def log_nb_positive(x, mu, theta, eps=1e-8):
    log_theta_mu_eps = torch.log(theta + mu + eps)
    return (
        theta * (torch.log(theta + eps) - log_theta_mu_eps)
        + x * (torch.log(mu + eps) - log_theta_mu_eps)
        + torch.lgamma(x + theta)
        - torch.lgamma(theta)
        - torch.lgamma(x + 1)
    )


def log_zinb_positive(x, mu, theta, pi_logits, eps=1e-8):
    softplus_pi = F.softplus(-pi_logits)
    log_theta_eps = torch.log(theta + eps)
    log_theta_mu_eps = torch.log(theta + mu + eps)
    pi_theta_log = -pi_logits + theta * (log_theta_eps - log_theta_mu_eps)
    case_zero = F.softplus(pi_theta_log) - softplus_pi
    mul_case_zero = torch.mul((x < eps).type(torch.float32), case_zero)
    case_non_zero = (
        -softplus_pi
        + pi_theta_log
        + x * (torch.log(mu + eps) - log_theta_mu_eps)
        + torch.lgamma(x + theta)
        - torch.lgamma(theta)
        - torch.lgamma(x + 1.0)
    )
    mul_case_non_zero = torch.mul((x > eps).type(torch.float32), case_non_zero)
    return mul_case_zero + mul_case_non_zero


x = torch.tensor([[0.0, 1.0, 5.0, 20.0], [0.0, 0.0, 2.0, 100.0]])
mu = torch.tensor([[0.5, 2.0, 4.0, 25.0], [0.1, 1.0, 3.0, 80.0]])
theta = torch.tensor([2.0, 0.5, 10.0, 1.5])
ll = log_nb_positive(x, mu, theta)
print("nb ll", ll.round(decimals=4).tolist())
nb = D.NegativeBinomial(total_count=theta, logits=torch.log(mu) - torch.log(theta))
print("torch NB", nb.log_prob(x).round(decimals=4).tolist())
print("NB mean/var", nb.mean[0].round(decimals=4).tolist(), nb.variance[1].round(decimals=4).tolist())
nb_p = D.NegativeBinomial(total_count=theta, probs=mu / (mu + theta))
print("NB probs param", torch.allclose(nb_p.log_prob(x), nb.log_prob(x), atol=1e-4), nb_p.batch_shape)
zinb = log_zinb_positive(x, mu, theta, torch.tensor([-1.0, 0.0, 1.0, 2.0]))
print("zinb ll", zinb.round(decimals=4).tolist())
p_zero = torch.sigmoid(torch.tensor(-1.0)) + torch.sigmoid(torch.tensor(1.0)) * (2.0 / 2.5) ** 2
print("zinb zero check", round(math.log(p_zero.item()), 4))
pois = D.Poisson(mu)
print(
    "poisson",
    pois.log_prob(x).round(decimals=4).tolist()[0],
    torch.allclose(-F.poisson_nll_loss(torch.log(mu), x, full=True, reduction="none"), pois.log_prob(x), atol=1e-3),
)


class SCVI(nn.Module):
    def __init__(self, n_genes, n_latent=3, n_hidden=16):
        super().__init__()
        self.enc = nn.Sequential(
            nn.Linear(n_genes, n_hidden), nn.BatchNorm1d(n_hidden, eps=1e-3, momentum=0.01), nn.ReLU()
        )
        self.mean, self.logvar = nn.Linear(n_hidden, n_latent), nn.Linear(n_hidden, n_latent)
        self.dec = nn.Sequential(nn.Linear(n_latent, n_hidden), nn.ReLU())
        self.scale = nn.Linear(n_hidden, n_genes)
        self.dropout = nn.Linear(n_hidden, n_genes)
        self.px_r = nn.Parameter(torch.randn(n_genes))

    def forward(self, x):
        lib = x.sum(1, keepdim=True)
        h = self.enc(torch.log1p(x))
        qm, qv = self.mean(h), self.logvar(h).exp() + 1e-4
        z = D.Normal(qm, qv.sqrt()).rsample()
        d = self.dec(z)
        px_scale = self.scale(d).softmax(-1)
        return qm, qv, z, lib * px_scale, self.px_r.exp(), self.dropout(d)


counts = torch.poisson(torch.rand(32, 10) * 6)
counts = torch.tensor([[float((i * 7 + j * 3) % 9) for j in range(10)] for i in range(32)])
model = SCVI(10)
opt = torch.optim.Adam(model.parameters(), lr=1e-2, eps=0.01)
for epoch in range(6):
    qm, qv, z, px_rate, px_r, px_drop = model(counts)
    recon = -log_zinb_positive(counts, px_rate, px_r, px_drop).sum(-1)
    kl = D.kl_divergence(D.Normal(qm, qv.sqrt()), D.Normal(torch.zeros_like(qm), torch.ones_like(qv))).sum(-1)
    warm = min(1.0, epoch / 3)
    loss = (recon + warm * kl).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(
        epoch, "recon", recon.shape, "kl", round(kl.mean().item(), 1) >= 0, "warm", round(warm, 4), recon.grad_fn.name()
    )
print("latent", z.shape, model.enc[1].running_var.shape, model.enc[1])

t = torch.tensor([0.5, 1.0, 3.0, 10.0], dtype=f64, requires_grad=True)
y = torch.lgamma(t).sum()
(g,) = torch.autograd.grad(y, t, create_graph=True)
(h,) = torch.autograd.grad(g.sum(), t)
print("lgamma'", g.round(decimals=6).tolist(), "digamma", torch.digamma(t).detach().round(decimals=6).tolist())
print("lgamma''", h.round(decimals=6).tolist(), torch.polygamma(1, t).detach().round(decimals=6).tolist())
print(
    "polygamma 2,3",
    torch.special.polygamma(2, t.detach()).round(decimals=5).tolist(),
    torch.polygamma(3, torch.tensor([1.0])).round(decimals=4).tolist(),
)
print(
    "lgamma poles",
    torch.lgamma(torch.tensor([0.0, -1.0, -2.5, -0.0])).tolist(),
    torch.digamma(torch.tensor([0.0, -1.0, -0.0])).tolist(),
)
print(
    "multigammaln",
    torch.special.multigammaln(torch.tensor([2.0, 3.5], dtype=f64), 2).round(decimals=6).tolist(),
    torch.mvlgamma(torch.tensor([3.0]), p=3).round(decimals=4).tolist(),
)
print("gammaln", torch.special.gammaln(torch.tensor([1e-3, 171.0, 1e6])).round(decimals=2).tolist())
print("xlog1py", torch.special.xlog1py(torch.tensor([0.0, 2.0, 0.0]), torch.tensor([-1.0, 1.0, float("nan")])).tolist())
print(
    "gammainc",
    torch.special.gammainc(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 3.0])).round(decimals=4).tolist(),
    torch.special.gammaincc(torch.tensor([2.0]), torch.tensor([3.0])).round(decimals=4).tolist(),
)
try:
    torch.mvlgamma(torch.tensor([0.5]), p=2)
except Exception as e:
    print(type(e).__name__, e)
try:
    D.NegativeBinomial(total_count=theta, probs=mu / (mu + theta), logits=mu)
except Exception as e:
    print(type(e).__name__, e)
try:
    D.NegativeBinomial(total_count=torch.tensor([-1.0]), probs=torch.tensor([0.3]))
except Exception as e:
    print(type(e).__name__, str(e).split("\n")[0])
try:
    nb.log_prob(torch.tensor([[0.5, 1.0, 1.0, 1.0]]))
except Exception as e:
    print(type(e).__name__, str(e).split("\n")[0])
try:
    torch.polygamma(-1, t.detach())
except Exception as e:
    print(type(e).__name__, e)
