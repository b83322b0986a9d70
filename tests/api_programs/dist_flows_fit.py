"""Maximum-likelihood fitting with torch.distributions: a hand-written Transform subclass inside a flow, a constraint
with its own transform_to registration, a learned affine/sigmoid flow and a Gaussian mixture fitted by Adam on fixed
numpy data (deterministic: log_prob only, no sampling), and MultivariateNormal construction mistakes."""

import numpy as np
import torch
import torch.distributions as D
from torch.distributions import constraints as C, transforms as T

torch.set_printoptions(precision=4)
t = torch.tensor
rng = np.random.default_rng(11)


def r(x, k=8):
    return np.round(torch.as_tensor(x).detach().double().flatten()[:k].numpy(), 4).tolist()


class SinhArcsinh(T.Transform):
    """y = sinh((asinh(x) + skew) * tail): a skew/tail-weight bijection of the real line."""

    domain = C.real
    codomain = C.real
    bijective = True
    sign = +1

    def __init__(self, skew, tail, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.skew, self.tail = skew, tail

    def _call(self, x):
        return torch.sinh((torch.asinh(x) + self.skew) * self.tail)

    def _inverse(self, y):
        return torch.sinh(torch.asinh(y) / self.tail - self.skew)

    def log_abs_det_jacobian(self, x, y):
        inner = (torch.asinh(x) + self.skew) * self.tail
        return torch.log(self.tail) + torch.log(torch.cosh(inner)) - 0.5 * torch.log1p(x**2)


sa = SinhArcsinh(t(0.3), t(1.2))
x = t([-2.0, -0.5, 0.0, 1.0, 3.0])
y = sa(x)
print("custom tf", sa, r(y), r(sa.inv(y) - x), r(sa.log_abs_det_jacobian(x, y)), sa.inv, sa.inv.inv is sa)
xg = x.clone().requires_grad_(True)
(dy,) = torch.autograd.grad(sa(xg).sum(), [xg])
print("ldj vs autograd", r(sa.log_abs_det_jacobian(x, y) - dy.log()))
dist = D.TransformedDistribution(D.Normal(t(0.0), t(1.0)), [sa, T.AffineTransform(1.0, 2.0)])
print("custom flow", r(dist.log_prob(t([0.0, 1.0, 4.0]))), dist.support, r(dist.cdf(t([1.0]))), r(dist.icdf(t([0.5]))))


class AboveTwo(C.Constraint):
    """Reals strictly above 2."""

    def check(self, value):
        return value > 2


@D.transform_to.register(AboveTwo)
def _above_two(constraint):
    return T.ComposeTransform([T.ExpTransform(), T.AffineTransform(2.0, 1.0)])


print("registry", AboveTwo(), r(D.transform_to(AboveTwo())(t([-3.0, 0.0, 1.0]))), AboveTwo().event_dim)
try:
    D.biject_to(AboveTwo())
except NotImplementedError as e:
    print("biject missing", e)

# fit a skewed 1-d density: base Normal -> SinhArcsinh(learned) -> affine(learned)
data = torch.from_numpy(np.sinh(rng.standard_normal(256) * 0.8 + 0.4).astype(np.float32))
skew = torch.zeros((), requires_grad=True)
log_tail = torch.zeros((), requires_grad=True)
shift = torch.zeros((), requires_grad=True)
log_scale = torch.zeros((), requires_grad=True)
opt = torch.optim.Adam([skew, log_tail, shift, log_scale], lr=0.05)
for step in range(60):
    flow = D.TransformedDistribution(
        D.Normal(t(0.0), t(1.0)), [SinhArcsinh(skew, log_tail.exp()), T.AffineTransform(shift, log_scale.exp())]
    )
    nll = -flow.log_prob(data).mean()
    opt.zero_grad()
    nll.backward()
    opt.step()
    if step % 20 == 0:
        print("flow step", step, round(nll.item(), 4))
print("flow fit", round(nll.item(), 4), r(torch.stack([skew, log_tail, shift, log_scale])))

# unit-interval data through a logit-normal flow, parameters constrained by transform_to
u_data = torch.from_numpy(1 / (1 + np.exp(-(rng.standard_normal(128) * 0.7 - 0.5))).astype(np.float32))
raw_loc, raw_scale = torch.zeros((), requires_grad=True), torch.zeros((), requires_grad=True)
to_pos = D.transform_to(C.positive)
opt = torch.optim.Adam([raw_loc, raw_scale], lr=0.1)
for step in range(40):
    ln = D.TransformedDistribution(D.Normal(raw_loc, to_pos(raw_scale)), T.SigmoidTransform())
    loss = -ln.log_prob(u_data).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print("logitnormal fit", round(loss.item(), 4), r(raw_loc), r(to_pos(raw_scale)), type(to_pos).__name__)

# a 3-component Gaussian mixture on fixed 1-d data
mix_data = torch.from_numpy(
    np.concatenate([rng.normal(-2, 0.5, 60), rng.normal(1, 0.8, 100), rng.normal(4, 0.3, 40)]).astype(np.float32)
)
logits = torch.zeros(3, requires_grad=True)
means = t([-1.0, 0.0, 1.0], requires_grad=True)
raw_sd = torch.zeros(3, requires_grad=True)
opt = torch.optim.Adam([logits, means, raw_sd], lr=0.1)
for step in range(80):
    gmm = D.MixtureSameFamily(D.Categorical(logits=logits), D.Normal(means, torch.nn.functional.softplus(raw_sd)))
    loss = -gmm.log_prob(mix_data).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
order = torch.argsort(means.detach())
print("gmm fit", round(loss.item(), 3), r(means.detach()[order], 3))
print("gmm weights", r(torch.softmax(logits.detach(), 0)[order], 3), r(torch.nn.functional.softplus(raw_sd)[order], 3))
post = gmm.component_distribution.log_prob(t([-2.0, 1.0, 4.0]).unsqueeze(-1)) + gmm.mixture_distribution.logits
print("responsibilities", r(torch.softmax(post, -1).max(-1).values, 3), gmm.batch_shape)

# a 2-d mixture of full-covariance Gaussians at fixed parameters
comp = D.MultivariateNormal(t([[0.0, 0.0], [3.0, 1.0]]), t([[[1.0, 0.5], [0.5, 1.0]], [[0.5, 0.0], [0.0, 2.0]]]))
mv = D.MixtureSameFamily(D.Categorical(t([0.4, 0.6])), comp)
pts = t([[0.0, 0.0], [3.0, 1.0], [1.5, 0.5]])
print("mv gmm", mv.event_shape, r(mv.log_prob(pts)), r(mv.mean), r(mv.variance))

# MultivariateNormal construction mistakes
for kwargs in [
    {"covariance_matrix": t([1.0, 2.0])},
    {"precision_matrix": t([1.0, 2.0])},
    {"scale_tril": t([1.0, 2.0])},
    {"scale_tril": t([[1.0, 0.0], [0.5, -1.0]])},
    {"covariance_matrix": t([[1.0, 0.9], [0.2, 1.0]])},
    {},
]:
    try:
        D.MultivariateNormal(torch.zeros(2), **kwargs)
        print("mvn ok", sorted(kwargs))
    except ValueError as e:
        print("mvn error", sorted(kwargs), str(e).replace("\n", " ")[:170])
try:
    D.MultivariateNormal(t(0.0), torch.eye(1))
except ValueError as e:
    print("mvn loc", e)
for bad in [(torch.ones(3, 1), torch.ones(2)), (torch.ones(2), torch.ones(2)), (torch.ones(2, 1), torch.ones(3))]:
    try:
        D.LowRankMultivariateNormal(torch.zeros(2), *bad)
    except ValueError as e:
        print("lowrank error", str(e)[:120])
