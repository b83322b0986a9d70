"""An exact GP regressor as GPyTorch users write it by hand: softplus-constrained RBF hyperparameters, the exact
marginal log likelihood by Cholesky, Adam then LBFGS fits, predictive means and variances."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def inv_softplus(y):
    return y + torch.log(-torch.expm1(-y))


class ExactGP(nn.Module):
    def __init__(self, x, y):
        super().__init__()
        self.register_buffer("x", x)
        self.register_buffer("y", y)
        self.raw_lengthscale = nn.Parameter(inv_softplus(torch.tensor([0.5], dtype=x.dtype)))
        self.raw_outputscale = nn.Parameter(torch.zeros((), dtype=x.dtype))
        self.raw_noise = nn.Parameter(torch.tensor(-2.0, dtype=x.dtype))
        self.mean_constant = nn.Parameter(torch.zeros(1, dtype=x.dtype))

    @property
    def lengthscale(self):
        return F.softplus(self.raw_lengthscale)

    def kernel(self, a, b):
        d2 = (a.unsqueeze(-2) - b.unsqueeze(-3)).div(self.lengthscale).pow(2).sum(-1)
        return F.softplus(self.raw_outputscale) * torch.exp(-0.5 * d2)

    def forward(self):
        n = self.x.shape[0]
        K = self.kernel(self.x, self.x) + (F.softplus(self.raw_noise) + 1e-6) * torch.eye(n, dtype=self.x.dtype)
        L = torch.linalg.cholesky(K)
        r = (self.y - self.mean_constant).unsqueeze(-1)
        alpha = torch.cholesky_solve(r, L)
        quad = (r * alpha).sum()
        logdet = 2 * L.diagonal(dim1=-2, dim2=-1).log().sum()
        return -0.5 * (quad + logdet + n * math.log(2 * math.pi)) / n, L, alpha

    @torch.no_grad()
    def predict(self, xs):
        _, L, alpha = self()
        Ks = self.kernel(xs, self.x)
        mean = self.mean_constant + (Ks @ alpha).squeeze(-1)
        v = torch.linalg.solve_triangular(L, Ks.mT, upper=False)
        var = F.softplus(self.raw_outputscale) - v.pow(2).sum(-2)
        return mean, var.clamp_min(1e-10)


x = torch.linspace(0, 1, 20, dtype=torch.float64).unsqueeze(-1)
y = torch.sin(6 * x[:, 0]) + 0.1 * torch.randn(20, dtype=torch.float64)
model = ExactGP(x, y)
print(model)
print([(n, tuple(p.shape), p.dtype) for n, p in model.named_parameters()])
print("buffers", sorted(k for k, _ in model.named_buffers()))
mll, L, alpha = model()
print("init mll", round(mll.item(), 4), "L strides", L.stride(), "alpha", tuple(alpha.shape), alpha.stride())
mll.neg().backward()
print({n: p.grad.flatten().round(decimals=4).tolist() for n, p in model.named_parameters()})

opt = torch.optim.Adam(model.parameters(), lr=0.1)
for it in range(30):
    opt.zero_grad()
    loss = -model()[0]
    loss.backward()
    opt.step()
    if it % 10 == 9:
        print(it, round(loss.item(), 4), round(model.lengthscale.item(), 4))

lbfgs = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=50, line_search_fn="strong_wolfe")


def closure():
    lbfgs.zero_grad()
    loss = -model()[0]
    loss.backward()
    return loss


final = lbfgs.step(closure)
print("lbfgs start loss", round(final.item(), 4), "final", round(-model()[0].item(), 4))
print("lengthscale", round(model.lengthscale.item(), 3), "noise", round(F.softplus(model.raw_noise).item(), 4))
state = lbfgs.state[lbfgs._params[0]]
print("lbfgs state keys", sorted(state.keys()), "func_evals>0", state["func_evals"] > 0)

xs = torch.tensor([[0.1], [0.5], [1.2]], dtype=torch.float64)
mean, var = model.predict(xs)
print("mean", mean.round(decimals=3), "var", var.round(decimals=3), var.dtype)
lo, hi = mean - 2 * var.sqrt(), mean + 2 * var.sqrt()
print("band width", (hi - lo).round(decimals=3), "extrapolation widest", bool((hi - lo).argmax() == 2))
print("state_dict", list(model.state_dict().keys()))
