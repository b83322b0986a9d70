"""CUDA (a GPU, or Numba's simulator): Rprop, ASGD, Adafactor and Muon,
composed of tensor ops, take the CPU's steps; lazy modules materialize on the device they were moved to; a sparse
embedding refuses a gradient on the device (sparse tensors live on the CPU)."""

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


def test_sparse_embedding_refuses_a_gradient_on_cuda_and_looks_up_without_one():
    """ember's sparse tensors live on the CPU: a sparse gradient of a CUDA weight is refused at the forward,
    while a lookup that records no gradient (inference of a table trained with sparse=True) runs."""
    w0 = np.random.default_rng(1).standard_normal((6, 2)).astype(np.float32)
    emb = nn.Embedding.from_pretrained(torch.tensor(w0, device="cuda"), freeze=False, sparse=True)
    idx = torch.tensor([[0, 2, 2], [4, 0, 5]], device="cuda")
    with pytest.raises(NotImplementedError, match=r"^embedding: sparse=True gives the weight a sparse gradient, and "
                                                  r"ember's sparse tensors live on the CPU"):
        emb(idx)
    with torch.no_grad():
        np.testing.assert_array_equal(emb(idx).cpu().numpy(), w0[idx.cpu().numpy()])
