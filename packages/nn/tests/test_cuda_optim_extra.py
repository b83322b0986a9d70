"""CUDA (a GPU, or Numba's simulator): Rprop, ASGD, Adafactor and Muon,
composed of tensor ops, take the CPU's steps; lazy modules materialize on the device they were moved to; a sparse
embedding takes a dense gradient on the device (sparse tensors live on the CPU)."""

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn, optim

pytestmark = [pytest.mark.cuda, pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device or simulator")]


@pytest.mark.parametrize("name, kw", [("Rprop", {"lr": 0.05}), ("ASGD", {"lr": 0.1, "t0": 1, "weight_decay": 0.1}),
                                      ("Adafactor", {"lr": 0.1}), ("Muon", {"lr": 0.05})])
def test_new_optimizers_match_cpu(name, kw):
    rng = np.random.default_rng(0)
    p0 = rng.standard_normal((3, 2))
    grads = [rng.standard_normal((3, 2)) * (np.arange(3)[:, None] != 1) for _ in range(3)]
    results = []
    for device in ("cpu", "cuda"):
        p = nn.Parameter(torch.tensor(p0, dtype=torch.float32, device=device))
        opt = getattr(optim, name)([p], **kw)
        for g in grads:
            p.grad = torch.tensor(g, dtype=torch.float32, device=device)
            opt.step()
        results.append(p.detach().cpu().numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-5, atol=1e-6)


def test_lazy_linear_materializes_on_the_device_it_was_moved_to():
    fc = nn.LazyLinear(2).cuda()
    out = fc(torch.ones(3, 4, device="cuda"))
    assert type(fc) is nn.Linear and fc.weight.device.type == "cuda" and tuple(out.shape) == (3, 2)


def test_sparse_embedding_on_cuda_warns_and_takes_a_dense_gradient():
    """ember's sparse tensors live on the CPU: a CUDA weight with sparse=True warns and gets the dense gradient
    (the rows' counts of the looked-up ids), and SGD trains it as it would the sparse one."""
    w0 = np.random.default_rng(1).standard_normal((6, 2)).astype(np.float32)
    emb = nn.Embedding.from_pretrained(torch.tensor(w0, device="cuda"), freeze=False, sparse=True)
    idx = torch.tensor([[0, 2, 2], [4, 0, 5]], device="cuda")
    with pytest.warns(UserWarning, match=r"^embedding: sparse=True on .*ember's sparse tensors live on the CPU, "
                                         r"so this weight gets a dense gradient"):
        out = emb(idx)
    np.testing.assert_array_equal(out.detach().cpu().numpy(), w0[idx.cpu().numpy()])
    out.sum().backward()
    assert not emb.weight.grad.is_sparse
    counts = np.bincount(idx.cpu().numpy().ravel(), minlength=6).astype(np.float32)
    np.testing.assert_array_equal(emb.weight.grad.cpu().numpy(), np.repeat(counts[:, None], 2, axis=1))
    optim.SGD(emb.parameters(), lr=0.5).step()
    np.testing.assert_allclose(emb.weight.detach().cpu().numpy(), w0 - 0.5 * counts[:, None], rtol=1e-6)
