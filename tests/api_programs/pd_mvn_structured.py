"""Structured Gaussians as GP and state-space code builds them: MultivariateNormal from scale_tril,
covariance_matrix and precision_matrix (lazily derived properties, batch broadcasting of loc against a shared
covariance), LowRankMultivariateNormal's Woodbury log_prob against the dense one, conditioning a joint Gaussian,
Mahalanobis distances, reprs, rsample gradients into a Cholesky factor, and a GP marginal likelihood fit."""
import torch
import torch.distributions as D

torch.set_printoptions(precision=4, sci_mode=False)


def r(x):
    return [round(v, 4) for v in x.detach().flatten().tolist()]


t = torch.tensor
L = t([[1.0, 0.0, 0.0], [0.5, 0.8, 0.0], [-0.3, 0.2, 0.6]])
cov = L @ L.T
prec = torch.linalg.inv(cov)
loc = t([1.0, 0.0, -1.0])
by_tril = D.MultivariateNormal(loc, scale_tril=L)
by_cov = D.MultivariateNormal(loc, covariance_matrix=cov)
by_prec = D.MultivariateNormal(loc, precision_matrix=prec)
x = t([[0.5, 0.5, -0.5], [1.0, 0.0, -1.0]])
for name, d in (("scale_tril", by_tril), ("covariance", by_cov), ("precision", by_prec)):
    print(f"{name:10s} log_prob {r(d.log_prob(x))} entropy {round(d.entropy().item(), 4)}")
print(by_tril)
print(by_cov)
print("attrs stored", sorted(k for k in vars(by_prec) if k in ("covariance_matrix", "precision_matrix",
                                                                "scale_tril", "_unbroadcasted_scale_tril")))
print("cov from prec", r(by_prec.covariance_matrix))
print("prec from tril", r(by_tril.precision_matrix))
print("variance", r(by_cov.variance), "stddev", r(by_cov.stddev), "mode", r(by_cov.mode))
print("arg_constraints", list(D.MultivariateNormal.arg_constraints))
print("support", by_cov.support, "event_dim", by_cov.support.event_dim)

# batch broadcasting: 4 locs share one covariance, and batched covariances
locs = torch.arange(8.0).view(4, 2) / 4
shared = D.MultivariateNormal(locs, covariance_matrix=t([[1.0, 0.3], [0.3, 0.5]]))
print("batch", shared.batch_shape, shared.event_shape, "scale_tril", shared.scale_tril.shape,
      "cov stride0", shared.covariance_matrix.stride()[0])
print("log_prob", r(shared.log_prob(torch.zeros(2))))
covs = torch.stack([torch.eye(2) * s for s in (0.5, 1.0, 2.0)])
bc = D.MultivariateNormal(torch.zeros(3, 2), covs)
torch.manual_seed(0)
print("batched covs sample", bc.sample((2,)).shape, "entropy", r(bc.entropy()))
print("expand", bc.expand((5, 3)).batch_shape, bc.expand((5, 3)).loc.shape)

# Mahalanobis distance and the log_prob formula by hand
diff = x - loc
maha = (diff @ prec * diff).sum(-1)
manual = -0.5 * (3 * torch.log(torch.tensor(2 * torch.pi)) + torch.logdet(cov) + maha)
print("mahalanobis", r(maha), "manual log_prob", r(manual))

# low rank + diagonal against dense
torch.manual_seed(1)
W = torch.randn(5, 2)
diag = torch.rand(5) + 0.5
lr = D.LowRankMultivariateNormal(torch.zeros(5), W, diag)
dense = D.MultivariateNormal(torch.zeros(5), covariance_matrix=W @ W.T + torch.diag(diag))
pts = torch.randn(3, 5)
print("lowrank log_prob", r(lr.log_prob(pts)), "dense", r(dense.log_prob(pts)))
print("lowrank entropy", round(lr.entropy().item(), 4), round(dense.entropy().item(), 4))
print("lowrank variance", r(lr.variance), "cov close", torch.allclose(lr.covariance_matrix, dense.covariance_matrix,
                                                                       atol=1e-5))
