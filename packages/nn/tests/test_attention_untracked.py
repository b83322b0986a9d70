"""`F.scaled_dot_product_attention` with nothing but autograd watching (no other hook, no mode) runs its math path's
kernels without dispatching them, with the dispatched composite's bits; with operands requiring grad, 4-D attention
records PyTorch's one flash node, whose gradients are those of the composite's chain of nodes."""

import numpy as np
import pytest

import ember.autograd as ea
import ember.nn.functional as F
from ember.core import storage
from ember.core.testing import count_calls, watching

FLASH = "ScaledDotProductFlashAttentionForCpuBackward0"


def _bits(t) -> np.ndarray:
    return t.detach().numpy().view(np.uint8)


def _count_calls(fn) -> int:
    """The Python calls of one `fn()` (after two warm-up calls), as the call budgets of ember.autograd's tests."""
    return count_calls(fn)[0]


SHAPES = [  # (query, key, value, dtype): 3-D and 4-D, L != S, Ev != E, a single query, a row of 33 keys
    ((4, 16, 64), (4, 16, 64), (4, 16, 64), np.float32), ((2, 4, 16, 64), (2, 4, 16, 64), (2, 4, 16, 64), np.float32),
    ((3, 5, 8), (3, 7, 8), (3, 7, 6), np.float64), ((2, 3, 1, 4), (2, 3, 9, 4), (2, 3, 9, 5), np.float32),
    ((1, 33, 17), (1, 40, 17), (1, 40, 17), np.float32)]


def _masks(rng, L, S, dt):
    return [{}, {"is_causal": True}, {"scale": 0.3}, {"attn_mask": ea.tensor(rng.random((L, S)) > 0.3)},
            {"attn_mask": ea.tensor(rng.standard_normal((L, S)).astype(dt))},
            {"attn_mask": ea.tensor(np.zeros((L, S), bool))}]  # every key masked: _safe_softmax's zeros


@pytest.mark.parametrize("qs,ks,vs,dt", SHAPES)
def test_same_bits_as_the_dispatched_ops(qs, ks, vs, dt):
    rng = np.random.default_rng(len(qs) * qs[-1])
    q, k, v = (rng.standard_normal(s).astype(dt) for s in (qs, ks, vs))
    for kw in _masks(rng, qs[-2], ks[-2], dt):
        for strided_key in (False, True):
            key = ea.tensor(k)
            if strided_key:  # a transposed layout: bmm's operand laid out by its strides
                key = ea.tensor(np.ascontiguousarray(np.swapaxes(k, -1, -2))).transpose(-1, -2)
            seen = []
            got = F.scaled_dot_product_attention(ea.tensor(q), key, ea.tensor(v), **kw)
            with watching(seen):
                want = F.scaled_dot_product_attention(ea.tensor(q), key, ea.tensor(v), **kw)
            assert "bmm" in seen and ("softmax" in seen or "_safe_softmax" in seen)
            assert got.shape == want.shape and got.dtype == want.dtype and got.is_contiguous()
            assert np.array_equal(_bits(got), _bits(want)), (qs, kw, strided_key)


def test_no_grad_and_inference_mode_take_the_direct_path(monkeypatch):
    monkeypatch.setattr(storage, "only_cpu", True)  # the dispatcher's budget without its device scan
    rng = np.random.default_rng(0)
    q = ea.tensor(rng.standard_normal((2, 4, 8, 16)).astype(np.float32), requires_grad=True)
    with ea.no_grad():
        calls = _count_calls(lambda: F.scaled_dot_product_attention(q, q, q, is_causal=True))
        got = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    with watching():
        want = F.scaled_dot_product_attention(q.detach(), q.detach(), q.detach(), is_causal=True)
    assert got.grad_fn is None and not got.requires_grad and np.array_equal(_bits(got), _bits(want))
    with ea.inference_mode():
        inf = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    assert inf.is_inference() and np.array_equal(_bits(inf), _bits(want))
    # the composite dispatched 16 ops (about 310 Python calls); the kernels at once take about 75
    assert calls <= 90, calls


@pytest.mark.parametrize("shape,dt", [((2, 4, 16, 64), np.float32), ((1, 3, 5, 8), np.float64),
                                      ((1, 1, 33, 16), np.float32)])
@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"scale": 0.3, "is_causal": True}])
def test_recorded_flash_node_has_the_chains_gradients(shape, dt, kw):
    rng = np.random.default_rng(shape[-1])
    q, k, v, w = (rng.standard_normal(shape).astype(dt) for _ in range(4))
    for req in [(True, True, True), (True, False, False), (False, True, False), (False, False, True)]:
        for permuted in (False, True):  # (N, L, heads, E) laid out, as multi-head attention's heads
            def run():
                ts = [ea.tensor(a) for a in (q, k, v)]
                if permuted:
                    ts = [t.permute(0, 2, 1, 3).contiguous().permute(0, 2, 1, 3) for t in ts]
                for t, r in zip(ts, req):
                    t.requires_grad_(r)
                y = F.scaled_dot_product_attention(*ts, **kw)
                (y * ea.tensor(w)).sum().backward()
                return y, ts

            got, gts = run()
            with watching():
                want, wts = run()
            assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__ == FLASH
            assert np.array_equal(_bits(got), _bits(want))
            assert len(got.grad_fn.next_functions) == 3
            for g, w_, r in zip(gts, wts, req):
                assert (g.grad is None) == (w_.grad is None) == (not r)
                if r:
                    assert g.grad.stride() == w_.grad.stride()
                    assert np.array_equal(_bits(g.grad), _bits(w_.grad)), (req, permuted)


