"""`torch.nn.attention.bias`: causal masks given to scaled_dot_product_attention, against a float64 softmax with
the mask written out; PyTorch's errors and warning."""

import warnings

import numpy as np
import pytest

import ember.autograd as ea
import ember.nn.functional as F
from ember.nn.attention.bias import CausalBias, CausalVariant, causal_lower_right, causal_upper_left


def _reference(q, k, v, allowed):
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    s = np.where(allowed, s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


@pytest.fixture
def qkv():
    rng = np.random.default_rng(0)
    return [rng.standard_normal(s) for s in ((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4))]


def test_lower_right_aligns_the_diagonal_to_the_last_key(qkv):
    q, k, v = (ea.tensor(a, dtype=ea.float32) for a in qkv)
    bias = causal_lower_right(3, 5)
    assert bias.variant == CausalVariant.LOWER_RIGHT and (bias.seq_len_q, bias.seq_len_kv) == (3, 5)
    allowed = np.tril(np.ones((3, 5), bool), 2)
    np.testing.assert_array_equal(bias._materialize().numpy(), allowed)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
    np.testing.assert_allclose(out.numpy(), _reference(*qkv, allowed), rtol=1e-5, atol=1e-6)


def test_upper_left_is_is_causal_and_gradients_flow(qkv):
    q, k, v = (ea.tensor(a, dtype=ea.float64, requires_grad=True) for a in qkv)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=causal_upper_left(3, 5))
    np.testing.assert_allclose(out.detach().numpy(), _reference(*qkv, np.tril(np.ones((3, 5), bool))), rtol=1e-12)
    assert ea.equal(out, F.scaled_dot_product_attention(q, k, v, is_causal=True))
    out.sum().backward()
    assert q.grad is not None and float(q.grad.abs().sum()) > 0


def test_errors_and_the_lower_right_warning(qkv):
    q, k, v = (ea.tensor(a, dtype=ea.float32) for a in qkv)
    with pytest.raises(ValueError, match="^CausalBias should not be used with causal=True$"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=causal_upper_left(3, 5), is_causal=True)
    with pytest.raises(AssertionError, match="^causal_lower_right only supports 2D tensors$"):
        causal_lower_right(3)
    with pytest.raises(AssertionError, match="^variant must be a CausalVariant, got int$"):
        CausalBias(1, 2, 3)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        causal_lower_right(5, 3)
    assert [str(w.message) for w in seen] == [
        "Lower right causal bias will produce NaNs in the output when seq_len_q > seq_len_kv!"]
    assert repr(causal_upper_left(2, 2)) == repr(ea.tensor([[True, False], [True, True]]))
