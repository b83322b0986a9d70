"""ember.torch.distributions against PyTorch: log_prob, entropy, mean, variance, cdf and KL for the same parameters."""

import numpy as np
import pytest

import ember.autograd as et
import ember.torch.distributions as ed

torch = pytest.importorskip("torch")
if not hasattr(torch, "_C"):  # `import torch` answered by ember.torch's import hook, not PyTorch
    pytest.skip("PyTorch itself is not importable here", allow_module_level=True)
td = torch.distributions

pytestmark = pytest.mark.torch

rng = np.random.default_rng(0)
POS = rng.uniform(0.5, 3.0, size=(2, 3))
POS2 = rng.uniform(0.5, 3.0, size=(2, 3))
REAL = rng.normal(size=(2, 3))
PROB = rng.uniform(0.1, 0.9, size=(2, 3))
SIMPLEX = rng.dirichlet(np.ones(4), size=2)
COV = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 1.5]])
LOWER = np.linalg.cholesky(np.array([[1.0, 0.2, 0.0], [0.2, 2.0, 0.4], [0.0, 0.4, 0.8]]))


def _e(a):
    return et.tensor(np.array(a), dtype=et.float64)


def _t(a):
    return torch.tensor(np.array(a), dtype=torch.float64)


def _np(x):
    return x.detach().numpy() if isinstance(x, torch.Tensor) else np.asarray(x.detach().numpy())


# name: (constructor name, kwargs as numpy arrays, values to score)
FAMILIES = {
    "Normal": ("Normal", {"loc": REAL, "scale": POS}, REAL * 2),
    "Bernoulli": ("Bernoulli", {"probs": PROB}, (PROB > 0.5).astype(float)),
    "Bernoulli_logits": ("Bernoulli", {"logits": REAL}, (REAL > 0).astype(float)),
    "Categorical": ("Categorical", {"probs": SIMPLEX}, np.array([1.0, 3.0])),
    "Categorical_logits": ("Categorical", {"logits": np.log(SIMPLEX) + 0.3}, np.array([0.0, 2.0])),
    "OneHotCategorical": ("OneHotCategorical", {"probs": SIMPLEX}, np.eye(4)[[2, 0]]),
    "Uniform": ("Uniform", {"low": -POS, "high": POS2}, REAL * 0.4),
    "Beta": ("Beta", {"concentration1": POS, "concentration0": POS2}, PROB),
    "Gamma": ("Gamma", {"concentration": POS, "rate": POS2}, POS2),
    "Dirichlet": ("Dirichlet", {"concentration": SIMPLEX * 5}, SIMPLEX[::-1]),
    "Exponential": ("Exponential", {"rate": POS}, POS2),
    "Laplace": ("Laplace", {"loc": REAL, "scale": POS}, REAL[::-1]),
    "Poisson": ("Poisson", {"rate": POS * 3}, np.floor(POS2 * 2)),
    "Binomial": ("Binomial", {"total_count": np.full((2, 3), 7.0), "probs": PROB}, np.floor(POS * 2)),
    "LogNormal": ("LogNormal", {"loc": REAL, "scale": POS}, POS2),
    "MultivariateNormal_cov": ("MultivariateNormal", {"loc": REAL, "covariance_matrix": COV}, REAL[::-1]),
    "MultivariateNormal_tril": ("MultivariateNormal", {"loc": REAL, "scale_tril": LOWER}, REAL[::-1]),
    "MultivariateNormal_prec": ("MultivariateNormal", {"loc": REAL, "precision_matrix": COV}, REAL[::-1]),
    "RelaxedOneHotCategorical": ("RelaxedOneHotCategorical", {"temperature": np.array(0.7), "probs": SIMPLEX},
                                 SIMPLEX[::-1]),
    "RelaxedBernoulli": ("RelaxedBernoulli", {"temperature": np.array(0.7), "probs": PROB}, PROB[::-1]),
    "Cauchy": ("Cauchy", {"loc": REAL, "scale": POS}, REAL[::-1]),
    "HalfNormal": ("HalfNormal", {"scale": POS}, POS2),
    "Chi2": ("Chi2", {"df": POS * 2}, POS2),
    "Geometric": ("Geometric", {"probs": PROB}, np.floor(POS * 2)),
    "Geometric_logits": ("Geometric", {"logits": REAL}, np.floor(POS2)),
    "Gumbel": ("Gumbel", {"loc": REAL, "scale": POS}, REAL[::-1]),
    "StudentT": ("StudentT", {"df": POS * 2, "loc": REAL, "scale": POS2}, REAL[::-1]),
    "HalfCauchy": ("HalfCauchy", {"scale": POS}, POS2),
    "Pareto": ("Pareto", {"scale": POS, "alpha": POS2 + 2}, POS + POS2),
    "Pareto_heavy": ("Pareto", {"scale": POS, "alpha": POS2 * 0.5}, POS + POS2),
    "Weibull": ("Weibull", {"scale": POS, "concentration": POS2}, POS2),
    "InverseGamma": ("InverseGamma", {"concentration": POS + 1, "rate": POS2}, POS2),
    "LogisticNormal": ("LogisticNormal", {"loc": REAL, "scale": POS}, SIMPLEX),
    "NegativeBinomial": ("NegativeBinomial", {"total_count": POS * 3, "probs": PROB}, np.floor(POS2 * 2)),
    "NegativeBinomial_logits": ("NegativeBinomial", {"total_count": POS * 3, "logits": REAL}, np.floor(POS2 * 2)),
    "LowRankMultivariateNormal": ("LowRankMultivariateNormal",
                                  {"loc": REAL, "cov_factor": REAL.T[None] * 0.5, "cov_diag": POS2[0]}, REAL[::-1]),
    "ContinuousBernoulli": ("ContinuousBernoulli", {"probs": np.array([[0.2, 0.4995, 0.7], [0.9, 0.5, 0.05]])},
                            PROB),
    "Bernoulli_half": ("Bernoulli", {"probs": np.array([0.5, 0.25])}, np.array([1.0, 0.0])),
    "ContinuousBernoulli_logits": ("ContinuousBernoulli", {"logits": REAL}, PROB[::-1]),
    "FisherSnedecor": ("FisherSnedecor", {"df1": POS * 3, "df2": POS2 * 4}, POS2),
    "Kumaraswamy": ("Kumaraswamy", {"concentration1": POS + 1, "concentration0": POS2 + 1}, PROB),
    "Multinomial": ("Multinomial", {"total_count": 5, "probs": SIMPLEX}, np.array([[1.0, 2, 0, 2], [0, 0, 5, 0]])),
}


