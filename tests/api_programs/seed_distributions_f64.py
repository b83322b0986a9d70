"""More torch.distributions families sampled under a seed in float64 and float32, as Bayesian-modelling code
draws them: Binomial, NegativeBinomial, Geometric, Laplace, Cauchy, StudentT, VonMises, LogNormal, Uniform,
Exponential, Multinomial, OneHot/RelaxedOneHot categoricals, LKJCholesky, Wishart, transformed and
independent distributions, with sample shapes and Monte Carlo moments."""
import torch
import torch.distributions as D

torch.set_printoptions(precision=4, sci_mode=False)
f64 = torch.float64


def r(x):
    return [round(v, 4) for v in x.flatten().tolist()]


def draw(name, dist, n=3, big=4000):
    s = dist.sample((n,))
    m = dist.sample((big,)).mean(0)
    print(f"{name:<18} {s.dtype} {tuple(s.shape)} {r(s)[:6]} mc_mean={r(m)[:3]}")


torch.manual_seed(17)
for dt in (torch.float32, f64):
    print("--", dt)
    t = lambda *v: torch.tensor(v, dtype=dt)  # noqa: E731
    draw("Binomial", D.Binomial(10, t(0.2, 0.7)))
    draw("NegBinomial", D.NegativeBinomial(t(3.0), t(0.4)))
    draw("Geometric", D.Geometric(t(0.3, 0.8)))
    draw("Laplace", D.Laplace(t(0.0, 1.0), t(1.0, 0.5)))
    draw("Cauchy", D.Cauchy(t(0.0), t(1.0)), big=10)
    draw("StudentT", D.StudentT(t(4.0, 10.0)))
    draw("VonMises", D.VonMises(t(0.5), t(2.0)))
    draw("LogNormal", D.LogNormal(t(0.0), t(0.25)))
    draw("Uniform", D.Uniform(t(-1.0, 2.0), t(1.0, 5.0)))
    draw("Exponential", D.Exponential(t(0.5, 4.0)))
    draw("Gamma", D.Gamma(t(0.3, 5.0), t(1.0, 2.0)))
    draw("Beta", D.Beta(t(0.5), t(3.0)))
    draw("Dirichlet", D.Dirichlet(t(0.5, 0.5, 2.0)))
    draw("Poisson", D.Poisson(t(2.5, 40.0)))
    draw("Chi2", D.Chi2(t(2.0, 7.0)))
    draw("HalfNormal", D.HalfNormal(t(2.0)))
    draw("Gumbel", D.Gumbel(t(1.0), t(2.0)))
    draw("Weibull", D.Weibull(t(1.0), t(1.5)))
    draw("Pareto", D.Pareto(t(1.0), t(3.0)))
    draw("Kumaraswamy", D.Kumaraswamy(t(2.0), t(3.0)))

torch.manual_seed(18)
mult = D.Multinomial(20, probs=torch.tensor([0.2, 0.3, 0.5]))
print("multinomial", mult.sample((4,)).tolist())
oh = D.OneHotCategorical(logits=torch.tensor([0.0, 1.0, 2.0]))
print("one hot", oh.sample((3,)).tolist(), "freq", r(oh.sample((3000,)).mean(0)))
relaxed = D.RelaxedOneHotCategorical(torch.tensor(0.5), logits=torch.tensor([0.0, 1.0, 2.0]))
rs = relaxed.rsample((2,))
print("relaxed one hot", r(rs), "sums", r(rs.sum(-1)))
rb = D.RelaxedBernoulli(torch.tensor(0.3), probs=torch.tensor([0.2, 0.9]))
print("relaxed bernoulli", r(rb.rsample((3,))))
cb = D.ContinuousBernoulli(probs=torch.tensor([0.2, 0.7]))
print("continuous bernoulli", r(cb.sample((3,))))

torch.manual_seed(19)
lkj = D.LKJCholesky(3, concentration=2.0)
L = lkj.sample()
print("lkj cholesky", r(L), "diag of LL^T", r((L @ L.T).diagonal()))
wish = D.Wishart(df=torch.tensor(5.0), covariance_matrix=torch.eye(2))
W = wish.sample((2,))
print("wishart", r(W), "mc mean", r(wish.sample((2000,)).mean(0)))
lognorm = D.TransformedDistribution(D.Normal(0.0, 1.0), [D.transforms.ExpTransform()])
print("transformed", r(lognorm.sample((4,))))
affine = D.TransformedDistribution(D.Uniform(0.0, 1.0),
                                   [D.transforms.AffineTransform(2.0, 3.0), D.transforms.SigmoidTransform()])
print("affine+sigmoid", r(affine.sample((4,))))
ind = D.Independent(D.Normal(torch.zeros(2, 3), torch.ones(2, 3)), 1)
xs = ind.sample((2,))
print("independent", tuple(xs.shape), ind.batch_shape, ind.event_shape, r(ind.log_prob(xs)))
bern_f64 = D.Bernoulli(torch.tensor([0.25, 0.75], dtype=f64))
print("bernoulli f64", bern_f64.sample((4,)).tolist())
cat_f64 = D.Categorical(torch.tensor([0.2, 0.3, 0.5], dtype=f64))
print("categorical f64", cat_f64.sample((10,)).tolist())
mvn64 = D.MultivariateNormal(torch.zeros(2, dtype=f64), torch.tensor([[1.0, 0.8], [0.8, 1.0]], dtype=f64))
print("mvn f64", r(mvn64.sample((3,))))
