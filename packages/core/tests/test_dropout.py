"""Dropout: kept elements scaled by 1 / (1 - p), the mask it returns, its backward, seeding,
channel dropout, and errors."""

import numpy as np
import pytest

import ember.core as E
from ember.core.ops import dropout as D


def test_native_dropout_scales_kept_elements_and_returns_the_mask():
    x = E.from_numpy(np.random.default_rng(0).standard_normal((200, 50)).astype(np.float32))
    out, mask = D.native_dropout(x, 0.3, None)
    m = mask.numpy()
    assert mask.dtype is E.bool and out.dtype is E.float32
    np.testing.assert_allclose(out.numpy(), np.where(m, x.numpy() / 0.7, 0), rtol=1e-6)
    assert abs(m.mean() - 0.7) < 0.02
    g = np.random.default_rng(1).standard_normal(x.shape).astype(np.float32)
    gi = D.native_dropout_backward(E.from_numpy(g), mask, 1 / 0.7).numpy()
    np.testing.assert_allclose(gi, g * m / 0.7, rtol=1e-6)


def test_dropout_follows_manual_seed_and_is_identity_when_not_training():
    x = E.ones(1000)
    E.manual_seed(7)
    a = E.dropout(x, 0.5).numpy()
    E.manual_seed(7)
    b = E.dropout(x, 0.5).numpy()
    np.testing.assert_array_equal(a, b)
    assert set(np.unique(a)) <= {0.0, 2.0}
    assert E.dropout(x, 0.5, training=False) is x
    assert E.dropout(x, 1.0).numpy().sum() == 0


def test_dropout_with_p_one_multiplies_by_zero_without_drawing():
    """PyTorch's p == 1 is `input * 0`: NaN and inf stay NaN, and the random stream does not move."""
    x = E.tensor([1.0, float("nan"), float("inf"), -2.0])
    for op in (lambda t: E.dropout(t, 1.0), lambda t: E.dropout1d(t.reshape(1, 4), 1.0),
               lambda t: E.dropout2d(t.reshape(1, 1, 2, 2), 1.0), lambda t: E.dropout(t.clone(), 1.0, inplace=True)):
        E.manual_seed(3)
        out = op(x).numpy().ravel()
        np.testing.assert_array_equal(out, [0.0, np.nan, np.nan, -0.0])
        after = E.rand(1).item()
        E.manual_seed(3)
        assert after == E.rand(1).item()


def test_inplace_dropout_writes_the_input():
    x = E.ones(100)
    v = x._version
    y = E.dropout(x, 0.5, inplace=True)
    assert y is x and x._version > v and set(np.unique(x.numpy())) <= {0.0, 2.0}


def test_dropout2d_zeroes_whole_channels():
    x = E.ones(8, 16, 3, 3)
    out = E.dropout2d(x, 0.5).numpy()
    per_channel = out.reshape(8, 16, -1)
    assert (per_channel.min(-1) == per_channel.max(-1)).all()
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert E.dropout1d(E.ones(4, 5, 6), 0.2).shape == (4, 5, 6)
    assert E.dropout2d(E.ones(5, 3, 3), 0.2).shape == (5, 3, 3)


def test_dropout_errors():
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        E.dropout(E.ones(3), 1.5)
    with pytest.raises(RuntimeError, match="Expected 3D or 4D input"):
        E.dropout2d(E.ones(3, 3), 0.5)


@pytest.mark.parametrize("fn", [E.dropout, E.dropout1d, E.alpha_dropout, E.feature_alpha_dropout])
def test_non_floating_inputs_pass_unless_a_mask_is_drawn_as_in_pytorch(fn):
    """Eval, p = 0 and p = 1 keep any dtype (p = 1 multiplies by a zero of the input's dtype); drawing a mask raises
    PyTorch's errors: no complex bernoulli_, no float mask into an integer."""
    ints, cplx = E.ones(1, 2, 3, dtype=E.int64), E.ones(1, 2, 3, dtype=E.complex128)
    assert fn(ints, 0.5, False) is ints and fn(cplx, 0.0, True) is cplx
    zeroed = fn(ints, 1.0, True)
    assert zeroed.dtype is E.int64 and zeroed.tolist() == [[[0, 0, 0], [0, 0, 0]]]
    assert fn(E.ones(3, 2, dtype=E.bool), 1.0, True).dtype is E.bool
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        fn(ints, 0.5, True)
    with pytest.raises(NotImplementedError, match="^\"bernoulli_scalar_cpu_\" not implemented for 'ComplexDouble'$"):
        fn(cplx, 0.5, True)


def test_dropout_of_a_transposed_input_draws_its_mask_in_memory_order():
    """PyTorch's mask is `empty_like(input).bernoulli_(1 - p)`: laid out as the input, so a transposed input's
    mask is the contiguous draw, transposed (alpha dropout alike)."""
    x = E.ones(3, 4)
    E.manual_seed(5)
    flat = E.dropout(x, 0.5).numpy()
    E.manual_seed(5)
    np.testing.assert_array_equal(E.dropout(x.t(), 0.5).numpy(), flat.T)
    E.manual_seed(5)
    alpha = E.alpha_dropout(x, 0.5, True).numpy()
    E.manual_seed(5)
    np.testing.assert_array_equal(E.alpha_dropout(x.t(), 0.5, True).numpy(), alpha.T)


@pytest.mark.parametrize("dtype", [E.float32, E.float64])
@pytest.mark.parametrize("p", [0.04, 0.15, 0.42, 0.5, 0.87])
def test_dropout_is_input_times_pytorchs_noise_from_the_same_draws(dtype, p):
    """PyTorch's CPU dropout is `x * empty_like(x).bernoulli_(1 - p).div_(1 - p)`: the noise 1 / (1 - p) is computed
    in the dtype (float32: one bit off the rounded float64 quotient for p = 0.04, 0.15, 0.42 ...), from the very
    draws of `bernoulli_`; NaN and inf inputs give NaN where dropped, as x * 0."""
    npdt = dtype.np
    x = np.random.default_rng(3).standard_normal(2000).astype(npdt)
    x[:4] = [np.nan, np.inf, -np.inf, -0.0]
    E.manual_seed(5)
    kept = E.empty(2000, dtype=dtype).bernoulli_(1 - p).numpy() == 1
    noise = np.where(kept, npdt.type(1) / npdt.type(1 - p), npdt.type(0))
    E.manual_seed(5)
    out, mask = D.native_dropout(E.from_numpy(x), p, None)
    np.testing.assert_array_equal(mask.numpy(), kept)
    np.testing.assert_array_equal(out.numpy(), x * noise)
    assert D.dropout_scale(dtype, p) == npdt.type(1) / npdt.type(1 - p)


def test_alpha_dropout_rounds_pytorchs_steps_in_the_dtype():
    """b = (noise - 1) * alpha a + alpha a p, then x * (noise a) + b, each step rounded in float32."""
    p, alpha = 0.2, np.float64(1.7580993408473766)
    a = 1.0 / np.sqrt((alpha * alpha * p + 1) * (1 - p))
    x = np.random.default_rng(4).standard_normal(500).astype(np.float32)
    E.manual_seed(2)
    noise = E.empty(500).bernoulli_(1 - p).numpy()
    f = np.float32
    b = (noise - f(1)) * f(alpha * a) + f(alpha * a * p)
    E.manual_seed(2)
    np.testing.assert_array_equal(D.alpha_dropout(E.from_numpy(x), p, True).numpy(), x * (noise * f(a)) + b)
