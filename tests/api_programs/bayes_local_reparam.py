"""Bayes-by-backprop linear layers with the local reparameterisation trick and a closed-form KL."""

import math

import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions


class BayesLinear(nn.Module):
    def __init__(self, n_in, n_out, prior_sigma=1.0):
        super().__init__()
        self.w_mu = nn.Parameter(torch.empty(n_out, n_in).uniform_(-0.2, 0.2))
        self.w_rho = nn.Parameter(torch.full((n_out, n_in), -4.0))
        self.b_mu = nn.Parameter(torch.zeros(n_out))
        self.b_rho = nn.Parameter(torch.full((n_out,), -4.0))
        self.prior = D.Normal(0.0, prior_sigma)

    def forward(self, x):
        w_sigma, b_sigma = F.softplus(self.w_rho), F.softplus(self.b_rho)
        act_mu = F.linear(x, self.w_mu, self.b_mu)
        act_var = F.linear(x.pow(2), w_sigma.pow(2), b_sigma.pow(2))
        eps = torch.randn_like(act_mu)
        return act_mu + act_var.clamp_min(1e-16).sqrt() * eps

    def kl(self):
        qw = D.Normal(self.w_mu, F.softplus(self.w_rho))
        qb = D.Normal(self.b_mu, F.softplus(self.b_rho))
        return D.kl_divergence(qw, self.prior).sum() + D.kl_divergence(qb, self.prior).sum()

    def extra_repr(self):
        return f"in={self.w_mu.shape[1]}, out={self.w_mu.shape[0]}"


torch.manual_seed(0)
x = torch.linspace(-2, 2, 64).unsqueeze(1)
y = torch.sin(2 * x) + 0.1 * torch.randn_like(x)
net = nn.Sequential(BayesLinear(1, 32), nn.Tanh(), BayesLinear(32, 1))
print(net)
print("params", sum(p.numel() for p in net.parameters()))
noise = D.Normal(torch.tensor(0.0), torch.tensor(0.1))
opt = torch.optim.Adam(net.parameters(), lr=0.02)
n = x.shape[0]
for step in range(201):
    pred = net(x)
    nll = -D.Normal(pred, 0.1).log_prob(y).sum()
    kl = sum(m.kl() for m in net if isinstance(m, BayesLinear))
    loss = nll + kl
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 50 == 0:
        print(step, "elbo/n", round(-loss.item() / n, 2), "kl", round(kl.item(), 2))

layer = net[0]
print("sigma range", round(F.softplus(layer.w_rho).min().item(), 3) > 0, layer.w_rho.grad.shape)
print("grad_fn", net(x).grad_fn.__class__.__name__, layer.kl().grad_fn.__class__.__name__)

# predictive mean and spread from 100 stochastic passes
with torch.no_grad():
    xs = torch.tensor([[-1.0], [0.0], [1.0], [4.0]])
    preds = torch.stack([net(xs) for _ in range(100)])
    mean, std = preds.mean(0).squeeze(1), preds.std(0).squeeze(1)
print("pred mean close", torch.allclose(mean[:3], torch.sin(2 * xs[:3, 0]), atol=0.3))
print("ood std larger", bool(std[3] > std[:3].max()))

# the KL of one weight in closed form
mu, sig, p = 0.3, 0.2, 1.0
closed = math.log(p / sig) + (sig**2 + mu**2) / (2 * p**2) - 0.5
print("closed", round(closed, 4), round(D.kl_divergence(D.Normal(mu, sig), D.Normal(0.0, p)).item(), 4))
# local reparam variance equals the variance of x @ W for independent W
w_mu, w_sig = torch.tensor([[0.5, -0.2]]), torch.tensor([[0.1, 0.3]])
xin = torch.tensor([[1.0, 2.0]])
print("act var", round(F.linear(xin.pow(2), w_sig.pow(2)).item(), 4))