def _conv(make, v):
    """A parameter for `make`'s library: Python ints (Multinomial's total_count) stay ints."""
    return v if isinstance(v, int) else make(v)


def _build(key):
    name, kwargs, value = FAMILIES[key]
    e = getattr(ed, name)(**{k: _conv(_e, v) for k, v in kwargs.items()})
    t = getattr(td, name)(**{k: _conv(_t, v) for k, v in kwargs.items()})
    return e, t, value


def _has_entropy(t) -> bool:
    try:
        t.entropy()
    except NotImplementedError:
        return False
    return True


def _same(e_fn, t_fn, rtol=1e-9, atol=1e-10):
    try:
        expected = t_fn()
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            e_fn()
        return
    np.testing.assert_allclose(_np(e_fn()), _np(expected), rtol=rtol, atol=atol)


@pytest.mark.parametrize("key", sorted(FAMILIES))
def test_family_matches_pytorch(key):
    e, t, value = _build(key)
    assert tuple(e.batch_shape) == tuple(t.batch_shape) and tuple(e.event_shape) == tuple(t.event_shape)
    assert e.has_rsample == t.has_rsample and e.has_enumerate_support == t.has_enumerate_support
    _same(lambda: e.log_prob(_e(value)), lambda: t.log_prob(_t(value)))
    if not key.startswith("Relaxed"):
        # PyTorch's Multinomial entropy takes lgamma(n + 1) of an integer tensor, in float32
        _same(e.entropy, t.entropy, rtol=1e-7 if key == "Multinomial" else 1e-9)
        for prop in ("mean", "variance", "stddev", "mode"):
            if (key, prop) == ("Kumaraswamy", "mode"):
                continue  # PyTorch's is nan for every concentration > 1; ours is checked on a grid elsewhere
            _same(lambda: getattr(e, prop), lambda: getattr(t, prop))
    for method in ("cdf", "icdf"):
        arg = PROB if method == "icdf" else value
        if type(t).__dict__.get(method) or (key == "LogNormal"):
            _same(lambda: getattr(e, method)(_e(arg)), lambda: getattr(t, method)(_t(arg)), rtol=1e-8)
    if t.has_enumerate_support:
        _same(lambda: e.enumerate_support(), lambda: t.enumerate_support())
    big = e.expand((4,) + tuple(e.batch_shape))
    assert tuple(big.batch_shape) == (4,) + tuple(t.batch_shape)
    assert tuple(big.sample().shape) == tuple(t.expand((4,) + tuple(t.batch_shape)).sample().shape)


