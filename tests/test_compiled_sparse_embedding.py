"""A compiled training step (`ember.jit.compile`) with `EmbeddingBag(sparse=True)` gives eager's losses and
weights: the sparse lookup is a graph break, run eagerly (cross-layer: nn and jit)."""

import numpy as np
import pytest

import ember.autograd as torch
import ember.jit as jit
from ember import nn, optim

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks are implicitly disabled")


@pytest.mark.parametrize("opt_name", ["SGD", "SparseAdam"])
def test_a_compiled_training_step_with_sparse_gradients_matches_eager(opt_name):
    rng = np.random.default_rng(7)
    data = [(torch.tensor(rng.integers(0, 20, (4, 3))), torch.tensor(rng.standard_normal(4).astype(np.float32)))
            for _ in range(6)]
    table = rng.standard_normal((20, 5)).astype(np.float32)
    results = []
    for compiled in (False, True):
        bag = nn.EmbeddingBag.from_pretrained(torch.tensor(table.copy()), freeze=False, mode="sum", sparse=True)
        opt = optim.SGD(bag.parameters(), lr=0.05, momentum=0.9) if opt_name == "SGD" else \
            optim.SparseAdam(bag.parameters(), lr=0.05)

        def step(x, y, bag=bag, opt=opt):
            opt.zero_grad()
            loss = ((bag(x).sum(1) - y) ** 2).mean()
            loss.backward()
            opt.step()
            return loss

        fn = jit.compile(step) if compiled else step
        losses = [fn(x, y).item() for x, y in data]
        results.append((losses, bag.weight.detach().numpy().copy()))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-6)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-6)
