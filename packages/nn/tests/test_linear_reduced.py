"""bfloat16 `F.linear` with a bias: PyTorch's addmm, summed in float32 and rounded once."""

import ml_dtypes
import numpy as np
import pytest

import ember.autograd as ea
import ember.nn.functional as F

BF = np.dtype(ml_dtypes.bfloat16)


def bf(a) -> np.ndarray:
    return np.asarray(a, np.float32).astype(BF).astype(np.float32)


def test_bf16_linear_with_bias_rounds_once_and_has_gradients():
    rng = np.random.default_rng(0)
    x, w, b = bf(rng.standard_normal((2, 5, 64))), bf(rng.standard_normal((8, 64))), bf(rng.standard_normal(8))
    want = bf(x.astype(np.float64) @ w.T.astype(np.float64) + b)
    xt = ea.tensor(x).bfloat16().requires_grad_(True)
    wt = ea.tensor(w).bfloat16().requires_grad_(True)
    out = F.linear(xt, wt, ea.tensor(b).bfloat16())
    assert out.dtype is ea.bfloat16 and out.shape == (2, 5, 8)
    np.testing.assert_array_equal(out.detach().float().numpy(), want)
    out.float().sum().backward()
    assert xt.grad.dtype is ea.bfloat16
    np.testing.assert_allclose(xt.grad.float().numpy(), np.broadcast_to(bf(w.sum(0)), (2, 5, 64)), rtol=1e-2)
    np.testing.assert_allclose(wt.grad.float().numpy(), np.broadcast_to(x.reshape(-1, 64).sum(0), (8, 64)),
                               rtol=2e-2, atol=1e-1)


@pytest.mark.torch
def test_bf16_linear_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((4, 3, 32), (16, 32), (16,)))
    ref = torch.nn.functional.linear(*(torch.from_numpy(v).bfloat16() for v in (x, w, b)))
    ours = F.linear(*(ea.tensor(v).bfloat16() for v in (x, w, b)))
    np.testing.assert_array_equal(ours.float().numpy(), ref.float().numpy())


@pytest.mark.parametrize("dt", ["bfloat16", "float16"])
def test_reduced_linear_and_addmm_nodes_are_pytorchs(dt):
    # a matrix input is one addmm (AddmmBackward0), a batched one addmm then a view, in any dtype and under autocast
    dtype = getattr(ea, dt)
    w = ea.ones(3, 4, dtype=dtype, requires_grad=True)
    b = ea.zeros(3, dtype=dtype, requires_grad=True)
    x = ea.ones(2, 4, dtype=dtype)
    assert F.linear(x, w, b).grad_fn.name() == "AddmmBackward0"
    assert F.linear(ea.ones(2, 5, 4, dtype=dtype), w, b).grad_fn.name() == "ViewBackward0"
    assert ea.addmm(b, x, w.t()).grad_fn.name() == "AddmmBackward0"
    assert ea.baddbmm(b.expand(1, 2, 3), x[None], w.t()[None]).grad_fn.name() == "BaddbmmBackward0"
    w32, b32 = ea.ones(3, 4, requires_grad=True), ea.zeros(3, requires_grad=True)
    with ea.autocast("cpu", dtype=dtype):
        out = F.linear(ea.ones(2, 4), w32, b32)
    assert out.dtype is dtype and out.grad_fn.name() == "AddmmBackward0"
    out.sum().backward()
    assert w32.grad.tolist() == [[2.0] * 4] * 3 and b32.grad.tolist() == [2.0] * 3


@pytest.mark.parametrize("dtype", ["bfloat16", "half"])
def test_reduced_linear_of_a_matrix_is_one_addmm_node(dtype):
    x = getattr(ea.ones(5, 4), dtype)()
    w = getattr(ea.ones(3, 4), dtype)().requires_grad_(True)
    b = getattr(ea.ones(3), dtype)()
    assert F.linear(x, w, b).grad_fn.name() == "AddmmBackward0"  # PyTorch's; no view after it
    assert ea.addmm(b, x, w.t(), beta=0).grad_fn.name() == "AddmmBackward0"
    assert ea.addbmm(getattr(ea.ones(5, 3), dtype)(), x[None], w.t()[None]).grad_fn.name() == "AddbmmBackward0"


def test_reduced_rms_norm_and_layer_norm_compute_in_float32_and_round_once():
    rng = np.random.default_rng(1)
    x, w, b = bf(rng.standard_normal((6, 8))), bf(rng.standard_normal(8)), bf(rng.standard_normal(8))
    x64 = x.astype(np.float64)
    rms = x64 / np.sqrt((x64 ** 2).mean(-1, keepdims=True) + np.finfo(np.float32).eps)  # float32's eps, as PyTorch
    xt, wt = ea.tensor(x).bfloat16(), ea.tensor(w).bfloat16()
    np.testing.assert_array_equal(F.rms_norm(xt, (8,), wt).float().numpy(), bf(rms * w))
    got = F.rms_norm(xt, (8,), ea.tensor(w))  # a float32 weight: still the input's dtype
    assert got.dtype is ea.bfloat16 and got.grad_fn is None
    ln = (x64 - x64.mean(-1, keepdims=True)) / np.sqrt(x64.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_array_equal(F.layer_norm(xt, (8,), wt, ea.tensor(b).bfloat16()).float().numpy(), bf(ln * w + b))


def test_bf16_linear_of_a_strided_batch_rounds_the_product_then_the_bias():
    # PyTorch flattens only a contiguous input into addmm; a transposed (batch-first) one is matmul, then add_
    rng = np.random.default_rng(3)
    x, w, b = bf(rng.standard_normal((2, 16, 8))), bf(rng.standard_normal((24, 8))), bf(rng.standard_normal(24))
    xt = ea.tensor(x).bfloat16().transpose(0, 1)
    out = F.linear(xt, ea.tensor(w).bfloat16(), ea.tensor(b).bfloat16())
    prod = bf(x.transpose(1, 0, 2).astype(np.float64) @ w.T.astype(np.float64))
    np.testing.assert_array_equal(out.float().numpy(), bf(prod + b))
    assert not np.array_equal(out.float().numpy(), bf(x.transpose(1, 0, 2).astype(np.float64) @ w.T + b))