KL_PAIRS = [
    ("Normal", "Normal"), ("Bernoulli", "Bernoulli"), ("Categorical", "Categorical"),
    ("OneHotCategorical", "OneHotCategorical"), ("Beta", "Beta"), ("Gamma", "Gamma"), ("Dirichlet", "Dirichlet"),
    ("Exponential", "Exponential"), ("Laplace", "Laplace"), ("MultivariateNormal_cov", "MultivariateNormal_tril"),
    ("Poisson", "Poisson"), ("Binomial", "Binomial"), ("LogNormal", "LogNormal"), ("Uniform", "Uniform"),
    ("Bernoulli", "Poisson"), ("Beta", "Exponential"), ("Beta", "Gamma"), ("Beta", "Normal"),
    ("Exponential", "Gamma"), ("Exponential", "Normal"), ("Gamma", "Exponential"), ("Gamma", "Normal"),
    ("Laplace", "Normal"), ("Normal", "Laplace"), ("Normal", "Gamma"), ("Laplace", "Exponential"),
    ("Poisson", "Bernoulli"), ("Gamma", "Uniform"), ("Cauchy", "Cauchy"), ("Geometric", "Geometric_logits"),
    ("Gumbel", "Gumbel"), ("HalfNormal", "HalfNormal"), ("Exponential", "Gumbel"), ("Gamma", "Gumbel"),
    ("Normal", "Gumbel"), ("Gumbel", "Normal"), ("Gumbel", "Exponential"), ("Chi2", "Chi2"), ("Chi2", "Exponential"),
    ("Pareto", "Pareto_heavy"), ("Pareto_heavy", "Pareto"), ("Pareto", "Exponential"), ("Pareto", "Gamma"),
    ("Pareto", "Normal"), ("Pareto_heavy", "Normal"), ("Pareto_heavy", "Exponential"), ("Normal", "Pareto"),
    ("Pareto", "Uniform"), ("InverseGamma", "InverseGamma"),
    ("LowRankMultivariateNormal", "LowRankMultivariateNormal"), ("LowRankMultivariateNormal", "MultivariateNormal_cov"),
    ("MultivariateNormal_tril", "LowRankMultivariateNormal"),
    ("ContinuousBernoulli", "ContinuousBernoulli_logits"), ("Beta", "ContinuousBernoulli"),
    ("ContinuousBernoulli", "Exponential"), ("ContinuousBernoulli", "Normal"), ("Normal", "ContinuousBernoulli"),
    ("ContinuousBernoulli", "Pareto"),
]


@pytest.mark.parametrize(("kp", "kq"), KL_PAIRS)
def test_kl_matches_pytorch(kp, kq):
    ep, tp, _ = _build(kp)
    eq, tq, _ = _build(kq)
    _same(lambda: ed.kl_divergence(ep, eq), lambda: td.kl_divergence(tp, tq), rtol=1e-8)


@pytest.mark.parametrize("q", ["Beta", "Exponential", "Gamma", "Normal", "Gumbel", "Pareto", "ContinuousBernoulli"])
def test_kl_uniform_to_matches_pytorch(q):
    low, high = np.array([0.1, 0.2, 0.05]), np.array([0.7, 0.9, 0.3])
    ep, tp = ed.Uniform(_e(low), _e(high)), td.Uniform(_t(low), _t(high))
    _, kwargs, _ = FAMILIES[q]
    eq = getattr(ed, q)(**{k: _e(v[0]) for k, v in kwargs.items()})
    tq = getattr(td, q)(**{k: _t(v[0]) for k, v in kwargs.items()})
    _same(lambda: ed.kl_divergence(ep, eq), lambda: td.kl_divergence(tp, tq), rtol=1e-8)


@pytest.mark.parametrize("p", ["Beta", "ContinuousBernoulli"])
def test_kl_to_uniform_matches_pytorch(p):
    _, kwargs, _ = FAMILIES[p]
    # PyTorch's ContinuousBernoulli-Uniform pair calls U(0, 1) itself an infinite divergence (it tests
    # q.low >= 0 instead of q.low > 0); ours follows it
    low, high = np.array([-0.5, 0.0, 0.2]), np.array([1.5, 1.0, 1.0])
    e = ed.kl_divergence(getattr(ed, p)(**{k: _e(v[0]) for k, v in kwargs.items()}), ed.Uniform(_e(low), _e(high)))
    t = td.kl_divergence(getattr(td, p)(**{k: _t(v[0]) for k, v in kwargs.items()}), td.Uniform(_t(low), _t(high)))
    np.testing.assert_allclose(_np(e), _np(t), rtol=1e-9)


def test_kl_uniform_to_continuous_bernoulli_on_the_unit_interval_is_infinite_as_in_pytorch():
    low, high = np.array([0.0, 0.1, 0.2]), np.array([1.0, 1.0, 0.9])
    probs = np.array([0.3, 0.6, 0.8])
    e = ed.kl_divergence(ed.Uniform(_e(low), _e(high)), ed.ContinuousBernoulli(_e(probs)))
    t = td.kl_divergence(td.Uniform(_t(low), _t(high)), td.ContinuousBernoulli(_t(probs)))
    assert np.isinf(_np(e)[:2]).all()
    np.testing.assert_allclose(_np(e), _np(t), rtol=1e-9)


def test_sigmoid_transform_clamps_to_pytorchs_tiny_and_eps_bounds():
    for dtype, tdtype in ((et.float32, torch.float32), (et.float64, torch.float64)):
        x, y = [-200.0, -100.0, 0.0, 100.0], [0.0, 1e-40, 0.5, 1.0]
        e, t = ed.SigmoidTransform(), td.SigmoidTransform()
        np.testing.assert_allclose(_np(e(et.tensor(x, dtype=dtype))), t(torch.tensor(x, dtype=tdtype)).numpy(),
                                   rtol=1e-6)
        np.testing.assert_allclose(_np(e.inv(et.tensor(y, dtype=dtype))), t.inv(torch.tensor(y, dtype=tdtype)).numpy(),
                                   rtol=1e-6)


def test_vec_to_tril_matrix_errors_match_pytorch():
    from ember.torch.distributions.utils import vec_to_tril_matrix
    from torch.distributions.utils import vec_to_tril_matrix as torch_vec_to_tril_matrix

    for m in (4, 5):
        with pytest.raises((ValueError, RuntimeError)) as want:
            torch_vec_to_tril_matrix(torch.ones(m))
        with pytest.raises(want.type) as got:
            vec_to_tril_matrix(et.ones(m))
        assert str(got.value) == str(want.value)


