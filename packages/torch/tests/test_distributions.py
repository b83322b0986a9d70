"""ember.torch.distributions against closed forms in float64 (math/numpy), sampling statistics and gradients."""

import math

import numpy as np
import pytest

import ember.autograd as torch
import ember.torch.distributions as D
from ember.torch.distributions import constraints
from ember.torch.distributions._special import _gammainc_np, digamma, gammainc, lgamma, polygamma

lg = np.vectorize(math.lgamma)


def T(a, **kw):
    return torch.tensor(np.array(a, dtype=np.float64), **kw)


def N(x):
    return np.asarray(x.detach().numpy(), dtype=np.float64)


def close(actual, expected, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(N(actual), expected, rtol=rtol, atol=atol)


def _digamma_ref(x, h=1e-5):
    """digamma as the central difference of math.lgamma, to check the asymptotic series independently."""
    return (lg(x + h) - lg(x - h)) / (2 * h)


# --- special functions ------------------------------------------------------------------------------
def test_lgamma_digamma_polygamma_against_math_and_series():
    x = np.array([0.05, 0.5, 1.0, 2.5, 7.0, 40.0, -0.5, -2.3])
    close(lgamma(T(x)), lg(x))
    close(digamma(T(x)), _digamma_ref(x), rtol=1e-7)
    # trigamma(1) = pi^2 / 6, polygamma(2, 1) = -2 zeta(3), trigamma(1/2) = pi^2 / 2
    close(polygamma(1, T([1.0, 0.5])), [math.pi**2 / 6, math.pi**2 / 2], rtol=1e-12)
    close(polygamma(2, T([1.0])), [-2 * 1.2020569031595942], rtol=1e-12)
    assert np.isinf(N(lgamma(T([0.0, -2.0])))).all()
    assert N(digamma(T([0.0])))[0] == -np.inf and np.isnan(N(digamma(T([-3.0])))[0])


def test_special_function_gradients_by_finite_differences():
    x = T([0.7, 2.0, 5.5], requires_grad=True)
    (lgamma(x).sum() + digamma(x).sum()).backward()
    h = 1e-6
    xn = np.array([0.7, 2.0, 5.5])
    fd = (lg(xn + h) - lg(xn - h)) / (2 * h) + (N(digamma(T(xn + h))) - N(digamma(T(xn - h)))) / (2 * h)
    np.testing.assert_allclose(N(x.grad), fd, rtol=1e-6)


def test_special_functions_pass_gradcheck_and_gradgradcheck():
    x = T([0.7, 2.0, 5.5], requires_grad=True)
    a = T([0.7, 2.0, 5.5])
    assert torch.gradcheck(lgamma, (x,)) and torch.gradgradcheck(lgamma, (x,))
    assert torch.gradcheck(lambda v: polygamma(2, v), (x,))
    assert torch.gradcheck(lambda v: gammainc(a, v), (x,))
    with pytest.raises(NotImplementedError, match="^the derivative for 'igamma: input' is not implemented.$"):
        gammainc(T([1.0], requires_grad=True), T([1.0])).sum().backward()


def test_gamma_cdf_is_differentiable_in_the_rate_while_its_concentration_requires_grad():
    # PyTorch's igamma evaluates its (missing) derivative in the concentration only where that gradient is wanted
    a, b = T(2.0, requires_grad=True), T(1.0, requires_grad=True)
    x = T([0.5, 1.0, 3.0])
    cdf = D.Gamma(a, b).cdf(x)
    assert type(cdf.grad_fn).__name__ == "IgammaBackward0"
    (g,) = torch.autograd.grad(cdf.sum(), b, retain_graph=True)
    xn = np.array([0.5, 1.0, 3.0])
    assert g.item() == pytest.approx(float(np.sum(xn * xn * np.exp(-xn))), rel=1e-6)  # x * density of Gamma(2, 1)
    with pytest.raises(NotImplementedError, match="^the derivative for 'igamma: input' is not implemented.$"):
        torch.autograd.grad(cdf.sum(), a)


def test_gammainc_against_the_exponential_and_erf_cases():
    x = np.array([0.1, 1.0, 3.0, 20.0])
    close(gammainc(T(np.ones(4)), T(x)), 1 - np.exp(-x), rtol=1e-12)  # a = 1: the exponential CDF
    erf = np.vectorize(math.erf)
    close(gammainc(T(np.full(4, 0.5)), T(x)), erf(np.sqrt(x)), rtol=1e-12)  # a = 1/2: erf(sqrt(x))


# --- log_prob / entropy / moments against closed forms ------------------------------------------------
LOC, SCALE = np.array([0.3, -1.2, 2.0]), np.array([0.5, 1.5, 2.5])
X = np.array([0.1, 0.7, -3.0])


def test_normal_closed_forms():
    d = D.Normal(T(LOC), T(SCALE))
    close(d.log_prob(T(X)), -((X - LOC) ** 2) / (2 * SCALE**2) - np.log(SCALE) - 0.5 * np.log(2 * np.pi))
    close(d.entropy(), 0.5 + 0.5 * np.log(2 * np.pi) + np.log(SCALE))
    erf = np.vectorize(math.erf)
    close(d.cdf(T(X)), 0.5 * (1 + erf((X - LOC) / (SCALE * np.sqrt(2)))))
    close(d.icdf(d.cdf(T(X))), X, rtol=1e-7)
    close(d.mean, LOC)
    close(d.variance, SCALE**2)


def test_laplace_exponential_uniform_closed_forms():
    lap = D.Laplace(T(LOC), T(SCALE))
    close(lap.log_prob(T(X)), -np.log(2 * SCALE) - np.abs(X - LOC) / SCALE)
    close(lap.cdf(T(X)), np.where(X < LOC, 0.5 * np.exp((X - LOC) / SCALE), 1 - 0.5 * np.exp(-(X - LOC) / SCALE)))
    close(lap.entropy(), 1 + np.log(2 * SCALE))
    close(lap.variance, 2 * SCALE**2)
    rate, x = np.array([0.5, 2.0, 4.0]), np.array([0.3, 1.0, 2.0])
    ex = D.Exponential(T(rate))
    close(ex.log_prob(T(x)), np.log(rate) - rate * x)
    close(ex.cdf(T(x)), 1 - np.exp(-rate * x))
    close(ex.entropy(), 1 - np.log(rate))
    close(ex.variance, 1 / rate**2)
    un = D.Uniform(T([-1.0, 0.0]), T([3.0, 0.5]))
    close(un.log_prob(T([0.0, 0.25])), -np.log([4.0, 0.5]))
    close(un.cdf(T([0.0, 0.25])), [0.25, 0.5])
    close(un.entropy(), np.log([4.0, 0.5]))
    close(un.variance, np.array([16.0, 0.25]) / 12)


def test_gamma_beta_dirichlet_closed_forms():
    a, r, x = np.array([0.5, 2.0, 7.5]), np.array([1.0, 0.5, 3.0]), np.array([0.2, 3.0, 2.5])
    g = D.Gamma(T(a), T(r))
    close(g.log_prob(T(x)), a * np.log(r) + (a - 1) * np.log(x) - r * x - lg(a))
    psi = N(digamma(T(a)))
    close(g.entropy(), a - np.log(r) + lg(a) + (1 - a) * psi)
    close(g.mean, a / r)
    close(g.variance, a / r**2)
    close(g.cdf(T(x)), _gammainc_np(a, r * x))
    c1, c0, v = np.array([0.5, 2.0, 3.0]), np.array([0.5, 5.0, 1.0]), np.array([0.1, 0.4, 0.9])
    b = D.Beta(T(c1), T(c0))
    log_b = lg(c1) + lg(c0) - lg(c1 + c0)
    close(b.log_prob(T(v)), (c1 - 1) * np.log(v) + (c0 - 1) * np.log(1 - v) - log_b)
    close(b.mean, c1 / (c1 + c0))
    close(b.variance, c1 * c0 / ((c1 + c0) ** 2 * (c1 + c0 + 1)))
    alpha, s = np.array([1.5, 2.0, 0.5]), np.array([0.2, 0.5, 0.3])
    dd = D.Dirichlet(T(alpha))
    close(dd.log_prob(T(s)), np.sum((alpha - 1) * np.log(s)) + lg(alpha.sum()) - lg(alpha).sum())
    close(dd.mean, alpha / alpha.sum())


def test_discrete_families_closed_forms():
    p = np.array([0.2, 0.5, 0.9])
    be = D.Bernoulli(T(p))
    close(be.log_prob(T([1.0, 0.0, 0.0])), np.log([0.2, 0.5, 0.1]))
    close(be.entropy(), -(p * np.log(p) + (1 - p) * np.log(1 - p)))
    close(D.Bernoulli(logits=T(np.log(p / (1 - p)))).probs, p)
    probs = np.array([0.1, 0.2, 0.3, 0.4])
    cat = D.Categorical(T(probs * 3))  # unnormalised probs are normalised
    close(cat.log_prob(T([0.0, 3.0])), np.log([0.1, 0.4]))
    close(cat.entropy(), -np.sum(probs * np.log(probs)))
    assert N(cat.enumerate_support()).tolist() == [0, 1, 2, 3]
    oh = D.OneHotCategorical(T(probs))
    close(oh.log_prob(T(np.eye(4)[[1, 2]])), np.log([0.2, 0.3]))
    rate, k = np.array([0.5, 3.0, 10.0]), np.array([0.0, 2.0, 12.0])
    close(D.Poisson(T(rate)).log_prob(T(k)), k * np.log(rate) - rate - lg(k + 1))
    n, q, kk = 10.0, np.array([0.3, 0.6]), np.array([3.0, 10.0])
    comb = lg(n + 1) - lg(kk + 1) - lg(n - kk + 1)
    binom = D.Binomial(n, T(q))
    close(binom.log_prob(T(kk)), comb + kk * np.log(q) + (n - kk) * np.log(1 - q), rtol=1e-9)
    ks = np.arange(11.0)[:, None]
    pmf = np.exp(lg(n + 1) - lg(ks + 1) - lg(n - ks + 1) + ks * np.log(q) + (n - ks) * np.log(1 - q))
    close(binom.entropy(), -np.sum(pmf * np.log(pmf), 0), rtol=1e-9)


def test_multivariate_normal_closed_forms_for_each_parameterization():
    cov = np.array([[2.0, 0.3], [0.3, 0.5]])
    loc, x = np.array([1.0, -1.0]), np.array([0.2, 0.4])
    diff = x - loc
    expected = -0.5 * (2 * np.log(2 * np.pi) + np.log(np.linalg.det(cov)) + diff @ np.linalg.solve(cov, diff))
    for kw in ({"covariance_matrix": T(cov)}, {"precision_matrix": T(np.linalg.inv(cov))},
               {"scale_tril": T(np.linalg.cholesky(cov))}):
        d = D.MultivariateNormal(T(loc), **kw)
        close(d.log_prob(T(x)), expected, rtol=1e-9)
        close(d.entropy(), 0.5 * np.log(np.linalg.det(2 * np.pi * np.e * cov)), rtol=1e-9)
        close(d.covariance_matrix, cov, rtol=1e-9)
        close(d.variance, np.diag(cov), rtol=1e-9)


def test_lognormal_and_transformed_distribution_change_of_variables():
    d = D.LogNormal(T(LOC), T(SCALE))
    y = np.array([0.5, 1.0, 4.0])
    close(d.log_prob(T(y)), -((np.log(y) - LOC) ** 2) / (2 * SCALE**2) - np.log(SCALE * y * np.sqrt(2 * np.pi)))
    close(d.mean, np.exp(LOC + SCALE**2 / 2))
    # an affine map with negative scale reverses the CDF
    t = D.TransformedDistribution(D.Normal(T(0.0), T(1.0)), [D.AffineTransform(1.0, -2.0)])
    close(t.log_prob(T(3.0)), -0.5 * 1.0 - np.log(2.0) - 0.5 * np.log(2 * np.pi))
    close(t.cdf(T(1.0)), 0.5)
    close(t.cdf(T(3.0)), 1 - 0.5 * (1 + math.erf(-1 / np.sqrt(2))))


def test_independent_sums_the_reinterpreted_dims():
    base = D.Normal(T(np.zeros((2, 3))), T(np.ones((2, 3))))
    d = D.Independent(base, 1)
    assert tuple(d.batch_shape) == (2,) and tuple(d.event_shape) == (3,)
    close(d.log_prob(T(np.zeros((2, 3)))), np.full(2, -1.5 * np.log(2 * np.pi)))
    assert repr(d.support) == "IndependentConstraint(Real(), 1)"


# --- sampling statistics -----------------------------------------------------------------------------
@pytest.mark.parametrize(("make", "mean", "var"), [
    (lambda: D.Normal(T(1.5), T(2.0)), 1.5, 4.0),
    (lambda: D.Gamma(T(0.7), T(2.0)), 0.35, 0.175),
    (lambda: D.Gamma(T(9.0), T(1.5)), 6.0, 4.0),
    (lambda: D.Beta(T(2.0), T(5.0)), 2 / 7, 10 / (49 * 8)),
    (lambda: D.Exponential(T(3.0)), 1 / 3, 1 / 9),
    (lambda: D.Laplace(T(-1.0), T(0.5)), -1.0, 0.5),
    (lambda: D.Uniform(T(-1.0), T(3.0)), 1.0, 16 / 12),
    (lambda: D.Poisson(T(4.0)), 4.0, 4.0),
    (lambda: D.Binomial(12, T(0.3)), 3.6, 12 * 0.21),
    (lambda: D.Bernoulli(T(0.3)), 0.3, 0.21),
    (lambda: D.LogNormal(T(0.0), T(0.5)), math.exp(0.125), (math.exp(0.25) - 1) * math.exp(0.25)),
])
def test_sample_mean_and_variance(make, mean, var):
    torch.manual_seed(0)
    s = N(make().sample((20000,)))
    se = math.sqrt(var / 20000)
    assert abs(s.mean() - mean) < 5 * se
    assert abs(s.var() / var - 1) < 0.1


def test_categorical_and_dirichlet_sample_frequencies():
    torch.manual_seed(1)
    probs = np.array([0.1, 0.6, 0.3])
    s = N(D.Categorical(T(probs)).sample((20000,)))
    np.testing.assert_allclose(np.bincount(s.astype(int), minlength=3) / 20000, probs, atol=0.015)
    oh = N(D.OneHotCategorical(T(probs)).sample((20000,)))
    np.testing.assert_allclose(oh.mean(0), probs, atol=0.015)
    alpha = np.array([1.0, 2.0, 5.0])
    ds = N(D.Dirichlet(T(alpha)).sample((20000,)))
    np.testing.assert_allclose(ds.sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(ds.mean(0), alpha / 8, atol=0.01)
    cov = np.array([[2.0, 0.6], [0.6, 1.0]])
    mv = N(D.MultivariateNormal(T([1.0, -2.0]), covariance_matrix=T(cov)).sample((20000,)))
    np.testing.assert_allclose(mv.mean(0), [1.0, -2.0], atol=0.06)
    np.testing.assert_allclose(np.cov(mv.T), cov, atol=0.08)


@pytest.mark.parametrize("make", [D.Categorical, D.OneHotCategorical, D.OneHotCategoricalStraightThrough])
@pytest.mark.parametrize("shape", [(0,), (2, 0)])
def test_categorical_families_refuse_an_empty_sample_shape_as_multinomial(make, shape):
    # PyTorch's Categorical.sample asks multinomial for sample_shape.numel() draws: none is its error
    with pytest.raises(RuntimeError, match=r"^cannot sample n_sample <= 0 samples$"):
        make(T(np.array([0.2, 0.8]))).sample(shape)


def test_families_with_zero_dim_parameters_sample_zero_dim_values():
    for d in (D.Gamma(T(2.0), T(1.0)), D.Gamma(2.0, 1.0), D.Chi2(T(3.0)), D.StudentT(T(3.0)), D.Poisson(T(3.0)),
              D.FisherSnedecor(T(3.0), T(4.0)), D.InverseGamma(T(2.0), T(1.0)), D.NegativeBinomial(T(3.0), T(0.4))):
        s = d.sample()
        assert tuple(s.shape) == () and bool(d.support.check(s)), type(d).__name__
    assert tuple(D.Gamma(T(2.0), T(1.0)).rsample().shape) == ()


def test_sample_shapes_and_manual_seed_reproduces_samples():
    d = D.Gamma(T(np.full((2, 3), 2.0)), T(1.0))
    assert tuple(d.sample().shape) == (2, 3) and tuple(d.sample((4, 5)).shape) == (4, 5, 2, 3)
    for make in (lambda: D.Gamma(T(2.0), T(1.0)), lambda: D.Binomial(5, T(0.4)), lambda: D.Normal(T(0.0), T(1.0))):
        torch.manual_seed(7)
        a = N(make().sample((50,)))
        torch.manual_seed(7)
        np.testing.assert_array_equal(a, N(make().sample((50,))))
        assert not np.array_equal(a, N(make().sample((50,))))


def test_relaxed_one_hot_categorical_samples_lie_on_the_simplex_and_sharpen_with_temperature():
    torch.manual_seed(2)
    probs = T([0.2, 0.3, 0.5])
    hot = N(D.RelaxedOneHotCategorical(T(0.05), probs).sample((5000,)))
    np.testing.assert_allclose(hot.sum(-1), 1.0, rtol=1e-9)
    np.testing.assert_allclose(np.bincount(hot.argmax(-1), minlength=3) / 5000, [0.2, 0.3, 0.5], atol=0.03)
    assert hot.max(-1).mean() > 0.95
    rb = N(D.RelaxedBernoulli(T(0.5), T(0.3)).sample((5000,)))
    assert ((rb > 0) & (rb < 1)).all() and abs((rb > 0.5).mean() - 0.3) < 0.03


# --- rsample gradients -------------------------------------------------------------------------------
def test_normal_rsample_gradients_are_one_and_eps():
    loc, scale = T([0.5, -1.0], requires_grad=True), T([2.0, 0.5], requires_grad=True)
    torch.manual_seed(3)
    x = D.Normal(loc, scale).rsample()
    x.sum().backward()
    close(loc.grad, [1.0, 1.0])
    close(scale.grad, (N(x) - [0.5, -1.0]) / [2.0, 0.5])


def _gamma_cdf_inverse(a, u):
    """x with P(a, x) = u, by bisection on the float64 incomplete gamma."""
    lo, hi = np.zeros_like(a), np.full_like(a, 1e3)
    for _ in range(200):
        mid = (lo + hi) / 2
        below = _gammainc_np(a, mid) < u
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return (lo + hi) / 2


def test_gamma_rsample_gradient_is_the_derivative_of_the_inverse_cdf_to_pytorchs_approximation():
    # PyTorch's series/saddle-point/rational approximations of the implicit derivative are ~1e-4 off it here
    a = np.array([0.3, 1.0, 2.5, 8.0, 40.0])
    conc = T(a, requires_grad=True)
    torch.manual_seed(4)
    x = D.Gamma(conc, T(1.0)).rsample()
    x.sum().backward()
    u = _gammainc_np(a, N(x))  # the quantile each sample sits at; the reparametrisation holds it fixed
    h = 1e-5
    fd = (_gamma_cdf_inverse(a + h, u) - _gamma_cdf_inverse(a - h, u)) / (2 * h)
    np.testing.assert_allclose(N(conc.grad), fd, rtol=3e-4)
    assert np.abs(N(conc.grad) / fd - 1).max() > 1e-5  # the approximation, not the exact derivative


def test_gamma_draws_record_pytorchs_standard_gamma_node():
    conc = T([1.0, 2.0], requires_grad=True)
    x = D.Gamma(conc, T(2.0)).rsample()
    assert type(x.grad_fn).__name__ == "DivBackward0"
    assert type(x.grad_fn.next_functions[0][0]).__name__ == "StandardGammaBackward0"


def test_standard_gamma_grad_records_pytorchs_node_without_a_derivative():
    """`_standard_gamma_grad` records StandardGammaGradBackward0, whose backward refuses: a double backward
    through `Gamma.rsample` raises PyTorch's NotImplementedError."""
    from ember.torch.distributions._special import standard_gamma_grad

    conc = T([0.5, 2.0], requires_grad=True)
    g = standard_gamma_grad(conc, T([0.3, 1.5]))
    assert type(g.grad_fn).__name__ == "StandardGammaGradBackward0" and g.requires_grad
    torch.manual_seed(0)
    d, = torch.autograd.grad(D.Gamma(conc, T(1.0)).rsample().sum(), conc, create_graph=True)
    with pytest.raises(NotImplementedError, match="^the derivative for '_standard_gamma_grad' is not implemented.$"):
        d.sum().backward()


def test_gamma_rate_gradient_and_beta_dirichlet_gradients_flow():
    conc, rate = T([2.0], requires_grad=True), T([4.0], requires_grad=True)
    torch.manual_seed(5)
    x = D.Gamma(conc, rate).rsample()
    x.backward()
    close(rate.grad, -N(x) / 4.0)
    c1, c0 = T([2.0], requires_grad=True), T([3.0], requires_grad=True)
    D.Beta(c1, c0).rsample((100,)).mean().backward()
    # the mean of Beta grows with concentration1 and shrinks with concentration0 (d mean = 3/25, -2/25)
    assert N(c1.grad)[0] > 0 > N(c0.grad)[0]
    alpha = T([1.0, 2.0, 3.0], requires_grad=True)
    D.Dirichlet(alpha).rsample((4,)).select(-1, 0).sum().backward()
    assert np.isfinite(N(alpha.grad)).all()


def test_beta_rsample_mean_gradient_matches_the_mean_derivative():
    c1, c0 = T([2.0], requires_grad=True), T([3.0], requires_grad=True)
    torch.manual_seed(6)
    D.Beta(c1, c0).rsample((20000,)).mean().backward()
    np.testing.assert_allclose(N(c1.grad), [3 / 25], atol=0.01)
    np.testing.assert_allclose(N(c0.grad), [-2 / 25], atol=0.01)


def test_reparametrised_families_pass_gradients_to_every_parameter():
    torch.manual_seed(8)
    cases = [
        lambda p: D.Exponential(p[0]), lambda p: D.Laplace(p[0], p[1]), lambda p: D.Uniform(p[0] - 3, p[1]),
        lambda p: D.LogNormal(p[0], p[1]),
        lambda p: D.MultivariateNormal(p[0].expand(2), scale_tril=torch.diag(p[1].expand(2))),
        lambda p: D.RelaxedOneHotCategorical(T(0.5), logits=torch.stack([p[0], p[1]])),
        lambda p: D.RelaxedBernoulli(T(0.5), logits=p[0]),
    ]
    for make in cases:
        params = [T(1.2, requires_grad=True), T(0.8, requires_grad=True)]
        d = make(params)
        assert d.has_rsample
        d.rsample((3,)).sum().backward()
        assert params[0].grad is not None and np.isfinite(N(params[0].grad)).all(), d


# --- KL divergence -----------------------------------------------------------------------------------
def test_kl_closed_forms():
    kl = D.kl_divergence
    close(kl(D.Normal(T(0.0), T(1.0)), D.Normal(T(1.0), T(2.0))), np.log(2) + (1 + 1) / 8 - 0.5)
    close(kl(D.Exponential(T(2.0)), D.Exponential(T(3.0))), np.log(2 / 3) + 3 / 2 - 1)
    close(kl(D.Bernoulli(T(0.3)), D.Bernoulli(T(0.6))), 0.3 * np.log(0.3 / 0.6) + 0.7 * np.log(0.7 / 0.4))
    p, q = np.array([0.2, 0.8]), np.array([0.5, 0.5])
    close(kl(D.Categorical(T(p)), D.Categorical(T(q))), np.sum(p * np.log(p / q)))
    close(kl(D.OneHotCategorical(T(p)), D.OneHotCategorical(T(q))), np.sum(p * np.log(p / q)))
    close(kl(D.Poisson(T(2.0)), D.Poisson(T(3.0))), 2 * np.log(2 / 3) - 2 + 3)
    close(kl(D.Uniform(T(0.0), T(1.0)), D.Uniform(T(-1.0), T(2.0))), np.log(3))
    assert np.isinf(N(kl(D.Uniform(T(-2.0), T(1.0)), D.Uniform(T(-1.0), T(2.0)))))
    a1, b1, a2, b2 = 2.0, 1.5, 3.0, 0.5
    expected_gamma = ((a1 - a2) * N(digamma(T(a1))) - lg(a1) + lg(a2) + a2 * (np.log(b1) - np.log(b2))
                      + a1 * (b2 - b1) / b1)
    close(kl(D.Gamma(T(a1), T(b1)), D.Gamma(T(a2), T(b2))), expected_gamma)
    c1, c2 = np.array([1.0, 2.0]), np.array([2.0, 2.0])
    cov1, cov2 = np.diag(c1), np.diag(c2)
    expected_mvn = 0.5 * (np.trace(np.linalg.solve(cov2, cov1)) + 1.0 / 2 + 1.0 / 2 - 2 + np.log(4 / 2))
    close(kl(D.MultivariateNormal(T([0.0, 0.0]), T(cov1)), D.MultivariateNormal(T([1.0, 1.0]), T(cov2))),
          expected_mvn)


def test_kl_cross_families_by_monte_carlo():
    torch.manual_seed(9)
    for p, q in [(D.Normal(T(0.3), T(0.8)), D.Laplace(T(0.0), T(1.2))),
                 (D.Gamma(T(3.0), T(2.0)), D.Normal(T(1.0), T(1.0))),
                 (D.Beta(T(2.0), T(3.0)), D.Gamma(T(2.0), T(3.0))),
                 (D.Uniform(T(0.2), T(0.7)), D.Beta(T(2.0), T(2.0)))]:
        x = p.sample((40000,))
        mc = N(p.log_prob(x) - q.log_prob(x))
        assert abs(float(N(D.kl_divergence(p, q))) - mc.mean()) < 5 * mc.std() / 200, (p, q)


def test_kl_registry_dispatch_and_errors():
    with pytest.raises(NotImplementedError, match="No KL"):
        D.kl_divergence(D.Categorical(T([0.5, 0.5])), D.Normal(T(0.0), T(1.0)))
    assert np.isinf(N(D.kl_divergence(D.Normal(T(0.0), T(1.0)), D.Exponential(T(1.0)))))

    class MyNormal(D.Normal):
        pass

    close(D.kl_divergence(MyNormal(T(0.0), T(1.0)), D.Normal(T(1.0), T(1.0))), 0.5)

    @D.register_kl(MyNormal, D.Normal)
    def _kl_mine(p, q):
        return torch.zeros(())

    close(D.kl_divergence(MyNormal(T(0.0), T(1.0)), D.Normal(T(1.0), T(1.0))), 0.0)
    with pytest.raises(TypeError, match=r"^issubclass\(\) arg 1 must be a class$"):
        D.register_kl(3, D.Normal)
    assert D.register_kl(int, D.Normal)(_kl_mine) is _kl_mine  # PyTorch's check lets any class through
    ip = D.Independent(D.Normal(T([0.0, 0.0]), T([1.0, 1.0])), 1)
    iq = D.Independent(D.Normal(T([1.0, 1.0]), T([1.0, 1.0])), 1)
    close(D.kl_divergence(ip, iq), 1.0)


def test_private_names_that_extensions_reach_for_are_pytorchs():
    # Pyro-style code checks `isinstance(t, transforms._InverseTransform)` and resets `kl._KL_MEMOIZE`
    from ember.torch.distributions import kl, transforms

    assert isinstance(transforms.ExpTransform().inv, transforms._InverseTransform)
    D.kl_divergence(D.Normal(T(0.0), T(1.0)), D.Normal(T(1.0), T(1.0)))
    assert (D.Normal, D.Normal) in kl._KL_MEMOIZE
    kl._KL_MEMOIZE.clear()
    close(D.kl_divergence(D.Normal(T(0.0), T(1.0)), D.Normal(T(1.0), T(1.0))), 0.5)


def test_kl_gaussians_of_different_event_shapes_raise_pytorch_messages():
    full2 = D.MultivariateNormal(T([0.0, 0.0]), T([[1.0, 0.0], [0.0, 1.0]]))
    full3 = D.MultivariateNormal(T([0.0, 0.0, 0.0]), T([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    low2 = D.LowRankMultivariateNormal(T([0.0, 0.0]), T([[1.0], [1.0]]), T([1.0, 1.0]))
    low3 = D.LowRankMultivariateNormal(T([0.0, 0.0, 0.0]), T([[1.0], [1.0], [1.0]]), T([1.0, 1.0, 1.0]))
    gap = " " * 26  # PyTorch's backslash-continued literals keep the next line's indentation
    for p, q, kind in [(full2, full3, ""), (low2, low3, "Low Rank "), (full2, low3, "(Low Rank) "),
                       (low2, full3, "(Low Rank) ")]:
        with pytest.raises(ValueError) as info:
            D.kl_divergence(p, q)
        assert str(info.value) == (f"KL-divergence between two {kind}Multivariate Normals with{gap}"
                                   "different event shapes cannot be computed")


def test_rsample_fills_a_fresh_tensor_in_place_as_pytorchs_standard_normal():
    from ember.autograd.func import vmap

    locs = torch.zeros(3, 2)
    for make in (lambda v: D.Normal(v, T(1.0)), lambda v: D.MultivariateNormal(v, scale_tril=torch.eye(2))):
        with pytest.raises(RuntimeError, match="^vmap: Cannot ask for different inplace randomness on an unbatched "
                                               "tensor"):
            vmap(lambda v: make(v).rsample(), randomness="different")(locs)
        same = vmap(lambda v: make(v).rsample(), randomness="same")(locs)
        assert (same == same[0]).all()
    torch.manual_seed(0)
    drawn = D.Normal(torch.zeros(5), T(1.0)).rsample()
    torch.manual_seed(0)
    np.testing.assert_array_equal(drawn.numpy(), torch.randn(5).numpy())


# --- validation --------------------------------------------------------------------------------------
def test_invalid_parameters_raise_value_error_with_pytorch_message():
    with pytest.raises(ValueError, match=r"^Expected parameter scale \(Tensor of shape \(3,\)\) of distribution "
                                         r"Normal\(loc: ember.Size\(\[3\]\), scale: ember.Size\(\[3\]\)\) to satisfy "
                                         r"the constraint GreaterThan\(lower_bound=0.0\), but found invalid values:"):
        D.Normal(T([0.0, 1.0, 2.0]), T([1.0, -1.0, 1.0]))
    with pytest.raises(ValueError, match="constraint Interval"):
        D.Bernoulli(T([1.5]))
    with pytest.raises(ValueError, match="constraint Simplex"):
        D.Categorical(T([[-0.5, 1.5]]))
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        D.Bernoulli(T(0.5), logits=T(0.0))
    with pytest.raises(ValueError, match=r"constraint LessThan\(upper_bound=0.0\), but found invalid values:\n1.0"):
        D.Uniform(T(1.0), T(0.0))
    with pytest.raises(ValueError, match="PositiveDefinite"):
        D.MultivariateNormal(T([0.0, 0.0]), T([[1.0, 2.0], [2.0, 1.0]]))
    D.Normal(T([0.0]), T([-1.0]), validate_args=False)  # validation off: no error


def test_log_prob_outside_support_raises_when_validating():
    with pytest.raises(ValueError, match=r"Expected value argument \(Tensor of shape \(1,\)\) to be within the "
                                         r"support \(GreaterThanEq\(lower_bound=0.0\)\) of the distribution"):
        D.Exponential(T([1.0])).log_prob(T([-1.0]))
    with pytest.raises(ValueError, match="within the support"):
        D.Bernoulli(T([0.5])).log_prob(T([0.5]))
    with pytest.raises(ValueError, match="must be a Tensor"):
        D.Normal(T(0.0), T(1.0)).log_prob(0.5)
    with pytest.raises(ValueError, match="not broadcastable"):
        D.Normal(T([0.0, 1.0]), T([1.0, 1.0])).log_prob(T([0.0, 1.0, 2.0]))
    assert N(D.Exponential(T([1.0]), validate_args=False).log_prob(T([-1.0])))[0] == 1.0


def test_set_default_validate_args_turns_validation_off():
    D.Distribution.set_default_validate_args(False)
    try:
        D.Normal(T([0.0]), T([-1.0]))
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Normal(T([0.0]), T([-1.0]))


# --- shapes, expand, repr, constraints, transforms -----------------------------------------------------
def test_expand_broadcasts_batch_and_keeps_parameterization():
    d = D.Bernoulli(logits=T([0.0, 1.0])).expand((3, 2))
    assert tuple(d.batch_shape) == (3, 2) and "logits" in d.__dict__ and "probs" not in d.__dict__
    assert tuple(d.sample((4,)).shape) == (4, 3, 2)
    m = D.MultivariateNormal(T([0.0, 0.0]), scale_tril=T(np.eye(2))).expand((5,))
    assert tuple(m.batch_shape) == (5,) and tuple(m.log_prob(T(np.zeros((5, 2)))).shape) == (5,)
    c = D.Categorical(T([0.2, 0.8])).expand((3,))
    assert tuple(c.sample().shape) == (3,)


def test_repr_and_mode():
    assert repr(D.Normal(T(0.0), T(1.0))) == "Normal(loc: 0.0, scale: 1.0)"
    assert repr(D.Categorical(T([0.5, 0.5]))) == "Categorical(probs: ember.Size([2]))"
    close(D.Gamma(T([0.5, 3.0]), T([1.0, 2.0])).mode, [0.0, 1.0])
    close(D.Beta(T(3.0), T(2.0)).mode, 2 / 3)
    close(D.Dirichlet(T([0.5, 0.3])).mode, [1.0, 0.0])
    assert np.isnan(N(D.Bernoulli(T([0.5])).mode)).all()


def test_repr_shows_only_parameters_held_in_the_instance_dict():
    # PyTorch's repr lists the arg_constraints found in __dict__: the wrappers that keep probs/logits in an inner
    # Categorical or base distribution print no parameters
    from ember.torch.distributions.relaxed_categorical import ExpRelaxedCategorical

    p = T([0.3, 0.7])
    for d in (ExpRelaxedCategorical(T(0.5), probs=p), D.RelaxedOneHotCategorical(T(0.5), probs=p),
              D.RelaxedBernoulli(T(0.5), probs=p), D.OneHotCategorical(probs=p),
              D.OneHotCategoricalStraightThrough(logits=p)):
        assert repr(d) == f"{type(d).__name__}()"


def test_constraints_check():
    x = T([-1.0, 0.0, 0.5, 1.0, float("nan")])
    assert N(constraints.real.check(x)).tolist() == [True, True, True, True, False]
    assert N(constraints.positive.check(x)).tolist()[:4] == [False, False, True, True]
    assert N(constraints.unit_interval.check(x)).tolist()[:4] == [False, True, True, True]
    assert N(constraints.simplex.check(T([[0.3, 0.7], [0.5, 0.6]]))).tolist() == [True, False]
    assert N(constraints.lower_cholesky.check(T([[[1.0, 0.0], [2.0, 1.0]], [[1.0, 1.0], [0.0, 1.0]]]))).tolist() == [
        True, False]
    assert N(constraints.positive_definite.check(T([[2.0, 0.5], [0.5, 1.0]]))).item()
    assert N(constraints.integer_interval(0, 3).check(T([0.0, 3.0, 1.5, 4.0]))).tolist() == [True, True, False, False]
    assert N(constraints.nonnegative_integer.check(T([0.0, 2.0, -1.0]))).tolist() == [True, True, False]
    assert constraints.independent(constraints.real, 1).event_dim == 1
    assert constraints.is_dependent(D.Uniform.support) and D.Uniform(T(0.0), T(2.0)).support.upper_bound.item() == 2


def test_transforms_inverse_and_log_det_jacobian_by_finite_differences():
    x = np.array([-1.5, 0.2, 2.0])
    for t in (D.ExpTransform(), D.SigmoidTransform(), D.TanhTransform(), D.AffineTransform(2.0, -3.0),
              D.SoftplusTransform(), D.PowerTransform(2.0),
              D.ComposeTransform([D.AffineTransform(0.5, 2.0), D.ExpTransform()])):
        xs = np.abs(x) if isinstance(t, D.PowerTransform) else x
        y = t(T(xs))
        close(t.inv(y), xs, rtol=1e-9, atol=1e-9)
        h = 1e-6
        fd = (N(t(T(xs + h))) - N(t(T(xs - h)))) / (2 * h)
        close(t.log_abs_det_jacobian(T(xs), y), np.log(np.abs(fd)), rtol=1e-6, atol=1e-7)
        close(t.inv.log_abs_det_jacobian(y, T(xs)), -np.log(np.abs(fd)), rtol=1e-6, atol=1e-7)
    assert D.ExpTransform() == D.ExpTransform() and D.ExpTransform() != D.SigmoidTransform()
    cached = D.ExpTransform(cache_size=1)
    xt = T(x)
    assert cached.inv(cached(xt)) is xt


# --- further families ----------------------------------------------------------------------------------
def test_mixture_same_family_log_prob_and_sample_statistics():
    w, mu, sd = np.array([0.3, 0.7]), np.array([-2.0, 1.0]), np.array([0.5, 1.0])
    m = D.MixtureSameFamily(D.Categorical(T(w)), D.Normal(T(mu), T(sd)))
    x = np.array([-2.0, 0.0, 1.5])
    dens = (w * np.exp(-((x[:, None] - mu) ** 2) / (2 * sd**2)) / (sd * np.sqrt(2 * np.pi))).sum(-1)
    close(m.log_prob(T(x)), np.log(dens))
    mean = (w * mu).sum()
    var = (w * (sd**2 + mu**2)).sum() - mean**2
    close(m.mean, mean)
    close(m.variance, var)
    torch.manual_seed(10)
    s = N(m.sample((20000,)))
    assert abs(s.mean() - mean) < 5 * math.sqrt(var / 20000) and abs(s.var() / var - 1) < 0.1
    with pytest.raises(ValueError, match="does not equal"):
        D.MixtureSameFamily(D.Categorical(T([0.5, 0.5])), D.Normal(T([0.0, 1.0, 2.0]), T(1.0)))


@pytest.mark.parametrize(("make", "mean", "var"), [
    (lambda: D.StudentT(T(6.0), T(1.0), T(2.0)), 1.0, 4.0 * 6 / 4),
    (lambda: D.Chi2(T(3.0)), 3.0, 6.0),
    (lambda: D.HalfNormal(T(2.0)), 2 * math.sqrt(2 / math.pi), 4 * (1 - 2 / math.pi)),
    (lambda: D.Geometric(T(0.25)), 3.0, 12.0),
    (lambda: D.Gumbel(T(1.0), T(2.0)), 1.0 + 2 * 0.5772156649015329, math.pi**2 / 6 * 4),
    (lambda: D.Pareto(T(1.0), T(10.0)), 10 / 9, 10 / (81 * 8)),
    (lambda: D.Weibull(T(2.0), T(1.5)), 2 * math.gamma(1 + 1 / 1.5),
     4 * (math.gamma(1 + 2 / 1.5) - math.gamma(1 + 1 / 1.5) ** 2)),
    (lambda: D.InverseGamma(T(6.0), T(2.0)), 0.4, 4 / (25 * 4)),
    (lambda: D.NegativeBinomial(T(4.0), T(0.3)), 4 * 0.3 / 0.7, 4 * 0.3 / 0.49),
])
def test_further_families_sample_mean_and_variance(make, mean, var):
    torch.manual_seed(11)
    s = N(make().sample((20000,)))
    assert abs(s.mean() - mean) < 5 * math.sqrt(var / 20000)
    assert abs(s.var() / var - 1) < 0.15


def test_cauchy_multinomial_closed_forms():
    c = D.Cauchy(T(1.0), T(2.0))
    close(c.log_prob(T(3.0)), -np.log(np.pi * 2 * (1 + 1.0)))
    close(c.cdf(T(3.0)), 0.75)
    torch.manual_seed(12)
    assert abs(np.median(N(c.sample((20000,)))) - 1.0) < 0.1
    p = np.array([0.2, 0.3, 0.5])
    mn = D.Multinomial(6, T(p))
    counts = np.array([1.0, 2.0, 3.0])
    close(mn.log_prob(T(counts)), lg(7) - lg(counts + 1).sum() + (counts * np.log(p)).sum())
    torch.manual_seed(13)
    s = N(mn.sample((5000,)))
    assert (s.sum(-1) == 6).all()
    np.testing.assert_allclose(s.mean(0), 6 * p, atol=0.08)
    with pytest.raises(NotImplementedError, match="inhomogeneous total_count"):
        D.Multinomial(T(6.0), T(p))


@pytest.mark.parametrize("constraint", [
    constraints.real, constraints.positive, constraints.nonnegative, constraints.greater_than(2.0),
    constraints.less_than(-1.0), constraints.interval(-1.0, 3.0), constraints.unit_interval, constraints.simplex,
    constraints.real_vector, constraints.independent(constraints.positive, 1)])
def test_biject_to_maps_onto_the_constraint_and_inverts(constraint):
    t = D.biject_to(constraint)
    x = T([[-2.0, 0.3, 1.5], [0.1, -0.4, 0.0]])
    y = t(x)
    assert bool(constraint.check(y).all())
    close(t.inv(y), N(x), rtol=1e-9, atol=1e-9)
    assert bool(constraint.check(D.transform_to(constraint)(x)).all())


def test_stick_breaking_log_det_jacobian_by_finite_differences():
    t = D.StickBreakingTransform()
    x = np.array([0.3, -1.2, 0.8])
    y = N(t(T(x)))
    assert y.shape == (4,) and abs(y.sum() - 1) < 1e-12
    h = 1e-6
    jac = np.stack([(N(t(T(x + h * e))) - N(t(T(x - h * e)))) / (2 * h) for e in np.eye(3)], -1)[:3]
    close(t.log_abs_det_jacobian(T(x), T(y)), np.log(abs(np.linalg.det(jac))), rtol=1e-6)
    lc = D.transform_to(constraints.lower_cholesky)
    m = lc(T([[0.5, 9.0], [-1.0, 0.2]]))
    close(m, [[np.exp(0.5), 0.0], [-1.0, np.exp(0.2)]])
    with pytest.raises(NotImplementedError):
        D.biject_to(constraints.boolean)


# --- as programs use them ------------------------------------------------------------------------------
def test_reinforce_and_vae_updates_reach_the_network_weights():
    import ember.nn as nn
    import ember.nn.functional as F

    torch.manual_seed(14)
    policy = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    m = D.Categorical(F.softmax(policy(torch.randn(1, 4)), dim=1))
    action = m.sample()
    assert tuple(action.shape) == (1,) and action.item() in (0, 1)
    (-m.log_prob(action) * 2.0).sum().backward()
    assert all(p.grad is not None and float(p.grad.abs().sum()) > 0 for p in policy.parameters())
    enc = nn.Linear(6, 4)
    h = enc(torch.randn(5, 6))
    mu, logvar = h[:, :2], h[:, 2:]
    q = D.Normal(mu, torch.exp(0.5 * logvar))
    z = q.rsample()
    kl = D.kl_divergence(q, D.Normal(torch.zeros_like(mu), torch.ones_like(mu))).sum(1)
    expected = -0.5 * (1 + N(logvar) - N(mu) ** 2 - np.exp(N(logvar))).sum(1)  # the VAE paper's closed form
    np.testing.assert_allclose(N(kl), expected, rtol=1e-5, atol=1e-6)
    (kl.mean() + z.pow(2).sum()).backward()
    assert float(enc.weight.grad.abs().sum()) > 0


def test_lowrank_multivariate_normal_agrees_with_its_dense_covariance():
    W, diag = np.array([[1.0, 0.2], [0.5, -0.3], [0.0, 0.8]]), np.array([0.5, 1.0, 2.0])
    loc, x = np.array([0.1, -0.2, 0.3]), np.array([1.0, 0.0, -1.0])
    cov = W @ W.T + np.diag(diag)
    d = D.LowRankMultivariateNormal(T(loc), T(W), T(diag))
    diff = x - loc
    expected = -0.5 * (3 * np.log(2 * np.pi) + np.log(np.linalg.det(cov)) + diff @ np.linalg.solve(cov, diff))
    close(d.log_prob(T(x)), expected, rtol=1e-10)
    close(d.entropy(), 0.5 * np.log(np.linalg.det(2 * np.pi * np.e * cov)), rtol=1e-10)
    close(d.precision_matrix, np.linalg.inv(cov), rtol=1e-10)
    close(d.variance, np.diag(cov))
    dense = D.MultivariateNormal(T(loc), T(cov))
    close(D.kl_divergence(d, dense), 0.0, atol=1e-10)
    torch.manual_seed(15)
    s = N(d.sample((20000,)))
    np.testing.assert_allclose(np.cov(s.T), cov, atol=0.1)


def test_pytorch_private_helpers_of_kl_transforms_and_utils():
    """The helpers PyTorch's modules name (code copied from them imports them): the low-rank log det and
    Mahalanobis form against the dense covariance, trace(X X^T), +inf, the clipped sigmoid, is_tensor_like."""
    from ember.torch.distributions import kl, transforms, utils

    rng = np.random.default_rng(0)
    W, diag, x = rng.standard_normal((2, 4, 2)), rng.random((2, 4)) + 0.5, rng.standard_normal((2, 4))
    cov = W @ W.transpose(0, 2, 1) + diag[:, :, None] * np.eye(4)
    cap = D.LowRankMultivariateNormal(T(np.zeros(4)), T(W), T(diag))._capacitance_tril
    close(kl._batch_lowrank_logdet(T(W), T(diag), cap), np.linalg.slogdet(cov)[1], rtol=1e-12)
    close(kl._batch_lowrank_mahalanobis(T(W), T(diag), T(x), cap),
          np.einsum("bi,bi->b", x, np.linalg.solve(cov, x[..., None])[..., 0]), rtol=1e-12)
    close(kl._batch_trace_XXT(T(W)), np.trace(W @ W.transpose(0, 2, 1), axis1=1, axis2=2), rtol=1e-12)
    assert np.isposinf(N(kl._infinite_like(T(x)))).all()
    tiny, eps = np.finfo(np.float32).tiny, np.finfo(np.float32).eps
    assert transforms._clipped_sigmoid(torch.tensor([-200.0, 0.0, 200.0])).tolist() == [tiny, 0.5, np.float32(1 - eps)]
    assert utils.is_tensor_like(T(x)) and not utils.is_tensor_like(3)


def test_kl_match_orders_pairs_by_subclassing_first_type_first():
    from ember.torch.distributions.kl import _Match

    assert _Match(D.Normal, D.Normal) <= _Match(D.Distribution, D.Normal) < _Match(D.Distribution, D.Distribution)
    assert not _Match(D.Distribution, D.Normal) <= _Match(D.Normal, D.Distribution)
    assert min(_Match(*m) for m in [(D.Distribution, D.Normal), (D.Normal, D.Distribution)]).types == (
        D.Normal, D.Distribution)


def test_continuous_bernoulli_density_integrates_to_one_and_kl_to_uniform():
    lam = np.array([0.1, 0.4995, 0.5, 0.8])
    d = D.ContinuousBernoulli(T(lam))
    grid = (np.arange(20000) + 0.5) / 20000
    dens = np.exp(N(d.log_prob(T(np.repeat(grid[:, None], 4, 1)))))
    np.testing.assert_allclose(dens.mean(0), 1.0, rtol=1e-6)
    np.testing.assert_allclose(N(d.mean), (dens * grid[:, None]).mean(0), rtol=1e-6)
    close(D.kl_divergence(d, D.Uniform(T(-1.0), T(2.0))), -N(d.entropy()) + np.log(3.0))
    assert np.isinf(N(D.kl_divergence(d, D.Uniform(T(0.0), T(1.0))))).all()  # PyTorch's test counts U(0, 1) as inf
    torch.manual_seed(16)
    s = N(D.ContinuousBernoulli(T(0.8)).sample((20000,)))
    assert abs(s.mean() - float(N(D.ContinuousBernoulli(T(0.8)).mean))) < 0.01


def test_bernoulli_log_prob_gradient_at_one_half_is_exact():
    p = T([0.5], requires_grad=True)
    D.Bernoulli(p).log_prob(T([1.0])).sum().backward()
    close(p.grad, [2.0])  # d/dp log p = 1/p


def test_utils_probs_logits_and_triangular_vectors():
    from ember.torch.distributions.utils import (broadcast_all, logits_to_probs, probs_to_logits, tril_matrix_to_vec,
                                                 vec_to_tril_matrix)

    p = np.array([0.1, 0.5, 0.9])
    close(probs_to_logits(T(p), is_binary=True), np.log(p / (1 - p)))
    close(logits_to_probs(probs_to_logits(T(p), is_binary=True), is_binary=True), p)
    close(logits_to_probs(T(np.log([1.0, 3.0]))), [0.25, 0.75])
    m = np.arange(18.0).reshape(2, 3, 3)
    for diag in (0, -1):
        v = tril_matrix_to_vec(T(m), diag)
        assert tuple(v.shape) == (2, 6 if diag == 0 else 3)
        close(vec_to_tril_matrix(v, diag), np.tril(m, diag))
    a, b = broadcast_all(T([1.0, 2.0]), 3.0)
    assert tuple(b.shape) == (2,) and b.dtype == torch.float64
    with pytest.raises(ValueError, match="instances of Number, torch.Tensor"):
        broadcast_all(T([1.0]), "x")


def test_kumaraswamy_and_fisher_snedecor_closed_forms():
    a, b = np.array([2.0, 3.0]), np.array([5.0, 1.5])
    k = D.Kumaraswamy(T(a), T(b))
    x = np.array([0.3, 0.8])
    close(k.log_prob(T(x)), np.log(a * b) + (a - 1) * np.log(x) + (b - 1) * np.log1p(-(x**a)), rtol=1e-9)
    grid = (np.arange(200000) + 0.5) / 200000
    dens = a * b * grid[:, None] ** (a - 1) * (1 - grid[:, None] ** a) ** (b - 1)
    np.testing.assert_allclose(N(k.mode), grid[dens.argmax(0)], atol=1e-4)
    np.testing.assert_allclose(N(k.mean), (grid[:, None] * dens).mean(0), rtol=1e-6)
    d1, d2, v = 4.0, 10.0, 1.3
    f = D.FisherSnedecor(T(d1), T(d2))
    log_beta = lg(d1 / 2) + lg(d2 / 2) - lg((d1 + d2) / 2)
    expected = (0.5 * d1 * np.log(d1 / d2) + (0.5 * d1 - 1) * np.log(v) - 0.5 * (d1 + d2) * np.log1p(d1 / d2 * v)
                - log_beta)
    close(f.log_prob(T(v)), expected)
    torch.manual_seed(17)
    s = N(f.sample((20000,)))
    assert abs(s.mean() - d2 / (d2 - 2)) < 0.05


def test_von_mises_density_normalises_and_samples_have_its_circular_moments():
    kappa = np.array([0.3, 2.0, 40.0])
    d = D.VonMises(T([0.5, -2.0, 3.0]), T(kappa))
    grid = -np.pi + (np.arange(20000) + 0.5) * (2 * np.pi / 20000)
    dens = np.exp(N(d.log_prob(T(np.repeat(grid[:, None], 3, 1)))))
    np.testing.assert_allclose(dens.sum(0) * 2 * np.pi / 20000, 1.0, rtol=1e-9)
    torch.manual_seed(18)
    s = N(d.sample((20000,)))
    assert ((s >= -np.pi) & (s < np.pi)).all()
    resultant = np.mean(np.exp(1j * (s - [0.5, -2.0, 3.0])), 0)
    np.testing.assert_allclose(np.angle(resultant), 0.0, atol=0.1)
    np.testing.assert_allclose(1 - np.abs(resultant), N(d.variance), atol=0.02)


def test_generalized_pareto_reduces_to_exponential_and_samples_by_inverse_cdf():
    d0 = D.GeneralizedPareto(T(1.0), T(2.0), T(0.0))
    close(d0.log_prob(T(3.0)), -np.log(2.0) - 1.0)  # xi = 0: Exponential(1/2) shifted by 1
    d = D.GeneralizedPareto(T(0.0), T(1.0), T(0.2))
    x = 1.5
    close(d.log_prob(T(x)), -1.2 / 0.2 * np.log1p(0.2 * x))
    close(d.cdf(d.icdf(T(0.7))), 0.7, rtol=1e-9)
    torch.manual_seed(19)
    s = N(d.sample((20000,)))
    assert abs(s.mean() - 1 / 0.8) < 5 * math.sqrt(float(N(d.variance)) / 20000)


def test_wishart_sample_mean_and_log_prob_normalisation_in_one_dimension():
    # p = 1: Wishart(df, sigma^2) is Gamma(df / 2, 1 / (2 sigma^2))
    d = D.Wishart(T(5.0), covariance_matrix=T([[2.0]]))
    g = D.Gamma(T(2.5), T(0.25))
    close(d.log_prob(T([[3.0]])), N(g.log_prob(T(3.0))), rtol=1e-10)
    close(d.entropy(), N(g.entropy()), rtol=1e-10)
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    torch.manual_seed(20)
    s = N(D.Wishart(T(6.0), covariance_matrix=T(cov)).sample((20000,)))
    np.testing.assert_allclose(s.mean(0), 6.0 * cov, rtol=0.05)
    with pytest.raises(ValueError, match="greater than ndim - 1"):
        D.Wishart(T(0.5), covariance_matrix=T(cov))


def test_lkj_cholesky_two_by_two_correlation_is_uniform_at_concentration_one():
    d = D.LKJCholesky(2, T(1.0))
    torch.manual_seed(21)
    s = N(d.sample((20000,)))
    rho = s[:, 1, 0]
    np.testing.assert_allclose(np.einsum("nij,nkj->nik", s, s)[:, [0, 1], [0, 1]], 1.0, rtol=1e-9)
    assert abs(rho.mean()) < 0.02 and abs(rho.var() - 1 / 3) < 0.01
    close(d.log_prob(T(s[:3])), np.full(3, -np.log(2.0)))  # uniform density 1/2 on (-1, 1)
    t = D.CorrCholeskyTransform()
    y = t(T([0.3, -1.0, 2.0]))
    assert tuple(y.shape) == (3, 3) and bool(constraints.corr_cholesky.check(y))


@pytest.mark.parametrize("call, message", [
    (lambda st, ct: st(torch.ones(2, 3)), "x.size(1) = 3 must equal len(transforms) 2"),
    (lambda st, ct: st(torch.ones(2)), "dim 1 out of range for tensor with 1 dimensions"),
    (lambda st, ct: st.log_abs_det_jacobian(torch.ones(2), torch.ones(2, 2)),
     "dim 1 out of range for x with 1 dimensions"),
    (lambda st, ct: st.log_abs_det_jacobian(torch.ones(2, 2), torch.ones(2, 3)),
     "y.size(1) = 3 must equal len(transforms) 2"),
    (lambda st, ct: ct.inv(torch.ones(2, 4)), "y.size(1) = 4 must equal length 3"),
    (lambda st, ct: ct.log_abs_det_jacobian(torch.ones(2), torch.ones(2, 3)),
     "dim 1 out of range for x with 1 dimensions"),
    (lambda st, ct: D.CatTransform([D.ExpTransform()], lengths=[1, 2]), "lengths (2) must match transforms (1)"),
    (lambda st, ct: D.StackTransform([D.ExpTransform(), None]), "All elements of tseq must be Transform instances"),
])
def test_stack_and_cat_transforms_refuse_as_pytorch(call, message):
    st = D.StackTransform([D.ExpTransform(), D.TanhTransform()], dim=1)
    ct = D.CatTransform([D.ExpTransform(), D.AffineTransform(0.0, 2.0)], dim=1, lengths=[1, 2])
    with pytest.raises(AssertionError) as e:
        call(st, ct)
    assert str(e.value) == message


def test_normal_sample_is_row_major_for_a_transposed_loc():
    """PyTorch's Normal.sample is torch.normal(loc.expand(shape), scale.expand(shape)): a row-major result holding
    rsample's numbers for the same seed."""
    loc = torch.zeros(3, 4).t()
    torch.manual_seed(0)
    s = D.Normal(loc, 1.0).sample()
    torch.manual_seed(0)
    r = D.Normal(loc, 1.0).rsample()
    assert s.stride() == (3, 1)
    np.testing.assert_array_equal(s.numpy(), r.numpy())


def test_transform_shapes_keep_the_container_and_independent_delegates():
    """forward_shape/inverse_shape return the container they are given (PyTorch's tuple stays a tuple), and
    IndependentTransform maps shapes through its base transform."""
    sb = D.transforms.StickBreakingTransform()
    assert sb.forward_shape((4, 6)) == (4, 7) and type(sb.forward_shape((4, 6))) is tuple
    assert type(sb.forward_shape(torch.Size([4, 6]))) is torch.Size
    assert type(D.transforms.ExpTransform().inverse_shape((2, 3))) is tuple
    assert D.transforms.IndependentTransform(sb, 1).forward_shape((4, 6)) == (4, 7)
    assert D.transforms.IndependentTransform(sb, 1).inverse_shape((4, 6)) == (4, 5)
    assert D.transforms.CorrCholeskyTransform().inverse_shape((2, 3, 3)) == (2, 3)
    with pytest.raises(ValueError, match=r"Shape mismatch: expected \(3, 3\) but got \w+.Size\(\[2, 3\]\)"):
        D.transforms.ReshapeTransform((2, 3), (6,)).forward_shape((3, 3))
    with pytest.raises(RuntimeError, match="Attempting to broadcast a dimension of length 3 at -1"):
        D.transforms.AffineTransform(torch.zeros(3), 1.0).forward_shape((4, 6))


def test_bernoulli_entropy_and_log_prob_are_binary_cross_entropy_with_logits():
    """PyTorch's Bernoulli computes both through F.binary_cross_entropy_with_logits: its grad_fn, and its
    values at the clamped ends of probs (entropy 0 at probs=0, log(1 + eps)-sized at probs=1)."""
    logits = torch.tensor([0.3, -1.2, 2.0], requires_grad=True)
    ent = D.Bernoulli(logits=logits).entropy()
    assert ent.grad_fn.name() == "BinaryCrossEntropyWithLogitsBackward0"
    p = torch.sigmoid(logits.detach()).numpy().astype(np.float64)
    np.testing.assert_allclose(ent.detach().numpy(), -(p * np.log(p) + (1 - p) * np.log1p(-p)), rtol=1e-6)
    ends = D.Bernoulli(probs=torch.tensor([0.0, 1.0]))
    assert ends.entropy().tolist() == [0.0, float(np.float32(1.192093321833454e-07))]
    assert ends.log_prob(torch.tensor([0.0, 1.0])).tolist()[0] == 0.0


def test_namespace_is_pytorchs_without_the_base_relaxed_families():
    """torch.distributions does not export LogitRelaxedBernoulli/ExpRelaxedCategorical (their modules do), and its
    __all__ lists classes and functions, not the constraints/transforms modules."""
    assert not hasattr(D, "LogitRelaxedBernoulli") and not hasattr(D, "ExpRelaxedCategorical")
    assert D.relaxed_bernoulli.LogitRelaxedBernoulli.__name__ == "LogitRelaxedBernoulli"
    assert "constraints" not in D.__all__ and "transforms" not in D.__all__
    assert {"RelaxedBernoulli", "kl_divergence", "StickBreakingTransform"} <= set(D.__all__)


def test_gamma_rsample_clamps_unrecorded_and_keeps_div_backward():
    """PyTorch clamps a gamma sample to the dtype's tiny in place on its detached data: the sample's grad_fn stays
    DivBackward0 and the gradient flows as if unclamped."""
    c = torch.tensor([1e-3, 2.5], requires_grad=True)
    torch.manual_seed(3)
    s = D.Gamma(c, torch.tensor(2.0)).rsample((6,))
    assert s.grad_fn.name() == "DivBackward0"
    assert float(s.detach().min()) >= float(np.finfo(np.float32).tiny)
    s.sum().backward()
    assert np.isfinite(c.grad.numpy()).all() and float(c.grad[1]) > 0


def test_standard_gamma_of_a_nonpositive_or_nan_concentration_is_the_smallest_normal():
    """PyTorch's sampler ends its normal-draw loop on a NaN `1 + c x` (alpha <= 0 makes c NaN) and clamps the
    NaN sample to the smallest normal; the draws it took keep the stream in step (PyTorch's stored numbers)."""
    import ember.torch as etorch

    g = etorch.Generator().manual_seed(3)
    got = etorch._standard_gamma(torch.tensor([-1.0, float("nan"), 0.0, 2.0]), generator=g)
    tiny = float(np.finfo(np.float32).tiny)
    assert got.tolist()[:3] == [tiny] * 3
    np.testing.assert_allclose(got.tolist()[3], 1.0838357210159302, rtol=1e-6)
    got = etorch._standard_gamma(torch.tensor([-1.0, float("nan"), 2.0], dtype=torch.float64), generator=g)
    assert got.tolist()[:2] == [float(np.finfo(np.float64).tiny)] * 2
    np.testing.assert_allclose(got.tolist()[2], 3.830046274424137, rtol=1e-12)


def test_sample_dirichlet_clamps_components_below_one_and_refuses_other_dtypes():
    import ember.torch as etorch

    g = etorch.Generator().manual_seed(3)
    got = etorch._sample_dirichlet(torch.tensor([[-1.0, 2.0], [1.0, 1.0]]), generator=g)
    below_one = float(np.nextafter(np.float32(1), np.float32(0)))
    assert got.tolist()[0] == [float(np.finfo(np.float32).tiny), below_one]
    np.testing.assert_allclose(got.tolist()[1], [0.4626306891441345, 0.5373693108558655], rtol=1e-6)
    assert etorch._sample_dirichlet(torch.tensor([[4.0]]), generator=g).tolist() == [[below_one]]
    with pytest.raises(NotImplementedError, match="^\"dirichlet\" not implemented for 'Half'$"):
        etorch._sample_dirichlet(torch.tensor([1.0, 2.0], dtype=torch.float16))
    with pytest.raises(NotImplementedError, match="^\"gamma_cpu\" not implemented for 'Long'$"):
        etorch._standard_gamma(torch.tensor([1, 2]))
    with pytest.raises(NotImplementedError, match="^\"gamma_cpu\" not implemented for 'BFloat16'$"):
        D.Gamma(torch.tensor([1.0], dtype=torch.bfloat16), torch.tensor([1.0], dtype=torch.bfloat16)).sample()
