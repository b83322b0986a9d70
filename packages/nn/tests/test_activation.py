"""Activation modules and functions against numpy formulas; in-place variants write their input."""

import math

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn
from ember.nn import functional as F

erf = np.vectorize(math.erf)


def sig(x):
    return 1 / (1 + np.exp(-x))


def softplus(x, beta=1.0, threshold=20.0):
    return np.where(beta * x > threshold, x, np.log1p(np.exp(beta * x)) / beta)


CASES = [
    (nn.ReLU(), lambda x: np.maximum(x, 0)),
    (nn.ReLU6(), lambda x: np.clip(x, 0, 6)),
    (nn.LeakyReLU(0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    (nn.ELU(0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(x))),
    (nn.GELU(), lambda x: 0.5 * x * (1 + erf(x / np.sqrt(2)))),
    (nn.GELU("tanh"), lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
    (nn.SiLU(), lambda x: x * sig(x)),
    (nn.Mish(), lambda x: x * np.tanh(softplus(x))),
    (nn.Tanh(), np.tanh),
    (nn.Sigmoid(), sig),
    (nn.Hardtanh(-2.0, 1.5), lambda x: np.clip(x, -2.0, 1.5)),
    (nn.Softplus(beta=2.0, threshold=5.0), lambda x: softplus(x, 2.0, 5.0)),
    (nn.LogSigmoid(), lambda x: np.log(sig(x))),
    (nn.Softsign(), lambda x: x / (1 + np.abs(x))),
    (nn.Threshold(0.5, -1.0), lambda x: np.where(x > 0.5, x, -1.0)),
    (nn.GLU(), lambda x: x[:, :3] * sig(x[:, 3:])),
]


@pytest.mark.parametrize("module, ref", CASES, ids=[type(m).__name__ for m, _ in CASES])
def test_activation_matches_formula(module, ref):
    x = torch.randn(4, 6, dtype=torch.float64) * 4
    np.testing.assert_allclose(module(x).numpy(), ref(x.numpy()), rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_modules(dim):
    x = torch.randn(3, 5, dtype=torch.float64)
    a = x.numpy()
    e = np.exp(a - a.max(dim, keepdims=True))
    sm = e / e.sum(dim, keepdims=True)
    np.testing.assert_allclose(nn.Softmax(dim=dim)(x).numpy(), sm, rtol=1e-12)
    np.testing.assert_allclose(nn.LogSoftmax(dim=dim)(x).numpy(), np.log(sm), rtol=1e-10)
    np.testing.assert_allclose(nn.Softmin(dim=dim)(x).numpy(), F.softmax(-x, dim).numpy(), rtol=1e-12)


@pytest.mark.parametrize("module", [nn.ReLU(inplace=True), nn.LeakyReLU(inplace=True), nn.ELU(inplace=True),
                                    nn.Hardtanh(inplace=True), nn.ReLU6(inplace=True), nn.SiLU(inplace=True)],
                         ids=lambda m: repr(m))
def test_inplace_activations_write_their_input(module):
    x = torch.randn(10, dtype=torch.float64) * 3
    expected = type(module)()(x.clone())
    out = module(x)
    np.testing.assert_allclose(x.numpy(), expected.numpy(), rtol=1e-12)
    assert out.data_ptr() == x.data_ptr()


def test_activation_errors():
    with pytest.raises(ValueError, match="max_val must be greater than min_val"):
        nn.Hardtanh(1.0, 0.0)
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        F.glu(torch.zeros(2, 3))
