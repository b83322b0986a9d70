"""The gradient of a value-selecting op (sort, topk, kthvalue, median, mode, max along a dim) writes `grad` at the
forward's distinct indices: under create_graph PyTorch records that write as ScatterBackward0, and its own
gradient reads `grad` back at those indices."""

import numpy as np
import pytest

import ember.autograd as ea

OPS = {
    "sort": lambda v: v.sort(1).values,
    "topk": lambda v: v.topk(2, 1).values,
    "kthvalue": lambda v: v.kthvalue(2, 1).values,
    "median": lambda v: v.median(1).values,
    "max_dim": lambda v: v.max(1).values,
    "min_keepdim": lambda v: v.min(1, keepdim=True).values,
}


@pytest.mark.parametrize("op", list(OPS))
def test_selection_gradient_is_a_scatter_and_differentiates_twice(op):
    vn = np.random.default_rng(0).standard_normal((5, 4))
    v = ea.from_numpy(vn).requires_grad_(True)
    (g,) = ea.autograd.grad(OPS[op](v).pow(3).sum(), v, create_graph=True)
    assert type(g.grad_fn).__name__ == "ScatterBackward0"
    picked = g.detach().numpy() != 0
    np.testing.assert_allclose(g.detach().numpy()[picked], 3 * vn[picked] ** 2)
    (gg,) = ea.autograd.grad(g.sum(), v)
    np.testing.assert_allclose(gg.numpy(), np.where(picked, 6 * vn, 0.0))


def test_cummax_gradient_stays_an_add():
    v = ea.tensor([[1.0, 3.0, 2.0]], requires_grad=True)
    (g,) = ea.autograd.grad(v.cummax(1).values.pow(2).sum(), v, create_graph=True)
    assert type(g.grad_fn).__name__ == "ScatterAddBackward0"
    np.testing.assert_allclose(g.detach().numpy(), [[2.0, 12.0, 0.0]])
