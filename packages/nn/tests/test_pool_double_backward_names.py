"""A gradient taken with create_graph through 2-d pooling or an embedding is recorded under PyTorch's node names for
the backward ops (ATen's `MaxPool2DWithIndicesBackward`, `EmbeddingDenseBackward` ...), and its values are the
first derivative's."""

import numpy as np
import pytest

import ember.autograd as ea
from ember import nn

F = nn.functional

CASES = {
    "max_pool2d": (lambda x: F.max_pool2d(x, 2), "MaxPool2DWithIndicesBackwardBackward0"),
    "adaptive_max_pool2d": (lambda x: F.adaptive_max_pool2d(x, 2), "AdaptiveMaxPool2DBackwardBackward0"),
    "avg_pool2d": (lambda x: F.avg_pool2d(x, 2), "AvgPool2DBackwardBackward0"),
    "adaptive_avg_pool2d": (lambda x: F.adaptive_avg_pool2d(x, 3), "AdaptiveAvgPool2DBackwardBackward0"),
}


@pytest.mark.parametrize("op", list(CASES))
def test_pool_gradient_node_is_named_as_pytorchs(op):
    fn, name = CASES[op]
    x = ea.from_numpy(np.random.default_rng(0).standard_normal((1, 2, 4, 4))).requires_grad_(True)
    (g,) = ea.autograd.grad(fn(x).pow(2).sum(), x, create_graph=True)
    assert type(g.grad_fn).__name__ == name
    (plain,) = ea.autograd.grad(fn(x).pow(2).sum(), x)
    np.testing.assert_array_equal(g.detach().numpy(), plain.numpy())


def test_embedding_gradient_node_is_embedding_dense_backward():
    w = ea.from_numpy(np.arange(12.0).reshape(4, 3)).requires_grad_(True)
    idx = ea.tensor([0, 2, 2])
    (g,) = ea.autograd.grad(F.embedding(idx, w).pow(2).sum(), w, create_graph=True)
    assert type(g.grad_fn).__name__ == "EmbeddingDenseBackwardBackward0"
    wn = np.arange(12.0).reshape(4, 3)
    np.testing.assert_allclose(g.detach().numpy(), np.stack([2 * wn[0], 0 * wn[1], 4 * wn[2], 0 * wn[3]]))
