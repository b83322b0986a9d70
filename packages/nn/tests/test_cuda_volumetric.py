"""CUDA (a GPU, or Numba's simulator): the 3-D layers, compositions of the 2-D ops, give the CPU's
values and gradients. Tiny shapes."""

import numpy as np
import pytest

import ember.autograd as torch
from ember.nn import functional as F

pytestmark = [pytest.mark.cuda, pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device or simulator")]


@pytest.mark.parametrize("fn", [
    lambda x, w, b: F.conv3d(x, w, b, (2, 1, 1), (1, 0, 1), (1, 1, 2), 2),
    lambda x, w, b: F.conv_transpose3d(x, w.reshape(4, 2, 2, 2, 1), None, 2, 1, (1, 0, 0), 2),
    lambda x, w, b: F.max_pool3d(x, 2, 1, 1, return_indices=True)[0] * b.sum(),
    lambda x, w, b: F.avg_pool3d(x, (2, 2, 3), 1, (1, 0, 1), count_include_pad=False) * b.sum(),
    lambda x, w, b: F.adaptive_max_pool3d(x, (2, 3, 2)) + F.adaptive_avg_pool3d(x, (2, 3, 2)) * b.sum(),
    lambda x, w, b: F.interpolate(x, scale_factor=(1.5, 1.0, 2.0), mode="trilinear") * b.sum(),
])
def test_3d_layers_match_cpu_values_and_gradients(fn):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((1, 4, 3, 4, 3)), rng.standard_normal((2, 2, 2, 2, 2)), rng.standard_normal(2)]
    grads = []
    for device in ("cpu", "cuda"):
        ins = [torch.tensor(a, dtype=torch.float64, device=device, requires_grad=True) for a in arrays]
        out = fn(*ins)
        assert out.device.type == device
        out.backward(torch.ones_like(out))
        grads.append([out.detach().cpu().numpy()] + [None if t.grad is None else t.grad.cpu().numpy() for t in ins])
    for c, g in zip(*grads):
        assert (c is None) == (g is None)
        if c is not None:
            np.testing.assert_allclose(g, c, rtol=1e-9, atol=1e-9)


def test_max_pool3d_indices_on_cuda():
    x = torch.tensor(np.random.default_rng(1).permutation(60).reshape(1, 1, 3, 4, 5), dtype=torch.float64)
    out, idx = F.max_pool3d(x.cuda(), 2, return_indices=True)
    want, want_idx = F.max_pool3d(x, 2, return_indices=True)
    assert torch.equal(idx.cpu(), want_idx) and torch.equal(out.cpu(), want)
