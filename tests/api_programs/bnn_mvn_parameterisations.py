"""Full-covariance Gaussian posteriors: scale_tril, precision and low-rank forms, KLs and moments."""
import torch

nn = torch.nn
D = torch.distributions


def r(t):
    return t.detach().round(decimals=4).tolist()


torch.manual_seed(0)
A = torch.randn(3, 3)
cov = A @ A.T + 0.5 * torch.eye(3)
loc = torch.tensor([0.5, -1.0, 2.0])
L = torch.linalg.cholesky(cov)
prec = torch.linalg.inv(cov)

m_cov = D.MultivariateNormal(loc, covariance_matrix=cov)
m_tril = D.MultivariateNormal(loc, scale_tril=L)
m_prec = D.MultivariateNormal(loc, precision_matrix=prec)
x = torch.tensor([[0.0, 0.0, 0.0], [1.0, -1.0, 1.5]])
for name, m in [("cov", m_cov), ("tril", m_tril), ("prec", m_prec)]:
    print(name, r(m.log_prob(x)), round(m.entropy().item(), 4))
print("scale_tril", r(m_prec.scale_tril))
print("precision", r(m_tril.precision_matrix))
print("variance", r(m_cov.variance), "stddev", r(m_cov.stddev))
print("mean/mode", r(m_cov.mean), r(m_cov.mode))
print("shapes", m_cov.batch_shape, m_cov.event_shape)
print("arg_constraints", sorted(m_cov.arg_constraints))
print("has_rsample", m_cov.has_rsample, "support", m_cov.support)

# batched MVN with shared covariance broadcasting over a batch of means
locs = torch.zeros(4, 3) + torch.arange(4.0).unsqueeze(1)
mb = D.MultivariateNormal(locs, scale_tril=L)
print("batched", mb.batch_shape, mb.event_shape, r(mb.log_prob(torch.zeros(3))))
print("scale_tril expanded", mb.scale_tril.shape, mb._unbroadcasted_scale_tril.shape)
e = m_tril.expand((2, 5))
print("expand", e.batch_shape, e.sample().shape, e.log_prob(torch.zeros(3)).shape)

# sample moments from rsample (reparameterised, differentiable wrt loc and L)
torch.manual_seed(1)
loc_p = loc.clone().requires_grad_()
L_p = L.clone().requires_grad_()
q = D.MultivariateNormal(loc_p, scale_tril=L_p)
s = q.rsample((20000,))
print("rsample", s.shape, s.grad_fn is not None)
emp_cov = torch.cov(s.detach().T)
print("cov close", torch.allclose(emp_cov, cov, atol=0.15), "mean close", torch.allclose(s.mean(0), loc, atol=0.05))
s.pow(2).sum(-1).mean().backward()
print("grad loc", r(loc_p.grad.round(decimals=1)))

# closed-form KL against a standard normal, checked against the formula
p = D.MultivariateNormal(torch.zeros(3), torch.eye(3))
kl = D.kl_divergence(m_tril, p)
manual = 0.5 * (torch.trace(cov) + loc @ loc - 3 - torch.logdet(cov))
print("kl", round(kl.item(), 4), round(manual.item(), 4))
print("kl reverse", round(D.kl_divergence(p, m_prec).item(), 4))

# low-rank plus diagonal (as in SWAG / low-rank VI)
W = torch.randn(3, 2)
dg = torch.tensor([0.3, 0.2, 0.5])
lr = D.LowRankMultivariateNormal(loc, cov_factor=W, cov_diag=dg)
full = D.MultivariateNormal(loc, covariance_matrix=W @ W.T + torch.diag(dg))
print("lowrank lp", r(lr.log_prob(x)), r(full.log_prob(x)))
print("lowrank entropy", round(lr.entropy().item(), 4), round(full.entropy().item(), 4))
print("lowrank cov", r(lr.covariance_matrix))
print("lowrank precision close", torch.allclose(lr.precision_matrix, full.precision_matrix, atol=1e-4))
print("lowrank scale_tril close", torch.allclose(lr.scale_tril, full.scale_tril, atol=1e-4))
print("lowrank variance", r(lr.variance))
print("kl lowrank-full", round(D.kl_divergence(lr, full).item(), 4))
print("kl lowrank-lowrank", round(D.kl_divergence(lr, lr).item(), 4))
print("kl full-lowrank", round(D.kl_divergence(full, lr).item(), 4))

# Normal diag vs Independent vs MVN agree
diag = D.Independent(D.Normal(loc, dg.sqrt()), 1)
mvn_diag = D.MultivariateNormal(loc, covariance_matrix=torch.diag(dg))
print("diag agree", r(diag.log_prob(x)), r(mvn_diag.log_prob(x)))

# misuse
for kwargs in [dict(), dict(covariance_matrix=cov, scale_tril=L)]:
    try:
        D.MultivariateNormal(loc, **kwargs)
    except Exception as e:
        print(type(e).__name__, e)
try:
    D.MultivariateNormal(torch.tensor(1.0), covariance_matrix=cov)
except Exception as e:
    print(type(e).__name__, e)
try:
    D.MultivariateNormal(loc, covariance_matrix=-torch.eye(3))
except Exception as e:
    print(type(e).__name__, str(e)[:120])
try:
    D.LowRankMultivariateNormal(loc, cov_factor=torch.randn(4, 2), cov_diag=dg)
except Exception as e:
    print(type(e).__name__, e)
