"""batch_shape versus event_shape bookkeeping in a hierarchical model: Independent, expand, transforms, mixtures."""

import torch

D = torch.distributions


def r(t):
    return t.detach().round(decimals=4).tolist()


def show(label, d):
    print(label, "batch", tuple(d.batch_shape), "event", tuple(d.event_shape))


# a group-level MVN prior over 3 coefficients, broadcast against 4 x 2 groups
torch.manual_seed(0)
A = torch.randn(2, 3, 3)
cov = A @ A.transpose(-1, -2) + torch.eye(3)
prior = D.MultivariateNormal(torch.zeros(4, 1, 3), cov)
show("mvn", prior)
print("lp", prior.log_prob(torch.ones(3)).shape, "entropy", r(prior.entropy()[0]))
print("sample", prior.sample([2, 5]).shape, "expand", prior.expand((6, 4, 2)).batch_shape)
print("precision tril", r(D.MultivariateNormal(torch.zeros(3), precision_matrix=cov[0]).scale_tril))
print("value broadcast", D.MultivariateNormal(torch.zeros(3), cov[0]).log_prob(torch.ones(5, 2, 3)).shape)

lowrank = D.LowRankMultivariateNormal(torch.zeros(3), torch.arange(24.0).reshape(4, 3, 2) / 10, torch.ones(3))
show("lowrank", lowrank)
print("lowrank lp", r(lowrank.log_prob(torch.ones(3))), "entropy", r(lowrank.entropy()))
print("lowrank expand", lowrank.expand((2, 4)).cov_factor.shape, "mode", r(lowrank.mode[0]))

# reinterpreting batch dims as event dims
base = D.Normal(torch.zeros(2, 3, 4), 2.0)
for k in range(4):
    ind = D.Independent(base, k)
    show(f"independent({k})", ind)
    print("  lp", ind.log_prob(torch.zeros(3, 4)).shape, "entropy", ind.entropy().shape)
nested = D.Independent(D.Independent(base, 1), 1)
show("nested", nested)
print("nested lp", r(nested.log_prob(torch.zeros(3, 4))), repr(nested))
bern = D.Independent(D.Bernoulli(torch.full((2, 3), 0.5)), 1)
print(
    "enumerate", bern.has_enumerate_support, D.Independent(D.Categorical(torch.ones(2, 3)), 0).enumerate_support().shape
)
print("expand independent", D.Independent(D.Normal(torch.zeros(2, 3), 1.0), 1).expand((4, 2)).batch_shape)

# transforms can move dims from batch to event
sb = D.TransformedDistribution(D.Normal(torch.zeros(3), 1.0), [D.transforms.StickBreakingTransform()])
show("stick-breaking", sb)
print("simplex lp", round(sb.log_prob(torch.tensor([0.1, 0.2, 0.3, 0.4])).item(), 4))
ln = D.LogisticNormal(torch.zeros(2, 3), 1.0)
show("logistic normal", ln)
print("ln lp", r(ln.log_prob(torch.tensor([0.1, 0.2, 0.3, 0.4]))), "sample", ln.sample((5,)).shape)
rs = D.TransformedDistribution(D.Normal(torch.zeros(4, 6), 1.0), [D.transforms.ReshapeTransform((6,), (2, 3))])
show("reshape", rs)
print("reshape lp", rs.log_prob(torch.zeros(4, 2, 3)).shape)
lognormal_vec = D.TransformedDistribution(
    D.Independent(D.Normal(torch.zeros(2, 3), 1.0), 1), [D.transforms.ExpTransform()]
)
show("exp of independent", lognormal_vec)
print("lp", r(lognormal_vec.log_prob(torch.ones(2, 3))))

# mixtures over vector-valued components
mix = D.MixtureSameFamily(D.Categorical(torch.ones(4, 2)), D.Independent(D.Normal(torch.zeros(4, 2, 3), 1.0), 1))
show("mixture", mix)
print("mixture sample", mix.sample((5,)).shape, "lp", mix.log_prob(torch.zeros(5, 4, 3)).shape)

for label, fn in [
    ("mvn bad value", lambda: D.MultivariateNormal(torch.zeros(3), cov).log_prob(torch.ones(3, 3))),
    ("mvn bad expand", lambda: D.MultivariateNormal(torch.zeros(3), cov).expand((5, 3))),
    ("independent negative", lambda: D.Independent(base, -1)),
    ("mvn cdf", lambda: D.MultivariateNormal(torch.zeros(3), cov[0]).cdf(torch.zeros(3))),
    (
        "transformed poisson rsample",
        lambda: D.TransformedDistribution(D.Poisson(torch.ones(3)), [D.transforms.AffineTransform(0.0, 2.0)]).rsample(),
    ),
    (
        "mixture of mvn cdf",
        lambda: D.MixtureSameFamily(
            D.Categorical(torch.ones(2)), D.MultivariateNormal(torch.zeros(2, 3), torch.eye(3))
        ).cdf(torch.zeros(3)),
    ),
    (
        "mixture bad value",
        lambda: D.MixtureSameFamily(
            D.Categorical(torch.ones(2)), D.Normal(torch.zeros(2), 1.0), validate_args=True
        ).log_prob(torch.zeros(5, 3)),
    ),
]:
    try:
        fn()
        print(label, "ok")
    except Exception as e:
        print(label, type(e).__name__, e)
