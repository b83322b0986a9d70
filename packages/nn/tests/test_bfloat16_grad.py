"""Gradients through bfloat16 ops: float32 accumulation in matmul/conv backward, gradients in
the parameters' dtype, against float64 references and PyTorch's bfloat16 autograd."""

import ml_dtypes
import numpy as np
import pytest

import ember.autograd as E
import ember.nn.functional as F

BF = np.dtype(ml_dtypes.bfloat16)


def _bf(a) -> np.ndarray:
    return np.asarray(a, np.float32).astype(BF).astype(np.float64)


def test_matmul_backward_in_bfloat16():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 40)), rng.standard_normal((40, 2))
    x = E.tensor(a, dtype=E.bfloat16, requires_grad=True)
    w = E.tensor(b, dtype=E.bfloat16, requires_grad=True)
    (x @ w).sum().backward()
    assert x.grad.dtype is E.bfloat16 and w.grad.dtype is E.bfloat16
    # d sum(xw)/dx = row sums of w, each rounded once to bfloat16
    np.testing.assert_array_equal(x.grad.float().numpy(), _bf(np.tile(_bf(b).sum(1), (3, 1))).astype(np.float32))
    col = _bf(np.tile(_bf(a).sum(0)[:, None], (1, 2))).astype(np.float32)
    np.testing.assert_array_equal(w.grad.float().numpy(), col)


def test_mixed_dtype_graph_returns_each_leafs_dtype():
    w = E.ones(3, requires_grad=True)
    y = (w.bfloat16() * E.tensor([1.0, 2.0, 3.0], dtype=E.bfloat16)).sum()
    y.backward()
    assert y.dtype is E.bfloat16 and w.grad.dtype is E.float32 and w.grad.tolist() == [1.0, 2.0, 3.0]


@pytest.mark.torch
def test_linear_conv_gradients_match_pytorch_bfloat16():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in ((2, 3, 6, 6), (4, 3, 3, 3), (5, 16), (4,))]
    e = [E.tensor(a, dtype=E.bfloat16, requires_grad=True) for a in arrays]
    t = [torch.tensor(a, dtype=torch.bfloat16, requires_grad=True) for a in arrays]

    def run(m, f, x, k, lw, lb):
        h = f.conv2d(x, k, padding=1).relu().mean((2, 3))
        return f.linear(h.repeat(1, 4), lw[:4, :], lb).tanh().sum()

    run(E, F, *e).backward()
    run(torch, torch.nn.functional, *t).backward()
    for ours, theirs in zip(e, t, strict=True):
        assert ours.grad.dtype is E.bfloat16
        np.testing.assert_allclose(ours.grad.float().numpy(), theirs.grad.float().numpy(), rtol=2 ** -6, atol=2e-2)