def test_recorded_flash_node_edges_and_saved_values_as_pytorchs():
    rng = np.random.default_rng(1)
    q, k, v = (ea.tensor(rng.standard_normal((2, 2, 5, 8)).astype(np.float32), requires_grad=True) for _ in range(3))
    y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    fn = y.grad_fn
    assert type(fn).__name__ == FLASH
    assert [type(n).__name__ for n, _ in fn.next_functions] == ["AccumulateGrad"] * 3
    assert [n.variable for n, _ in fn.next_functions] == [q, k, v]
    assert fn._saved_query is q and fn._saved_key is k and fn._saved_value is v
    assert fn._saved_is_causal is True and fn._saved_dropout_p == 0.0
    assert fn._saved_attn_mask is None and fn._saved_scale is None


def test_recorded_flash_refuses_a_second_derivative_as_pytorch():
    """PyTorch's CPU flash backward is one op without a derivative: its gradients' NotImplemented node raises at the
    second backward; the math backend's chain differentiates twice."""
    from ember.nn.attention import SDPBackend, sdpa_kernel

    rng = np.random.default_rng(2)
    ts = [ea.tensor(rng.standard_normal((1, 2, 4, 3)), requires_grad=True) for _ in range(3)]
    gq, = ea.autograd.grad((F.scaled_dot_product_attention(*ts, is_causal=True) ** 2).sum(), ts[0],
                           create_graph=True)
    assert type(gq.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="^derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward "
                                           "is not implemented$"):
        gq.sum().backward()
    with sdpa_kernel(SDPBackend.MATH):
        gq, = ea.autograd.grad((F.scaled_dot_product_attention(*ts, is_causal=True) ** 2).sum(), ts[0],
                               create_graph=True)
    gq.sum().backward()
    assert all(t.grad is not None for t in ts)


def test_other_cases_dispatch_the_composite(monkeypatch):
    """3-D inputs requiring grad (PyTorch's math path records its ops), a mask with grad mode on, dropout, a
    broadcast batch and a float16 input keep the dispatched ops."""
    from ember.nn.functional import _attention

    calls = [0]
    real = _attention._direct
    monkeypatch.setattr(_attention, "_direct", lambda *a: (calls.__setitem__(0, calls[0] + 1), real(*a))[1])
    rng = np.random.default_rng(3)
    x3 = ea.tensor(rng.standard_normal((2, 4, 8)).astype(np.float32), requires_grad=True)
    x4 = ea.tensor(rng.standard_normal((2, 2, 4, 8)).astype(np.float32), requires_grad=True)
    assert type(F.scaled_dot_product_attention(x3, x3, x3).grad_fn).__name__ == "UnsafeViewBackward0"
    mask = ea.tensor(rng.random((4, 4)) > 0.5)
    assert F.scaled_dot_product_attention(x4, x4, x4, attn_mask=mask).grad_fn is not None
    assert F.scaled_dot_product_attention(x4.detach(), x4.detach(), x4.detach(), dropout_p=0.5) is not None
    half = x4.detach().half()
    assert F.scaled_dot_product_attention(half, half, half).dtype == ea.float16
    assert calls[0] == 0
    broadcast = F.scaled_dot_product_attention(x4.detach()[:1], x4.detach(), x4.detach())  # batch 1 against 2
    assert calls[0] == 1 and broadcast.shape == (2, 2, 4, 8)


def test_self_attention_on_one_tensor_sums_its_three_gradients():
    """`sdpa(x, x, x)`: the node's three edges reach x's AccumulateGrad, which sums them in edge order (the
    composite's chain delivered them in another order: the sum may differ in the last bit)."""
    rng = np.random.default_rng(4)
    a, w = rng.standard_normal((2, 2, 6, 8)), rng.standard_normal((2, 2, 6, 8))

    def grad(watch):
        x = ea.tensor(a, requires_grad=True)
        if watch:
            with watching():
                y = F.scaled_dot_product_attention(x, x, x, is_causal=True)
        else:
            y = F.scaled_dot_product_attention(x, x, x, is_causal=True)
        (y * ea.tensor(w)).sum().backward()
        return type(y.grad_fn).__name__, x.grad.numpy()

    (name, got), (_, want) = grad(False), grad(True)
    assert name == FLASH
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_recorded_flash_stays_within_its_call_budget(monkeypatch):
    """Python calls of 4-D causal attention on operands requiring grad, about 15% above those measured when set:
    the forward 115 (371 as the composite's 16 recorded ops), forward and backward 332 (774)."""
    monkeypatch.setattr(storage, "only_cpu", True)  # the dispatcher's budget without its device scan
    rng = np.random.default_rng(5)
    x = ea.tensor(rng.standard_normal((2, 4, 16, 64)).astype(np.float32), requires_grad=True)
    forward = _count_calls(lambda: F.scaled_dot_product_attention(x, x, x, is_causal=True))
    both = _count_calls(lambda: F.scaled_dot_product_attention(x, x, x, is_causal=True).sum().backward())
    assert forward <= 135 and both <= 385, (forward, both)