def test_sample_n_and_broadcast_all_messages_match_pytorch():
    with pytest.warns(FutureWarning, match=r"^`sample_n\(n\)` will be deprecated. Use `sample\(\(n,\)\)` instead.$"):
        assert ed.Normal(0.0, 1.0).sample_n(3).shape == (3,)
    with pytest.raises(ValueError) as want:
        td.utils.broadcast_all(torch.ones(2), "a")
    with pytest.raises(ValueError) as got:
        ed.utils.broadcast_all(et.ones(2), "a")
    assert str(got.value) == str(want.value)


def test_independent_normal_matches_pytorch():
    e = ed.Independent(ed.Normal(_e(REAL), _e(POS)), 1)
    t = td.Independent(td.Normal(_t(REAL), _t(POS)), 1)
    _same(lambda: e.log_prob(_e(REAL[::-1])), lambda: t.log_prob(_t(REAL[::-1])))
    _same(e.entropy, t.entropy)
    q_e, q_t = ed.Independent(ed.Normal(_e(REAL[::-1]), _e(POS2)), 1), td.Independent(
        td.Normal(_t(REAL[::-1]), _t(POS2)), 1)
    _same(lambda: ed.kl_divergence(e, q_e), lambda: td.kl_divergence(t, q_t))


def test_transforms_match_pytorch():
    x = REAL
    pairs = [(ed.ExpTransform(), td.ExpTransform()), (ed.SigmoidTransform(), td.SigmoidTransform()),
             (ed.TanhTransform(), td.TanhTransform()), (ed.AffineTransform(1.5, -2.0), td.AffineTransform(1.5, -2.0)),
             (ed.SoftplusTransform(), td.SoftplusTransform()),
             (ed.ComposeTransform([ed.AffineTransform(0.5, 3.0), ed.TanhTransform()]),
              td.ComposeTransform([td.AffineTransform(0.5, 3.0), td.TanhTransform()]))]
    for e, t in pairs:
        ey, ty = e(_e(x)), t(_t(x))
        np.testing.assert_allclose(_np(ey), _np(ty), rtol=1e-12)
        np.testing.assert_allclose(_np(e.inv(ey)), _np(t.inv(ty)), rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(_np(e.log_abs_det_jacobian(_e(x), ey)), _np(t.log_abs_det_jacobian(_t(x), ty)),
                                   rtol=1e-9, atol=1e-12)


def test_constraint_reprs_match_pytorch():
    for name in ("real", "positive", "unit_interval", "simplex", "boolean", "nonnegative_integer", "lower_cholesky",
                 "positive_definite", "real_vector", "nonnegative"):
        assert repr(getattr(ed.constraints, name)) == repr(getattr(td.constraints, name)), name
    assert repr(ed.constraints.interval(0.0, 2.0)) == repr(td.constraints.interval(0.0, 2.0))
    assert repr(ed.constraints.integer_interval(0, 4)) == repr(td.constraints.integer_interval(0, 4))


@pytest.mark.parametrize(("name", "args"), [
    ("Normal", ([0.0, 1.0, 2.0], [1.0, -1.0, 1.0])), ("Uniform", (1.0, 0.0)), ("Gamma", (2.0, -1.0)),
    ("Categorical", ([[-0.5, 1.5]],)), ("Exponential", ([1.0, -2.0],))])
def test_validation_message_matches_pytorch_apart_from_the_module_name(name, args):
    with pytest.raises(ValueError) as e_err:
        getattr(ed, name)(*[_e(a) for a in args])
    with pytest.raises(ValueError) as t_err:
        getattr(td, name)(*[_t(a) for a in args])
    expected = str(t_err.value).replace("torch.Size", "ember.Size").replace(", dtype=torch.float64", "")
    assert str(e_err.value).replace(", dtype=ember.float64", "") == expected


def test_support_message_matches_pytorch():
    with pytest.raises(ValueError) as e_err:
        ed.Exponential(_e(2.0)).log_prob(_e(-1.0))
    with pytest.raises(ValueError) as t_err:
        td.Exponential(_t(2.0)).log_prob(_t(-1.0))
    assert str(e_err.value) == str(t_err.value)


@pytest.mark.parametrize("key", sorted(FAMILIES))
def test_family_with_unbatched_parameters_has_pytorch_shapes(key):
    name, kwargs, value = FAMILIES[key]
    event_ndim = {"covariance_matrix": 2, "scale_tril": 2, "precision_matrix": 2, "cov_factor": 2, "cov_diag": 1}
    while True:
        t = getattr(td, name)(**{k: _conv(_t, v) for k, v in kwargs.items()})
        if not tuple(t.batch_shape):
            break
        kwargs = {k: v[0] if np.ndim(v) > event_ndim.get(k, 0) else v for k, v in kwargs.items()}
        value = value[0]
    e = getattr(ed, name)(**{k: _conv(_e, v) for k, v in kwargs.items()})
    assert tuple(e.log_prob(_e(value)).shape) == tuple(t.log_prob(_t(value)).shape)
    assert tuple(e.sample((5,)).shape) == tuple(t.sample((5,)).shape)
    if not key.startswith("Relaxed") and _has_entropy(t):
        assert tuple(e.entropy().shape) == tuple(t.entropy().shape)
        assert tuple(e.mean.shape) == tuple(t.mean.shape)
        assert tuple(e.variance.shape) == tuple(t.variance.shape)


@pytest.mark.parametrize("key", sorted(FAMILIES))
def test_log_prob_and_entropy_gradients_match_pytorch(key):
    name, kwargs, value = FAMILIES[key]
    grads = {}
    for lib, make in (("e", _e), ("t", _t)):
        params = {k: _conv(make, v) for k, v in kwargs.items()}
        for k, p in params.items():
            if k != "total_count":
                p.requires_grad_()
        d = getattr(ed if lib == "e" else td, name)(**params)
        loss = d.log_prob(make(value)).sum()
        if not key.startswith("Relaxed") and _has_entropy(d):
            loss = loss + d.entropy().sum()
        loss.backward()
        grads[lib] = {k: _np(p.grad) for k, p in params.items() if getattr(p, "grad", None) is not None}
    assert grads["e"].keys() == grads["t"].keys()
    for k in grads["t"]:
        np.testing.assert_allclose(grads["e"][k], grads["t"][k], rtol=1e-7, atol=1e-9, err_msg=k)


INFINITE_KL = {("Normal", "Gamma"), ("Laplace", "Exponential"), ("Poisson", "Bernoulli"), ("Gamma", "Uniform"),
               ("Gumbel", "Exponential"), ("Pareto_heavy", "Normal"), ("Pareto_heavy", "Exponential"),
               ("Normal", "Pareto"), ("Pareto", "Uniform"), ("Normal", "ContinuousBernoulli"),
               ("ContinuousBernoulli", "Pareto")}


@pytest.mark.parametrize(("kp", "kq"), [pair for pair in KL_PAIRS if pair not in INFINITE_KL])
def test_kl_gradients_match_pytorch(kp, kq):
    grads = {}
    for lib, make in (("e", _e), ("t", _t)):
        dists, params = [], []
        for key in (kp, kq):
            name, kwargs, _ = FAMILIES[key]
            ps = {k: _conv(make, v) for k, v in kwargs.items()}
            for k, p in ps.items():
                if k != "total_count":
                    p.requires_grad_()
                    params.append(p)
            dists.append(getattr(ed if lib == "e" else td, name)(**ps))
        kl = (ed if lib == "e" else td).kl_divergence(*dists)
        kl.sum().backward()
        grads[lib] = [None if p.grad is None else _np(p.grad) for p in params]
    for ge, gt in zip(grads["e"], grads["t"]):
        if gt is None or ge is None:
            assert ge is None or not np.any(ge), (ge, gt)
            continue
        np.testing.assert_allclose(ge, gt, rtol=1e-7, atol=1e-9)


def test_mixture_same_family_matches_pytorch():
    w, locs, scales = SIMPLEX[:, :3] / SIMPLEX[:, :3].sum(-1, keepdims=True), REAL, POS
    x = np.array([[0.3], [-1.0], [2.0]])  # (S, 1) against batch (2,)
    for lib, mod, make in (("e", ed, _e), ("t", td, _t)):
        m = mod.MixtureSameFamily(mod.Categorical(make(w)), mod.Normal(make(locs), make(scales)))
        mv = mod.MixtureSameFamily(mod.Categorical(make(w)),
                                   mod.Independent(mod.Normal(make(np.stack([locs, -locs], -1)),
                                                              make(np.stack([scales, scales], -1))), 1))
        out = [m.log_prob(make(x)), m.mean, m.variance, m.cdf(make(x)), mv.log_prob(make(np.array([0.2, -0.3]))),
               mv.mean, mv.variance]
        if lib == "e":
            ours = out
            assert tuple(m.sample((4,)).shape) == (4, 2) and tuple(mv.sample((5,)).shape) == (5, 2, 2)
        else:
            for a, b in zip(ours, out):
                np.testing.assert_allclose(_np(a), _np(b), rtol=1e-10)


def test_stick_breaking_and_softmax_transforms_match_pytorch():
    x = REAL
    for e, t in ((ed.StickBreakingTransform(), td.StickBreakingTransform()),
                 (ed.SoftmaxTransform(), td.SoftmaxTransform())):
        ey, ty = e(_e(x)), t(_t(x))
        np.testing.assert_allclose(_np(ey), _np(ty), rtol=1e-12)
        np.testing.assert_allclose(_np(e.inv(ey)), _np(t.inv(ty)), rtol=1e-9, atol=1e-12)
        if e.bijective:
            np.testing.assert_allclose(_np(e.log_abs_det_jacobian(_e(x), ey)),
                                       _np(t.log_abs_det_jacobian(_t(x), ty)), rtol=1e-10)


@pytest.mark.parametrize("key", ["Normal", "Exponential", "Gamma", "Bernoulli", "Poisson", "Dirichlet", "Beta",
                                 "ContinuousBernoulli"])
def test_exponential_family_bregman_entropy_and_kl_match_pytorch(key):
    e, t, _ = _build(key)
    _same(lambda: ed.ExponentialFamily.entropy(e), lambda: td.ExponentialFamily.entropy(t), rtol=1e-8)
    kl_e = ed.kl.__dict__["_kl_expfamily_expfamily"]
    kl_t = td.kl.__dict__["_kl_expfamily_expfamily"]
    _same(lambda: kl_e(e, e.expand(e.batch_shape)), lambda: kl_t(t, t.expand(t.batch_shape)), atol=1e-9)


def test_von_mises_matches_pytorch_to_its_bessel_approximation():
    loc, kappa, x = REAL, np.array([[0.01, 0.5, 2.0], [10.0, 150.0, 800.0]]), REAL[::-1]
    for attr in ("log_prob", "variance", "mean"):
        out = []
        for mod, make in ((ed, _e), (td, _t)):
            kp = make(kappa).requires_grad_()
            d = mod.VonMises(make(loc), kp)
            v = d.log_prob(make(x)) if attr == "log_prob" else getattr(d, attr)
            if attr != "mean":
                v.sum().backward()
            out.append((_np(v), None if kp.grad is None else _np(kp.grad)))
        # PyTorch evaluates log I0 and log I1 by polynomial fits good to about 1e-7 relative, which
        # 1 - exp(log I1 - log I0) turns into ~1e-6 absolute at large concentration (ours is exact:
        # at 150 it is 1/300 + 1/180000 + ... = 0.0033389, PyTorch gives 0.0033380)
        np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-6, atol=2e-6)
        if out[1][1] is not None:
            np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-5, atol=2e-6)


