"""ember.nn.init: gains, fans, distributions' bounds and moments, determinism under a generator."""

import math
import warnings

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn
from ember.nn import init


def test_calculate_gain():
    assert init.calculate_gain("linear") == 1 and init.calculate_gain("sigmoid") == 1
    assert init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert init.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert init.calculate_gain("leaky_relu") == pytest.approx(math.sqrt(2 / (1 + 0.01 ** 2)))
    assert init.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))
    assert init.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="Unsupported nonlinearity foo"):
        init.calculate_gain("foo")
    with pytest.raises(ValueError, match="negative_slope"):
        init.calculate_gain("leaky_relu", "x")


def test_fans_and_errors():
    w = torch.empty(8, 4, 3, 3)
    assert init._calculate_fan_in_and_fan_out(w) == (36, 72)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(torch.empty(5))
    with pytest.raises(ValueError, match=r"^Mode fan_avg not supported, please use one of \['fan_in', 'fan_out'\]$"):
        init.kaiming_uniform_(w, mode="fan_avg")


def test_uniform_bounds_and_moments():
    t = torch.empty(200, 300)
    a = 0.5 * math.sqrt(6 / 500)
    init.xavier_uniform_(t, gain=0.5)
    x = t.numpy()
    assert np.abs(x).max() <= a and np.abs(x).max() > 0.99 * a
    assert x.std() == pytest.approx(a / math.sqrt(3), rel=0.02)
    init.kaiming_uniform_(t, a=0, mode="fan_out", nonlinearity="relu")
    bound = math.sqrt(2) * math.sqrt(3 / 200)
    assert np.abs(t.numpy()).max() <= bound
    init.uniform_(t, -2, 3)
    assert t.numpy().min() >= -2 and t.numpy().max() <= 3 and t.numpy().mean() == pytest.approx(0.5, abs=0.02)


def test_normal_stds():
    t = torch.empty(300, 400, dtype=torch.float64)
    init.xavier_normal_(t)
    assert t.numpy().std() == pytest.approx(math.sqrt(2 / 700), rel=0.02)
    init.kaiming_normal_(t, nonlinearity="relu")
    assert t.numpy().std() == pytest.approx(math.sqrt(2 / 400), rel=0.02)
    init.normal_(t, 3.0, 0.5)
    assert t.numpy().mean() == pytest.approx(3.0, abs=0.01) and t.numpy().std() == pytest.approx(0.5, rel=0.02)


def test_trunc_normal_stays_in_bounds():
    t = torch.empty(100000, dtype=torch.float64)
    init.trunc_normal_(t, mean=1.0, std=2.0, a=0.0, b=2.5)
    x = t.numpy()
    assert x.min() >= 0.0 and x.max() <= 2.5
    from scipy import stats
    ref = stats.truncnorm((0 - 1) / 2, (2.5 - 1) / 2, loc=1, scale=2)
    assert x.mean() == pytest.approx(ref.mean(), abs=0.01) and x.std() == pytest.approx(ref.std(), rel=0.02)


def test_constant_ones_zeros_eye_dirac():
    t = torch.empty(3, 4)
    assert init.constant_(t, 2.5) is t and (t.numpy() == 2.5).all()
    assert (init.ones_(t).numpy() == 1).all() and (init.zeros_(t).numpy() == 0).all()
    np.testing.assert_array_equal(init.eye_(t).numpy(), np.eye(3, 4))
    w = init.dirac_(torch.empty(4, 2, 3, 3))
    x = torch.randn(1, 2, 5, 5)
    out = torch.conv2d(x, w, padding=1)
    np.testing.assert_allclose(out[:, :2].numpy(), x.numpy(), rtol=1e-6)
    assert out[:, 2:].abs().sum().item() == 0


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 2, 2)])
def test_orthogonal_rows_or_columns_are_orthonormal(shape):
    t = init.orthogonal_(torch.empty(*shape, dtype=torch.float64), gain=2.0)
    m = t.numpy().reshape(shape[0], -1) / 2.0
    small = m.T @ m if m.shape[0] >= m.shape[1] else m @ m.T
    np.testing.assert_allclose(small, np.eye(small.shape[0]), atol=1e-12)


