"""Robust heteroscedastic regression: Student-t and Laplace likelihoods with learnable dof, parametrized positive
scales."""

import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions
import torch.nn.utils.parametrize as P  # noqa: E402


def r(t, d=4):
    return t.detach().round(decimals=d).tolist()


class Positive(nn.Module):
    def forward(self, x):
        return F.softplus(x) + 1e-3

    def right_inverse(self, y):
        return (y - 1e-3).expm1().log()


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, 24), nn.GELU(), nn.Linear(24, 2))
        self.df = nn.Parameter(torch.tensor(5.0))
        P.register_parametrization(self, "df", Positive())

    def forward(self, x, family="t"):
        loc, raw = self.net(x).unbind(-1)
        scale = F.softplus(raw) + 1e-3
        if family == "t":
            return D.StudentT(self.df + 1.0, loc, scale)
        if family == "laplace":
            return D.Laplace(loc, scale)
        return D.Normal(loc, scale)


torch.manual_seed(0)
x = torch.linspace(-3, 3, 200).unsqueeze(-1)
y = 0.5 * x.squeeze(-1) + (0.1 + 0.1 * x.squeeze(-1).abs()) * torch.randn(200)
outliers = torch.randperm(200)[:10]
y[outliers] += 6.0
head = Head()
print("parametrized", P.is_parametrized(head), P.is_parametrized(head, "df"), P.is_parametrized(head.net))
print("df", round(head.df.item(), 4), "original", round(head.parametrizations.df.original.item(), 4))
print(sorted(k for k, _ in head.named_parameters())[:3])
print("state keys", [k for k in head.state_dict() if "df" in k])

fits = {}
for family in ["normal", "laplace", "t"]:
    torch.manual_seed(1)
    model = Head()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(300):
        d = model(x, family)
        loss = -d.log_prob(y).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        slope = (model(torch.tensor([[1.0]]), family).loc - model(torch.tensor([[-1.0]]), family).loc) / 2
    fits[family] = slope.item()
    print(family, "slope", round(slope.item(), 1), "loss finite", bool(torch.isfinite(loss)))
print("robust beats normal", abs(fits["t"] - 0.5) < abs(fits["normal"] - 0.5) + 0.05)
print("df learned positive", model.df.item() > 0, type(model.parametrizations.df[0]).__name__)

with P.cached():
    a = model.df
    b = model.df
print("cached same object", a is b)
P.remove_parametrizations(model, "df", leave_parametrized=True)
print("after removal", P.is_parametrized(model), isinstance(model.df, nn.Parameter))

# distribution facts used by the likelihoods
t = D.StudentT(torch.tensor([0.5, 1.5, 3.0]), torch.tensor(1.0), torch.tensor(2.0))
print("t mean", r(t.mean), "var", r(t.variance))
print("t entropy", r(t.entropy()), "lp", r(t.log_prob(torch.tensor(3.0))))
lap = D.Laplace(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5]))
print(
    "laplace",
    r(lap.log_prob(torch.tensor([0.5, 0.5]))),
    r(lap.cdf(torch.tensor([0.5, 0.5]))),
    r(lap.icdf(torch.tensor([0.1, 0.9]))),
    r(lap.entropy()),
    r(lap.variance),
)
print("laplace mode/stddev", r(lap.mode), r(lap.stddev))
cauchy = D.Cauchy(0.0, 1.0)
print(
    "cauchy",
    r(cauchy.log_prob(torch.tensor([0.0, 3.0]))),
    r(cauchy.cdf(torch.tensor(1.0))),
    r(cauchy.icdf(torch.tensor(0.75))),
    r(cauchy.mean),
    r(cauchy.variance),
    round(cauchy.entropy().item(), 4),
)
print(
    "normal cdf/icdf",
    r(D.Normal(1.0, 2.0).cdf(torch.tensor([1.0, 3.0]))),
    r(D.Normal(1.0, 2.0).icdf(torch.tensor([0.8413]))),
)
hn = D.HalfNormal(torch.tensor(2.0), validate_args=False)
print(
    "halfnormal",
    round(hn.mean.item(), 4),
    round(hn.variance.item(), 4),
    r(hn.log_prob(torch.tensor([-1.0, 1.0]))),
    r(hn.cdf(torch.tensor(1.0))),
)
try:
    P.register_parametrization(model.net[0], "nope", Positive())
except Exception as e:
    print(type(e).__name__, e)
try:
    P.remove_parametrizations(model.net[0], "weight")
except Exception as e:
    print(type(e).__name__, e)
try:
    D.StudentT(torch.tensor(0.0), validate_args=True)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