def test_generalized_pareto_matches_pytorch_in_float32():
    # PyTorch 2.13's GeneralizedPareto fails on float64 parameters (isclose against a float32 zero)
    xi = np.array([[0.3, -0.2, 0.0], [0.1, 0.45, 1.2]])
    value = REAL + 0.5 * POS
    ds = [mod.GeneralizedPareto(*[make(a) for a in (REAL, POS, xi)])
          for mod, make in ((ed, lambda a: et.tensor(np.array(a), dtype=et.float32)),
                            (td, lambda a: torch.tensor(np.array(a), dtype=torch.float32)))]
    vals = [et.tensor(np.array(value), dtype=et.float32), torch.tensor(np.array(value), dtype=torch.float32)]
    for fn in (lambda d, v: d.log_prob(v), lambda d, v: d.cdf(v), lambda d, v: d.icdf(v * 0 + 0.3),
               lambda d, v: d.mean, lambda d, v: d.variance, lambda d, v: d.entropy()):
        np.testing.assert_allclose(_np(fn(ds[0], vals[0])), _np(fn(ds[1], vals[1])), rtol=2e-5, atol=1e-6)


def test_matrix_reshape_stack_and_cdf_transforms_match_pytorch():
    m = np.array([[[0.5, 2.0], [-1.0, 0.2]], [[0.1, 0.0], [0.3, -0.4]]])
    x = REAL
    pairs = [
        (ed.PositiveDefiniteTransform(), td.PositiveDefiniteTransform(), m, False),
        (ed.ReshapeTransform((3,), (3, 1)), td.ReshapeTransform((3,), (3, 1)), x, True),
        (ed.StackTransform([ed.ExpTransform(), ed.AffineTransform(1.0, 2.0)], dim=0),
         td.StackTransform([td.ExpTransform(), td.AffineTransform(1.0, 2.0)], dim=0), x[:, 0], True),
        (ed.CatTransform([ed.ExpTransform(), ed.AffineTransform(1.0, 2.0)], dim=1, lengths=[1, 2]),
         td.CatTransform([td.ExpTransform(), td.AffineTransform(1.0, 2.0)], dim=1, lengths=[1, 2]), x, True),
        (ed.CatTransform([ed.IndependentTransform(ed.ExpTransform(), 1),
                          ed.IndependentTransform(ed.AffineTransform(1.0, 2.0), 1)], dim=0),
         td.CatTransform([td.IndependentTransform(td.ExpTransform(), 1),
                          td.IndependentTransform(td.AffineTransform(1.0, 2.0), 1)], dim=0), x, True),
        (ed.CumulativeDistributionTransform(ed.Normal(_e(0.5), _e(2.0))),
         td.CumulativeDistributionTransform(td.Normal(_t(0.5), _t(2.0))), x, True),
    ]
    for e, t, a, ladj in pairs:
        ey, ty = e(_e(a)), t(_t(a))
        np.testing.assert_allclose(_np(ey), _np(ty), rtol=1e-12)
        np.testing.assert_allclose(_np(e.inv(ey)), _np(t.inv(ty)), rtol=1e-9, atol=1e-12)
        if ladj:
            np.testing.assert_allclose(_np(e.log_abs_det_jacobian(_e(a), ey)), _np(t.log_abs_det_jacobian(_t(a), ty)),
                                       rtol=1e-12)
    assert tuple(ed.ReshapeTransform((3,), (3, 1)).forward_shape((2, 3))) == (2, 3, 1)
    y = ed.transform_to(ed.constraints.positive_definite)(_e(m))
    assert bool(ed.constraints.positive_definite.check(y).all())