print("lowrank prec close", torch.allclose(lr.precision_matrix, dense.precision_matrix, atol=1e-4))
print(lr)
torch.manual_seed(2)
print("lowrank rsample", r(lr.rsample((2,))))

# conditioning a joint Gaussian on observed coordinates
mu = t([0.0, 1.0, 2.0])
S = t([[2.0, 0.6, 0.3], [0.6, 1.0, 0.2], [0.3, 0.2, 0.5]])
obs_idx, hid_idx = [2], [0, 1]
Saa = S[hid_idx][:, hid_idx]
Sab = S[hid_idx][:, obs_idx]
Sbb = S[obs_idx][:, obs_idx]
x_obs = t([2.5])
cond_mu = mu[hid_idx] + (Sab @ torch.linalg.solve(Sbb, (x_obs - mu[obs_idx]).unsqueeze(-1))).squeeze(-1)
cond_S = Saa - Sab @ torch.linalg.solve(Sbb, Sab.T)
cond = D.MultivariateNormal(cond_mu, cond_S)
print("conditional mean", r(cond.mean), "cov", r(cond.covariance_matrix))
joint = D.MultivariateNormal(mu, S)
marg = D.Normal(mu[2], S[2, 2].sqrt())
val = t([0.1, 0.9])
print("chain rule holds", torch.allclose(joint.log_prob(torch.cat([val, x_obs])),
                                         cond.log_prob(val) + marg.log_prob(x_obs).squeeze(), atol=1e-5))

# rsample gradients into a learned Cholesky factor
raw = torch.zeros(3, 3, requires_grad=True)
tril = torch.tril(raw, -1) + torch.diag_embed(torch.nn.functional.softplus(torch.diagonal(raw)) + 0.1)
q = D.MultivariateNormal(torch.zeros(3), scale_tril=tril)
torch.manual_seed(3)
z = q.rsample((256,))
loss = (z.pow(2).sum(-1) - q.log_prob(z)).mean()
loss.backward()
print("loss", round(loss.item(), 4), "grad diag", r(torch.diagonal(raw.grad)), "grad upper zero",
      bool((raw.grad.triu(1) == 0).all()))

# a GP: fit lengthscale and noise by maximising the MVN marginal likelihood
torch.manual_seed(4)
xs = torch.linspace(0, 5, 25)
ys = torch.sin(xs) + 0.1 * torch.randn(25)
log_ls = torch.zeros((), requires_grad=True)
log_noise = torch.tensor(-1.0, requires_grad=True)
opt = torch.optim.Adam([log_ls, log_noise], lr=0.05)
for step in range(200):
    K = torch.exp(-0.5 * (xs[:, None] - xs[None, :]).pow(2) / log_ls.exp().pow(2))
    K = K + (log_noise.exp().pow(2) + 1e-4) * torch.eye(25)
    nll = -D.MultivariateNormal(torch.zeros(25), covariance_matrix=K).log_prob(ys)
    opt.zero_grad()
    nll.backward()
    opt.step()
    if step % 50 == 0:
        print(f"gp step {step:3d} nll {nll.item():.3f}")
print("lengthscale", round(log_ls.exp().item(), 2), "noise", round(log_noise.exp().item(), 2))

# errors
for bad in (lambda: D.MultivariateNormal(torch.zeros(3), scale_tril=torch.ones(3, 3)),
            lambda: D.MultivariateNormal(torch.zeros(3), covariance_matrix=torch.eye(2)),
            lambda: D.LowRankMultivariateNormal(torch.zeros(3), torch.ones(3, 1), -torch.ones(3)),
            lambda: by_cov.log_prob(torch.zeros(4))):
    try:
        bad()
    except (ValueError, RuntimeError) as e:
        print(type(e).__name__ + ":", str(e).splitlines()[0][:120])
