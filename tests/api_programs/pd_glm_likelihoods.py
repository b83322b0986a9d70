"""Generalised linear models fit by their torch.distributions likelihoods, as applied-statistics code writes them:
Poisson regression with a log link, Binomial (logits, tensor total_count) logistic regression, Gamma and Beta
regression with learned dispersion, heteroscedastic Normal regression, Laplace (median) regression, a NegativeBinomial
for overdispersed counts, and a Dirichlet fit to compositions; each checked against the data-generating values."""
import torch
import torch.distributions as D
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)

n = 300
X = torch.cat([torch.ones(n, 1), torch.randn(n, 2)], 1)


def fit(params, nll_fn, steps=200, lr=0.08, name=""):
    opt = torch.optim.Adam(params, lr=lr)
    for step in range(steps):
        opt.zero_grad()
        loss = nll_fn()
        loss.backward()
        opt.step()
    print(f"{name:18s} final nll {loss.item():.3f}")
    return loss


def show(label, t, digits=2):
    print(label, [round(v, digits) for v in t.detach().flatten().tolist()])


# Poisson regression: log E[y] = X b
b_true = torch.tensor([0.5, 0.8, -0.4])
y_pois = D.Poisson((X @ b_true).exp()).sample()
print("poisson y", y_pois[:8].tolist(), "mean", round(y_pois.mean().item(), 4))
b = torch.zeros(3, requires_grad=True)
fit([b], lambda: -D.Poisson((X @ b).exp()).log_prob(y_pois).mean(), name="poisson")
show("poisson b", b)
print("poisson log_prob(y=0..3 | rate 2)", [round(v, 4) for v in D.Poisson(torch.tensor(2.0)).log_prob(
    torch.arange(4.0)).tolist()])

# Binomial logistic regression with per-row trial counts
trials = torch.randint(1, 20, (n,)).float()
logit_true = X @ torch.tensor([-0.3, 1.2, 0.6])
succ = D.Binomial(trials, logits=logit_true).sample()
print("binomial", trials[:5].tolist(), succ[:5].tolist())
w = torch.zeros(3, requires_grad=True)
fit([w], lambda: -D.Binomial(trials, logits=X @ w).log_prob(succ).mean(), name="binomial")
show("binomial w", w)
bern = D.Bernoulli(logits=X @ w)
print("bce equals bernoulli nll", round(F.binary_cross_entropy_with_logits(X @ w, (succ > trials / 2).float()).item(),
                                        4), round(-bern.log_prob((succ > trials / 2).float()).mean().item(), 4))

# Gamma regression with log link and a shared shape parameter
shape_true = 4.0
mu_g = (X @ torch.tensor([1.0, 0.3, -0.2])).exp()
y_gam = D.Gamma(torch.full((n,), shape_true), shape_true / mu_g).sample()
bg = torch.zeros(3, requires_grad=True)
log_shape = torch.zeros((), requires_grad=True)
fit([bg, log_shape], lambda: -D.Gamma(log_shape.exp(), log_shape.exp() / (X @ bg).exp()).log_prob(y_gam).mean(),
    steps=250, name="gamma")
show("gamma b", bg)
print("gamma shape", round(log_shape.exp().item(), 1))

# Beta regression: mean via sigmoid, precision phi
phi_true = 20.0
m_true = torch.sigmoid(X @ torch.tensor([0.2, -0.7, 0.5]))
y_beta = D.Beta(m_true * phi_true, (1 - m_true) * phi_true).sample().clamp(1e-4, 1 - 1e-4)
bb = torch.zeros(3, requires_grad=True)
log_phi = torch.tensor(1.0, requires_grad=True)


def beta_nll():
    m = torch.sigmoid(X @ bb)
    return -D.Beta(m * log_phi.exp(), (1 - m) * log_phi.exp()).log_prob(y_beta).mean()


fit([bb, log_phi], beta_nll, steps=250, name="beta")
show("beta b", bb)
print("beta phi", round(log_phi.exp().item(), 0))

# heteroscedastic Normal: mean and log-scale both linear
y_het = X @ torch.tensor([1.0, 2.0, 0.0]) + (X @ torch.tensor([-1.0, 0.0, 0.5])).exp() * torch.randn(n)
bm = torch.zeros(3, requires_grad=True)
bs = torch.zeros(3, requires_grad=True)
fit([bm, bs], lambda: -D.Normal(X @ bm, (X @ bs).exp()).log_prob(y_het).mean(), steps=250, name="heteroscedastic")
show("het mean b", bm, 1)
show("het scale b", bs, 1)
print("gaussian_nll_loss agrees", round(F.gaussian_nll_loss(X @ bm, y_het, (X @ bs).exp().pow(2), full=True).item(),
                                         4), round(-D.Normal(X @ bm, (X @ bs).exp()).log_prob(y_het).mean().item(), 4))

# Laplace regression is median regression: robust to a few huge outliers
y_lap = X @ torch.tensor([0.0, 1.0, 1.0]) + 0.2 * torch.randn(n)
y_lap[:15] += 50.0
bl = torch.zeros(3, requires_grad=True)
fit([bl], lambda: -D.Laplace(X @ bl, 0.5).log_prob(y_lap).mean(), steps=250, lr=0.1, name="laplace")
ols = torch.linalg.lstsq(X, y_lap[:, None]).solution.squeeze(1)
show("laplace b", bl, 1)
show("ols b", ols, 1)

# overdispersed counts: NegativeBinomial vs Poisson
r_true, p_true = 2.0, 0.6
y_nb = D.NegativeBinomial(torch.tensor(r_true), probs=torch.tensor(p_true)).sample((n,))
print("nb mean/var", round(y_nb.mean().item(), 3), round(y_nb.var().item(), 3), "analytic",
      round(r_true * p_true / (1 - p_true), 3), round(r_true * p_true / (1 - p_true) ** 2, 3))
log_r = torch.zeros((), requires_grad=True)
nb_logit = torch.zeros((), requires_grad=True)
nll_nb = fit([log_r, nb_logit], lambda: -D.NegativeBinomial(log_r.exp(), logits=nb_logit).log_prob(y_nb).mean(),
             steps=200, name="negbin")
nll_p = -D.Poisson(y_nb.mean()).log_prob(y_nb).mean()
print("negbin r", round(log_r.exp().item(), 1), "p", round(torch.sigmoid(nb_logit).item(), 2), "beats poisson",
      nll_nb.item() < nll_p.item())

# Dirichlet MLE on compositions
alpha_true = torch.tensor([2.0, 5.0, 3.0])
comp = D.Dirichlet(alpha_true).sample((n,))
log_alpha = torch.zeros(3, requires_grad=True)
fit([log_alpha], lambda: -D.Dirichlet(log_alpha.exp()).log_prob(comp).mean(), steps=250, name="dirichlet")
show("dirichlet alpha", log_alpha.exp(), 1)
print("dirichlet mean", [round(v, 3) for v in D.Dirichlet(log_alpha.exp()).mean.tolist()],
      "data", [round(v, 3) for v in comp.mean(0).tolist()])
