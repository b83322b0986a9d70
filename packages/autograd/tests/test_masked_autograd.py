"""torch.masked differentiates through autograd: gradients by float64 finite differences (masked-out
elements get zero), MaskedTensor gradients, and values and gradients against PyTorch's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember.autograd as E
from ember.autograd import masked
from ember.autograd.gradcheck import gradcheck

RNG = np.random.default_rng(1)
X = RNG.standard_normal((3, 5))
M = np.array([[1, 0, 1, 1, 0], [0, 1, 1, 0, 1], [1, 1, 0, 1, 1]], bool)   # every row keeps 3
MASK = E.tensor(M)

CALLS = {
    "sum": lambda x, m: masked.sum(x, 1, mask=m),
    "prod": lambda x, m: masked.prod(x, 1, mask=m),
    "amax": lambda x, m: masked.amax(x, 1, mask=m),
    "amin": lambda x, m: masked.amin(x, (0, 1), mask=m),
    "mean": lambda x, m: masked.mean(x, 1, mask=m),
    "median": lambda x, m: masked.median(x, 1, mask=m),
    "logsumexp": lambda x, m: masked.logsumexp(x, 1, mask=m),
    "norm": lambda x, m: masked.norm(x, 3.0, 1, mask=m),
    "var": lambda x, m: masked.var(x, 1, mask=m),
    "std": lambda x, m: masked.std(x, 0, unbiased=False, mask=m),
    "softmax": lambda x, m: masked.softmax(x, 1, mask=m),
    "log_softmax": lambda x, m: masked.log_softmax(x, 1, mask=m),
    "softmin": lambda x, m: masked.softmin(x, 1, mask=m),
    "normalize": lambda x, m: masked.normalize(x, 2.0, 1, mask=m),
    "cumsum": lambda x, m: masked.cumsum(x, 1, mask=m),
    "cumprod": lambda x, m: masked.cumprod(x, 1, mask=m),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_gradients_match_finite_differences(name):
    x = E.tensor(X).requires_grad_()
    fn = CALLS[name]
    if name != "log_softmax":   # log_softmax is -inf at the masked-out elements
        assert gradcheck(lambda t: fn(t, MASK), (x,), eps=1e-6, atol=1e-6)
    out = fn(x, MASK)
    weights = E.tensor(RNG.standard_normal(out.shape))
    (E.where(out.isinf(), 0.0, out) * weights).sum().backward()
    if name not in ("softmax", "log_softmax", "softmin", "cumsum", "cumprod", "normalize", "var", "std"):
        # a reduction reads only the kept elements (normalizations and variances couple them through the row)
        assert np.all(x.grad.numpy()[~M] == 0), x.grad


def test_masked_tensor_gradients_flow_to_its_data():
    mt = masked.masked_tensor(E.tensor(X), MASK, requires_grad=True)
    assert mt.requires_grad
    (mt * 3).sum().backward()
    np.testing.assert_array_equal(mt.grad.to_tensor(0.0).numpy(), np.where(M, 3.0, 0.0))
    x = E.tensor(X).requires_grad_()
    masked.as_masked_tensor(x, MASK).exp().mean().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(M, np.exp(X) / M.sum(), 0.0))


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CALLS))
def test_values_and_gradients_match_pytorch_with_empty_rows(name):
    torch = pytest.importorskip("torch")
    m = M.copy()
    m[1] = False   # a row with nothing left: identities and NaNs as PyTorch's
    fn = CALLS[name]
    x = E.tensor(X).requires_grad_()
    tx = torch.tensor(X, requires_grad=True)
    got = fn(x, E.tensor(m))
    want = _torch_call(torch, name, tx, torch.tensor(m))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12, equal_nan=True)
    w = RNG.standard_normal(tuple(want.shape))
    (E.where(got.isfinite(), got, 0.0) * E.tensor(w)).sum().backward()
    (torch.where(want.isfinite(), want, 0.0) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-12, equal_nan=True)


def _torch_call(torch, name, x, m):
    """The same call as CALLS[name], made with torch.masked."""
    tm = torch.masked
    calls = {
        "sum": lambda: tm.sum(x, 1, mask=m), "prod": lambda: tm.prod(x, 1, mask=m),
        "amax": lambda: tm.amax(x, 1, mask=m), "amin": lambda: tm.amin(x, (0, 1), mask=m),
        "mean": lambda: tm.mean(x, 1, mask=m), "median": lambda: tm.median(x, 1, mask=m),
        "logsumexp": lambda: tm.logsumexp(x, 1, mask=m), "norm": lambda: tm.norm(x, 3.0, 1, mask=m),
        "var": lambda: tm.var(x, 1, mask=m), "std": lambda: tm.std(x, 0, unbiased=False, mask=m),
        "softmax": lambda: tm.softmax(x, 1, mask=m), "log_softmax": lambda: tm.log_softmax(x, 1, mask=m),
        "softmin": lambda: tm.softmin(x, 1, mask=m), "normalize": lambda: tm.normalize(x, 2.0, 1, mask=m),
        "cumsum": lambda: tm.cumsum(x, 1, mask=m), "cumprod": lambda: tm.cumprod(x, 1, mask=m),
    }
    return calls[name]()


@pytest.mark.torch
def test_reduction_identities_match_pytorch():
    torch = pytest.importorskip("torch")
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    m = np.array([[True, False], [False, False]])
    for name in ("sum", "prod", "amax", "amin", "argmax", "argmin", "mean", "logsumexp"):
        got = getattr(masked, name)(E.tensor(x), 1, mask=E.tensor(m)).numpy()
        want = getattr(torch.masked, name)(torch.tensor(x), 1, mask=torch.tensor(m)).numpy()
        np.testing.assert_array_equal(got, want, err_msg=name)
    assert math.isinf(masked.amax(E.tensor(x), mask=E.tensor(np.zeros((2, 2), bool))).item())
