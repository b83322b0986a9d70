"""Gradients of Gaussian posteriors through every parameterisation: covariance, precision, scale_tril, low rank."""

import torch

D = torch.distributions


def r(t):
    return t.detach().round(decimals=4).tolist()


torch.manual_seed(0)
A = torch.randn(3, 3)
cov0 = A @ A.T + torch.eye(3)
x = torch.tensor([[0.3, -0.2, 1.0], [1.0, 1.0, -1.0]])

for form in ["covariance_matrix", "precision_matrix", "scale_tril"]:
    base = {
        "covariance_matrix": cov0,
        "precision_matrix": torch.linalg.inv(cov0),
        "scale_tril": torch.linalg.cholesky(cov0),
    }[form]
    P = base.clone().requires_grad_()
    loc = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)
    m = D.MultivariateNormal(loc, **{form: P})
    lp = m.log_prob(x).sum() + m.entropy()
    gP, gl = torch.autograd.grad(lp, (P, loc), retain_graph=True)
    print(form, round(lp.item(), 4), "grad loc", r(gl))
    print("  grad P", r(gP))
    torch.manual_seed(2)
    s = m.rsample((4,))
    (gs,) = torch.autograd.grad(s.pow(2).sum(), P)
    print("  rsample grad", r(gs))

# batched MVN: loc (2, 3) against a shared scale_tril, log_prob of (4, 1, 3)
L = torch.linalg.cholesky(cov0).requires_grad_()
locs = torch.zeros(2, 3, requires_grad=True)
mb = D.MultivariateNormal(locs, scale_tril=L)
v = torch.randn(4, 1, 3)
lp = mb.log_prob(v)
print("batched", lp.shape, r(lp.sum()))
lp.sum().backward()
print("grad L", r(L.grad), "grad locs", r(locs.grad))
print("expand", mb.expand((5, 2)).batch_shape, mb.expand((5, 2)).covariance_matrix.shape)

# low-rank plus diagonal: gradients wrt factor and diagonal
W = torch.tensor([[1.0, 0.5], [0.0, -0.5], [0.3, 0.2]], requires_grad=True)
d = torch.tensor([0.5, 1.0, 0.2], requires_grad=True)
lr = D.LowRankMultivariateNormal(torch.zeros(3), W, d)
full = D.MultivariateNormal(torch.zeros(3), covariance_matrix=W @ W.T + torch.diag(d))
print("lowrank lp", r(lr.log_prob(x)), r(full.log_prob(x)))
print("lowrank entropy", round(lr.entropy().item(), 4), round(full.entropy().item(), 4))
gW, gd = torch.autograd.grad(lr.log_prob(x).sum() + lr.entropy(), (W, d), retain_graph=True)
print("grad W", r(gW), "grad d", r(gd))
print("lowrank cov", r(lr.covariance_matrix), "variance", r(lr.variance))
print("lowrank prec", r(lr.precision_matrix))
print("lowrank tril", r(lr.scale_tril))
torch.manual_seed(0)
s = lr.rsample((3,))
print("lowrank rsample", s.shape, s.grad_fn is not None)
print("kl lowrank->mvn", round(D.kl_divergence(lr, D.MultivariateNormal(torch.zeros(3), torch.eye(3))).item(), 4))
print("kl mvn->lowrank", round(D.kl_divergence(D.MultivariateNormal(torch.zeros(3), torch.eye(3)), lr).item(), 4))
lr2 = D.LowRankMultivariateNormal(torch.ones(3), torch.ones(3, 1), torch.ones(3))
print("kl lowrank->lowrank", round(D.kl_divergence(lr, lr2).item(), 4))
print("lowrank batched", D.LowRankMultivariateNormal(torch.zeros(4, 3), W, d).log_prob(x[0]).shape)
print(lr)

# Wishart posterior over a precision matrix
torch.manual_seed(0)
df = torch.tensor(5.0, requires_grad=True)
S = torch.tensor([[1.0, 0.3], [0.3, 2.0]], requires_grad=True)
wi = D.Wishart(df, covariance_matrix=S)
Xw = torch.tensor([[4.0, 1.0], [1.0, 9.0]])
lpw = wi.log_prob(Xw) + wi.entropy()
gdf, gS = torch.autograd.grad(lpw, (df, S), retain_graph=True)
print("wishart", round(lpw.item(), 4), "grad df", round(gdf.item(), 4), "grad S", r(gS))
print("wishart mean/var/mode", r(wi.mean), r(wi.variance), r(wi.mode))
print("wishart sample", wi.rsample((2,)).shape, wi.precision_matrix.shape)
# LKJ prior over correlations
lkj = D.LKJCholesky(3, concentration=torch.tensor([0.5, 2.0]))
Lc = torch.linalg.cholesky(torch.tensor([[1.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 1.0]]))
print("lkj", r(lkj.log_prob(Lc)), lkj.batch_shape, lkj.event_shape, lkj.sample().shape)