@pytest.mark.parametrize("param", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_wishart_matches_pytorch(param):
    scale = {"covariance_matrix": COV, "precision_matrix": COV, "scale_tril": LOWER}[param]
    df = np.array([4.5, 7.0])
    x = np.stack([COV * 3, np.linalg.inv(COV) * 5])
    out = []
    for mod, make in ((ed, _e), (td, _t)):
        dfp, sp = make(df).requires_grad_(), make(scale).requires_grad_()
        d = mod.Wishart(dfp, **{param: sp})
        vals = [d.log_prob(make(x)), d.entropy(), d.mean, d.variance, d.mode]
        (vals[0].sum() + vals[1].sum()).backward()
        out.append([_np(v) for v in vals] + [_np(dfp.grad), _np(sp.grad)])
        if mod is ed:  # (PyTorch's rsample warns "Singular sample detected" on regular samples)
            sample = d.rsample((3,))
            assert tuple(sample.shape) == (3, 2, 3, 3) and bool(d.support.check(sample).all())
    if param == "scale_tril":  # PyTorch's cholesky_solve also sends gradient to the unused upper triangle
        out[1][-1] = np.tril(out[1][-1])
    for a, b in zip(*out):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)


def test_lkj_cholesky_and_corr_cholesky_transform_match_pytorch():
    conc = np.array([0.5, 2.0])
    e, t = ed.LKJCholesky(3, _e(conc)), td.LKJCholesky(3, _t(conc))
    sample = e.sample((4,))
    assert tuple(sample.shape) == (4, 2, 3, 3) and bool(e.support.check(sample).all())
    np.testing.assert_allclose(_np(e.log_prob(sample)), _np(t.log_prob(_t(_np(sample)))), rtol=1e-9)
    x = REAL  # 3 = 3 * 2 / 2 free values per matrix
    ct_e, ct_t = ed.CorrCholeskyTransform(), td.CorrCholeskyTransform()
    ye, yt = ct_e(_e(x)), ct_t(_t(x))
    np.testing.assert_allclose(_np(ye), _np(yt), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(_np(ct_e.inv(ye)), x, rtol=1e-9)
    np.testing.assert_allclose(_np(ct_e.log_abs_det_jacobian(_e(x), ye)), _np(ct_t.log_abs_det_jacobian(_t(x), yt)),
                               rtol=1e-10)
    assert type(ed.biject_to(ed.constraints.corr_cholesky)).__name__ == "CorrCholeskyTransform"


def test_mixture_support_constraint_matches_pytorch():
    low, high = np.array([0.0, 1.0]), np.array([2.0, 3.0])
    v = np.array([[0.5], [1.5], [2.5]])
    out = []
    for mod, make in ((ed, _e), (td, _t)):
        m = mod.MixtureSameFamily(mod.Categorical(make([0.5, 0.5])), mod.Uniform(make(low), make(high)))
        out.append((repr(m.support).replace("torch.", "ember."), _np(m.support.check(make(v))).tolist()))
    assert out[0] == out[1]


def test_reprs_of_distributions_holding_their_parameters_elsewhere_match_pytorch():
    # PyTorch's repr lists the arg_constraints found in the instance's __dict__: none for these
    from ember.torch.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
    from ember.torch.distributions.relaxed_categorical import ExpRelaxedCategorical
    from torch.distributions.relaxed_bernoulli import LogitRelaxedBernoulli as TLogit
    from torch.distributions.relaxed_categorical import ExpRelaxedCategorical as TExp

    p = [0.2, 0.8]
    for make in (lambda d, t: d.OneHotCategorical(probs=t.tensor(p)),
                 lambda d, t: d.OneHotCategorical(logits=t.tensor(p)),
                 lambda d, t: d.OneHotCategoricalStraightThrough(probs=t.tensor(p)),
                 lambda d, t: d.RelaxedOneHotCategorical(t.tensor(0.5), probs=t.tensor(p)),
                 lambda d, t: d.RelaxedBernoulli(t.tensor(0.5), probs=t.tensor(p))):
        assert repr(make(ed, et)) == repr(make(td, torch))
    assert repr(ExpRelaxedCategorical(et.tensor(0.5), probs=et.tensor(p))) == repr(TExp(torch.tensor(0.5),
                                                                                        probs=torch.tensor(p)))
    assert repr(LogitRelaxedBernoulli(et.tensor(0.5), probs=et.tensor(0.2))) == repr(TLogit(torch.tensor(0.5),
                                                                                         probs=torch.tensor(0.2)))


@pytest.mark.parametrize("name", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_multivariate_normal_one_dimensional_matrix_message_matches_pytorch(name):
    with pytest.raises(ValueError) as want:
        td.MultivariateNormal(torch.zeros(2), **{name: torch.ones(2)})
    with pytest.raises(ValueError) as got:
        ed.MultivariateNormal(et.zeros(2), **{name: et.ones(2)})
    assert str(got.value) == str(want.value)


def test_geometric_zero_probability_message_matches_pytorch():
    with pytest.raises(ValueError) as want:
        td.Geometric(torch.tensor([0.5, 0.0]))
    with pytest.raises(ValueError) as got:
        ed.Geometric(et.tensor([0.5, 0.0]))
    # ember.Size prints as torch.Size only under the finder
    assert str(got.value).replace("ember.Size", "torch.Size") == str(want.value)
    assert "to be positive but found invalid values:\ntensor([0.])" in str(got.value)


@pytest.mark.parametrize("batch", [(), (2,)])
def test_seeded_wishart_samples_are_pytorchs(batch):
    """Bartlett's p (p - 1) / 2 normals in tril_indices order, and PyTorch 2.13's correction loop (a valid first
    draw is flagged, warned about and redrawn once): the same seed gives PyTorch's matrices and warning."""
    cov = np.broadcast_to(COV, batch + COV.shape).copy()
    torch.manual_seed(4)
    with pytest.warns(UserWarning, match="Singular sample detected."):
        want = td.Wishart(torch.tensor(5.0, dtype=torch.float64), covariance_matrix=torch.tensor(cov)).sample((3,))
    et.manual_seed(4)
    with pytest.warns(UserWarning, match="Singular sample detected."):
        got = ed.Wishart(_e(5.0), covariance_matrix=_e(cov)).sample((3,))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def test_standard_gamma_and_sample_dirichlet_are_pytorchs_with_a_generator():
    """`torch._standard_gamma` and `torch._sample_dirichlet` (the draws behind Gamma and Dirichlet) exist and
    draw PyTorch's numbers from the global stream or a given generator."""
    import ember.torch as etorch

    conc = [[0.5, 1.0, 4.0], [2.0, 0.2, 9.0]]
    tg, eg = torch.Generator().manual_seed(6), etorch.Generator().manual_seed(6)
    for dt_t, dt_e in ((torch.float32, et.float32), (torch.float64, et.float64)):
        want = torch._standard_gamma(torch.tensor(conc, dtype=dt_t), generator=tg)
        got = etorch._standard_gamma(et.tensor(conc, dtype=dt_e), generator=eg)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
        want = torch._sample_dirichlet(torch.tensor(conc, dtype=dt_t), generator=tg)
        got = etorch._sample_dirichlet(et.tensor(conc, dtype=dt_e), generator=eg)
        assert got.dtype == dt_e
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_standard_gamma_grad_is_pytorchs_approximation_everywhere():
    """`torch._standard_gamma_grad` (Gamma.rsample's backward): PyTorch's truncated series below 0.8, its
    saddle-point expansion for concentrations above 8 and its fitted rational function elsewhere, to rounding."""
    import ember.torch as etorch

    torch.manual_seed(0)
    for dt_t, dt_e, tol in ((torch.float64, et.float64, 1e-11), (torch.float32, et.float32, 3e-7)):
        a = torch.empty(3000, dtype=dt_t).uniform_(0.02, 12.0)
        x = torch._standard_gamma(a)
        want = torch._standard_gamma_grad(a, x).numpy()
        got = etorch._standard_gamma_grad(et.tensor(a.numpy()), et.tensor(x.numpy()))
        assert got.dtype == dt_e
        small, large = x.numpy() < 0.8, a.numpy() > 8
        assert 200 < small.sum() < 2800 and 200 < (large & ~small).sum()
        np.testing.assert_allclose(got.numpy(), want, rtol=tol)


def test_dirichlet_and_beta_rsample_gradients_are_pytorchs():
    """Dirichlet/Beta.rsample differentiate the concentrations as PyTorch's `_Dirichlet` (node `_DirichletBackward`,
    `torch._dirichlet_grad`): the same samples get the same gradients, to PyTorch's approximations' error."""
    import ember.torch as etorch

    a_t = torch.tensor([2.0, 3.0], requires_grad=True)
    torch.manual_seed(0)
    td.Beta(a_t, torch.tensor([1.0, 2.0])).rsample().sum().backward()
    a_e = et.tensor([2.0, 3.0], requires_grad=True)
    etorch.manual_seed(0)
    ed.Beta(a_e, et.tensor([1.0, 2.0])).rsample().sum().backward()
    np.testing.assert_allclose(a_e.grad.numpy(), a_t.grad.numpy(), rtol=1e-6)  # was 0.0289, 0.1004: another estimator
    etorch.manual_seed(0)
    assert type(ed.Dirichlet(a_e).rsample().grad_fn).__name__ == "_DirichletBackward"
    torch.manual_seed(1)
    for dt_t, high, tol in ((torch.float64, 1.0, 1e-10), (torch.float32, 1.0, 1e-4), (torch.float64, 8.0, 1e-10),
                            (torch.float64, 30.0, 1e-10)):
        conc = torch.empty(2000, 3, dtype=dt_t).uniform_(0.05, high)
        x = torch._sample_dirichlet(conc)
        total = conc.sum(-1, True).expand_as(conc)
        want = torch._dirichlet_grad(x, conc, total).numpy()
        got = etorch._dirichlet_grad(*(et.tensor(t.numpy()) for t in (x, conc, total))).numpy()
        # each of PyTorch's branches (series near 0 and 1, saddle point, rational fit); float32 rounds in float
        np.testing.assert_allclose(got, want, rtol=tol)
