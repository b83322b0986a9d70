"""The CPU flash-attention node's entry (`derivatives.attention`): the math path's forward and the rule's gradients by
the ops' kernels at once have the bits of the same ops dispatched (under `watching`), and the rule matches float64
finite differences of the forward."""

import numpy as np
import pytest

import ember.autograd as E
from ember.autograd.derivatives import COMPOSITES
from ember.autograd.derivatives.attention import _flash_backward, attention_untracked
from ember.core.testing import watching

SHAPES = [((2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 6)), ((1, 4, 16, 16), (1, 4, 16, 16), (1, 4, 16, 16))]


def _ops_attention(q, k, v, causal, scale):
    """softmax(q k^T * scale + causal mask) v by the dispatched ops, as the nn composite's math path."""
    s = E.matmul(q, k.transpose(-2, -1)) * (1 / np.sqrt(q.shape[-1]) if scale is None else scale)
    if causal:
        L, S = s.shape[-2:]
        neg_inf = E.full((L, S), float("-inf"), dtype=s.dtype)
        s = s + E.where(E.ones(L, S, dtype=E.bool).tril(), E.zeros_like(neg_inf), neg_inf)
    return E.matmul(E.softmax(s, -1), v)


@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("causal,scale", [(False, None), (True, None), (True, 0.3)])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_kernels_have_the_dispatched_ops_bits(shapes, causal, scale, dt):
    rng = np.random.default_rng(sum(shapes[0]))
    q, k, v = (E.tensor(rng.standard_normal(s).astype(dt)) for s in shapes)
    grad = E.tensor(rng.standard_normal((*shapes[0][:-1], shapes[2][-1])).astype(dt))
    mask = None
    if causal:
        L, S = shapes[0][-2], shapes[1][-2]
        mask = E.where(E.ones(L, S, dtype=E.bool).tril(), 0.0, float("-inf")).to(q.dtype)
    got = attention_untracked(q, k, v, mask, scale, False)
    with watching():
        want = _ops_attention(q, k, v, causal, scale)
    assert got.numpy().tobytes() == want.numpy().tobytes()
    for mask in [(True, True, True), (True, False, False), (False, True, True)]:
        with E.no_grad():  # as the engine runs a rule outside create_graph: the kernels' path
            got = _flash_backward(grad, q, k, v, causal, scale, mask)
            with watching():
                want = _flash_backward(grad, q, k, v, causal, scale, mask)
        for g, w in zip(got, want):
            assert (g is None) == (w is None)
            if g is not None:
                assert g.shape == w.shape and g.stride() == w.stride()
                assert np.ascontiguousarray(g.numpy()).tobytes() == np.ascontiguousarray(w.numpy()).tobytes()


def test_rule_matches_finite_differences():
    rng = np.random.default_rng(7)
    q, k, v = (rng.standard_normal((1, 2, 3, 4)) for _ in range(3))
    grad = rng.standard_normal((1, 2, 3, 4))

    def f(qa, ka, va):
        return float((_ops_attention(E.tensor(qa), E.tensor(ka), E.tensor(va), True, None).numpy() * grad).sum())

    with E.no_grad():
        got = _flash_backward(E.tensor(grad), E.tensor(q), E.tensor(k), E.tensor(v), True, None, (True, True, True))
    eps = 1e-6
    for i, (arr, g) in enumerate(zip((q, k, v), got)):
        num = np.zeros_like(arr)
        for idx in np.ndindex(arr.shape):
            args = [q.copy(), k.copy(), v.copy()]
            args[i][idx] += eps
            hi = f(*args)
            args[i][idx] -= 2 * eps
            num[idx] = (hi - f(*args)) / (2 * eps)
        np.testing.assert_allclose(g.numpy(), num, rtol=1e-6, atol=1e-8)


def test_entry_is_the_one_node_pytorch_names():
    entry = COMPOSITES["_scaled_dot_product_flash_attention_for_cpu"]
    assert entry.node_cls.__name__ == "ScaledDotProductFlashAttentionForCpuBackward0"
    assert entry.diff_params == ["query", "key", "value"]
