"""Variational inference with learnable flows: planar and radial-free custom Transforms inside
TransformedDistribution."""

import math

import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions
T = torch.distributions.transforms
C = torch.distributions.constraints


class Planar(T.Transform, nn.Module):
    """f(z) = z + u tanh(w.z + b), with u made invertible (w.u >= -1)."""

    domain = C.real_vector
    codomain = C.real_vector
    bijective = True

    def __init__(self, dim):
        T.Transform.__init__(self, cache_size=1)
        nn.Module.__init__(self)
        self.u = nn.Parameter(torch.randn(dim) * 0.1)
        self.w = nn.Parameter(torch.randn(dim) * 0.1)
        self.b = nn.Parameter(torch.zeros(1))

    def __hash__(self):
        return nn.Module.__hash__(self)

    def _u_hat(self):
        wu = self.w @ self.u
        return self.u + (F.softplus(wu) - 1 - wu) * self.w / self.w.pow(2).sum()

    def _call(self, z):
        return z + self._u_hat() * torch.tanh(z @ self.w + self.b).unsqueeze(-1)

    def log_abs_det_jacobian(self, z, y):
        psi = (1 - torch.tanh(z @ self.w + self.b) ** 2).unsqueeze(-1) * self.w
        return torch.log((1 + psi @ self._u_hat()).abs() + 1e-8)


def log_target(z):
    """Unnormalised banana-shaped density."""
    z1, z2 = z[..., 0], z[..., 1]
    return -0.5 * (z1**2 / 4 + (z2 - 0.5 * z1**2 + 1) ** 2 / 0.5)


torch.manual_seed(0)
flows = nn.ModuleList(Planar(2) for _ in range(6))
base_loc = nn.Parameter(torch.zeros(2))
base_log_scale = nn.Parameter(torch.zeros(2))
print("n params", sum(p.numel() for p in list(flows.parameters()) + [base_loc, base_log_scale]))


def q():
    base = D.Independent(D.Normal(base_loc, base_log_scale.exp()), 1)
    return D.TransformedDistribution(base, list(flows))


qd = q()
print("q", qd.batch_shape, qd.event_shape, qd.has_rsample, len(qd.transforms))
print("transform event dims", qd.transforms[0].domain.event_dim, qd.transforms[0].codomain.event_dim)
opt = torch.optim.Adam(list(flows.parameters()) + [base_loc, base_log_scale], lr=1e-2)
for step in range(400):
    qd = q()
    z = qd.rsample((128,))
    elbo = (log_target(z) - qd.log_prob(z)).mean()
    opt.zero_grad()
    (-elbo).backward()
    opt.step()
    if step % 200 == 0:
        print(step, "z", tuple(z.shape), "elbo finite", bool(torch.isfinite(elbo)))
with torch.no_grad():
    torch.manual_seed(1)
    qd = q()
    z = qd.sample((4000,))
    elbo = (log_target(z) - qd.log_prob(z)).mean()
    log_w = log_target(z) - qd.log_prob(z)
    log_Z = torch.logsumexp(log_w, 0) - math.log(4000)
    ess = (torch.logsumexp(log_w, 0) * 2 - torch.logsumexp(2 * log_w, 0)).exp()
true_log_Z = math.log(2 * math.pi * 2 * math.sqrt(0.5))
print("elbo below log Z", elbo.item() <= log_Z.item() + 1e-3, "log Z close", abs(log_Z.item() - true_log_Z) < 0.15)
print("ess fraction > 0.3", ess.item() / 4000 > 0.3)
print("sample mean z1 ~ 0", abs(z[:, 0].mean().item()) < 0.3, "z2 mean ~ 0", abs(z[:, 1].mean().item()) < 0.4)

# the cache: log_prob of a fresh rsample reuses the forward pass (no inverse needed)
qd = q()
zz = qd.rsample((3,))
print("cached log_prob", qd.log_prob(zz).shape)
try:
    qd.log_prob(torch.zeros(3, 2))
except Exception as e:
    print(type(e).__name__, e)

# built-in affine + tanh flow with learnable parameters for a bounded target
loc = torch.zeros(2, requires_grad=True)
scale_raw = torch.zeros(2, requires_grad=True)
o = torch.optim.Adam([loc, scale_raw], lr=0.05)
target = D.Independent(D.Beta(torch.tensor([2.0, 5.0]), torch.tensor([5.0, 2.0])), 1)
for step in range(300):
    qq = D.TransformedDistribution(D.Independent(D.Normal(loc, F.softplus(scale_raw)), 1), [T.SigmoidTransform()])
    s = qq.rsample((256,))
    kl = (qq.log_prob(s) - target.log_prob(s)).mean()
    o.zero_grad()
    kl.backward()
    o.step()
print("kl small", kl.item() < 0.1, "means", [round(v, 1) for v in s.mean(0).tolist()])
print("event shape", qq.event_shape, "support", qq.support)