def test_orthogonal_warns_nothing():
    # PyTorch warns nothing; np.diag's read-only view once reached from_numpy's "not writable" UserWarning
    torch.set_warn_always(True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            init.orthogonal_(torch.empty(2, 3))
    finally:
        torch.set_warn_always(False)


def test_orthogonal_refuses_a_complex_tensor_as_pytorch_sign():
    with pytest.raises(NotImplementedError, match="^Unlike NumPy, torch.sign is not intended to support complex "
                       "numbers. Please use torch.sgn instead.$"):
        init.orthogonal_(torch.empty(3, 3, dtype=torch.complex64))


def test_generator_makes_init_reproducible():
    g1, g2 = torch.Generator().manual_seed(7), torch.Generator().manual_seed(7)
    a = init.kaiming_uniform_(torch.empty(4, 5), generator=g1)
    b = init.kaiming_uniform_(torch.empty(4, 5), generator=g2)
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_init_does_not_record_graph_on_parameters():
    p = nn.Parameter(torch.empty(3, 3))
    init.xavier_uniform_(p)
    assert p.is_leaf and p.grad_fn is None and p.requires_grad


def test_manual_seed_makes_layers_reproducible():
    torch.manual_seed(3)
    a = nn.Linear(4, 4).weight.detach().numpy().copy()
    torch.manual_seed(3)
    b = nn.Linear(4, 4).weight.detach().numpy()
    np.testing.assert_array_equal(a, b)


def test_deprecated_aliases_warn_and_fill():
    t = torch.empty(3, 3)
    with pytest.warns(FutureWarning, match=r"nn.init.constant` is now deprecated in favor of `nn.init.constant_"):
        init.constant(t, 2.0)
    assert (t.numpy() == 2.0).all()


def test_sparse_draws_its_zeros_from_the_global_generator_as_pytorch():
    """PyTorch 2.13's sparse_ passes `generator` to normal_ only: each column's randperm uses the global generator,
    so the zero pattern follows torch.manual_seed (stored mask of PyTorch for seed 0, generator seed 1)."""
    masks = []
    for gen_seed in (1, 2):
        torch.manual_seed(0)
        w = init.sparse_(torch.empty(6, 4), 0.5, generator=torch.Generator().manual_seed(gen_seed))
        masks.append((w == 0).int().tolist())
    assert masks[0] == masks[1] == [[0, 1, 0, 1], [0, 0, 1, 1], [1, 0, 1, 1], [1, 1, 0, 0], [0, 0, 0, 0], [1, 1, 1, 0]]
    assert torch.rand(1).item() == pytest.approx(0.6816085577011108)  # four randperm(6) draws, as PyTorch's


def test_private_no_grad_fillers_are_the_public_initialisers():
    """PyTorch's `_no_grad_*` fillers (imported by code that writes its own initialisers) draw as the public ones
    and write a parameter in place without recording a graph."""
    for private, public, args in [(init._no_grad_uniform_, init.uniform_, (-1.0, 1.0)),
                                  (init._no_grad_normal_, init.normal_, (0.0, 2.0)),
                                  (init._no_grad_trunc_normal_, init.trunc_normal_, (0.0, 1.0, -1.0, 1.0))]:
        a, b = torch.empty(50), torch.empty(50)
        private(a, *args, torch.Generator().manual_seed(3))
        public(b, *args, generator=torch.Generator().manual_seed(3))
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    w = nn.Parameter(torch.ones(3))
    assert init._no_grad_fill_(w, 2.0) is w and w.grad_fn is None and w.tolist() == [2.0, 2.0, 2.0]
    assert init._no_grad_zero_(w) is w and w.tolist() == [0.0, 0.0, 0.0]
