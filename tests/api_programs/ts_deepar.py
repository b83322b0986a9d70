"""DeepAR-style probabilistic forecasting: an LSTM over lagged inputs and covariates with mean scaling, Gaussian,
StudentT and NegativeBinomial likelihood heads through torch.distributions (softplus-positive parameters,
log_prob, masked NLL), ancestral sampling whose shapes and seed-independent facts are printed, quantiles from
samples, Independent/MixtureSameFamily heads, and the errors distributions raise on bad parameters."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.distributions import (Independent, MixtureSameFamily, Categorical, NegativeBinomial, Normal, StudentT,
                                 AffineTransform, TransformedDistribution)

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def det_(module, scale=0.3):
    with torch.no_grad():
        for i, (name, p) in enumerate(module.named_parameters()):
            p.copy_(torch.cos(torch.arange(p.numel(), dtype=torch.float32) * 0.53 + 0.7 * i).view_as(p) * scale)
    return module


class GaussianHead(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.mu = nn.Linear(hidden, 1)
        self.sigma = nn.Linear(hidden, 1)

    def forward(self, h, scale):
        mu = self.mu(h).squeeze(-1)
        sigma = F.softplus(self.sigma(h).squeeze(-1)) + 1e-3
        return Normal(mu * scale, sigma * scale)


class StudentTHead(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.proj = nn.Linear(hidden, 3)

    def forward(self, h, scale):
        df, loc, s = self.proj(h).unbind(-1)
        return StudentT(2.0 + F.softplus(df), loc * scale, F.softplus(s) * scale)


class NegBinHead(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.proj = nn.Linear(hidden, 2)

    def forward(self, h, scale):
        mu_raw, alpha_raw = self.proj(h).unbind(-1)
        mu = F.softplus(mu_raw) * scale
        alpha = F.softplus(alpha_raw)
        total_count = 1.0 / alpha
        probs = mu / (mu + total_count)
        return NegativeBinomial(total_count=total_count, probs=probs)


class DeepAR(nn.Module):
    def __init__(self, n_cov, hidden, head):
        super().__init__()
        self.rnn = nn.LSTM(1 + n_cov, hidden, num_layers=2, batch_first=True)
        self.head = head(hidden)

    def forward(self, lagged, cov, scale, state=None):
        inp = torch.cat([lagged / scale[:, None, None], cov], dim=-1)
        out, state = self.rnn(inp, state)
        return self.head(out, scale[:, None]), state


B, T, C = 3, 20, 2
t = torch.arange(T + 6, dtype=torch.float32)
base = torch.tensor([5.0, 20.0, 50.0])[:, None]
target = base * (1 + 0.3 * torch.sin(2 * torch.pi * t / 7)[None]) + torch.arange(B)[:, None]
target = target.round()
cov = torch.stack([torch.sin(2 * torch.pi * t / 7), t / T], dim=-1).expand(B, -1, -1)
past, future = target[:, :T], target[:, T:]
scale = past.abs().mean(dim=1).clamp(min=1.0)
print("scale", scale)
lagged = F.pad(past, (1, 0))[:, :-1].unsqueeze(-1)
print("lagged", tuple(lagged.shape), lagged[0, :4, 0])
obs_mask = torch.ones(B, T)
obs_mask[1, :5] = 0

for head in (GaussianHead, StudentTHead, NegBinHead):
    model = det_(DeepAR(C, 8, head))
    dist, state = model(lagged, cov[:, :T], scale)
    nll = -(dist.log_prob(past) * obs_mask).sum() / obs_mask.sum()
    print(head.__name__, type(dist).__name__, tuple(dist.batch_shape), tuple(dist.event_shape),
          "nll", round(nll.item(), 4))
    print("  mean", dist.mean[:, -1], "stddev", dist.stddev[:, -1])
    nll.backward()
    gn = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters()))
    print("  grad_norm", round(gn.item(), 4), "state", tuple(state[0].shape), tuple(state[1].shape))

# ancestral sampling: shapes, support, and the fact that samples feed back as inputs
model = det_(DeepAR(C, 8, GaussianHead))
with torch.no_grad():
    _, state = model(lagged, cov[:, :T], scale)
    n = 50
    st = tuple(s.repeat_interleave(n, dim=1) for s in state)
    last = past[:, -1].repeat_interleave(n)
    sc = scale.repeat_interleave(n)
    samples = []
    for k in range(6):
        d, st = model(last[:, None, None], cov[:, T + k:T + k + 1].repeat_interleave(n, dim=0), sc, st)
        last = d.sample().squeeze(-1)
        samples.append(last)
    samples = torch.stack(samples, dim=-1).view(B, n, 6)
print("samples", tuple(samples.shape), samples.dtype, bool(torch.isfinite(samples).all()))
q = torch.quantile(samples, torch.tensor([0.1, 0.5, 0.9]), dim=1)
print("quantile shape", tuple(q.shape), "ordered", bool((q[0] <= q[1]).all() and (q[1] <= q[2]).all()))

# distributions as heads: fixed parameters, exact values
nb = NegativeBinomial(total_count=torch.tensor([2.0, 5.0]), probs=torch.tensor([0.3, 0.6]))
print("nb mean/var", nb.mean, nb.variance, "log_prob", nb.log_prob(torch.tensor([3.0, 7.0])))
nb_logits = NegativeBinomial(total_count=torch.tensor(3.0), logits=torch.tensor([-1.0, 0.5]))
print("nb logits", nb_logits.probs, nb_logits.mean)
stu = StudentT(torch.tensor(4.0), torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
print("studentT", stu.log_prob(torch.tensor([0.5, -1.0])), stu.variance, stu.entropy())
ind = Independent(Normal(torch.zeros(3, 4), torch.ones(3, 4)), 1)
print("independent", tuple(ind.batch_shape), tuple(ind.event_shape), ind.log_prob(torch.zeros(3, 4)))
mix = MixtureSameFamily(Categorical(logits=torch.tensor([[0.0, 1.0], [2.0, -1.0]])),
                        Normal(torch.tensor([[-1.0, 1.0], [0.0, 3.0]]), torch.tensor([[0.5, 1.0], [1.0, 2.0]])))
print("mixture", mix.mean, mix.variance, mix.log_prob(torch.tensor([0.0, 1.0])))
aff = TransformedDistribution(Normal(0.0, 1.0), [AffineTransform(loc=10.0, scale=3.0)])
print("affine", round(aff.log_prob(torch.tensor(12.0)).item(), 4), aff.sample((4,)).shape)
print("cdf/icdf", Normal(1.0, 2.0).cdf(torch.tensor([0.0, 1.0, 3.0])), Normal(1.0, 2.0).icdf(torch.tensor(0.975)))

for bad in (lambda: Normal(torch.tensor([0.0]), torch.tensor([-1.0])),
            lambda: NegativeBinomial(total_count=torch.tensor(2.0), probs=torch.tensor(1.5)),
            lambda: Normal(0.0, 1.0).log_prob(torch.tensor([0.0])).sum().item() and Independent(Normal(0.0, 1.0), 1)):
    try:
        bad()
    except (ValueError, RuntimeError) as e:
        print(type(e).__name__, str(e).split("\n")[0][:120])
try:
    NegativeBinomial(total_count=torch.tensor(2.0), probs=torch.tensor(0.3)).log_prob(torch.tensor(1.5))
except ValueError as e:
    print("ValueError", str(e)[:90])
