"""autocast and GradScaler on CUDA tensors (Numba's simulator here, a GPU elsewhere): CUDA's op
lists, float16 by default, CPU tensors left alone, and the scaler enabled."""

from __future__ import annotations

import numpy as np
import pytest

import ember.autograd as E
import ember.nn.functional as F

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")]


def test_cuda_op_lists_and_default_float16():
    x = E.tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3), device="cuda", requires_grad=True)
    w = E.ones(4, 3, device="cuda", requires_grad=True)
    with E.autocast("cuda"):
        y = F.linear(x, w)
        assert y.dtype is E.float16 and E.get_autocast_dtype("cuda") is E.float16
        assert y.softmax(1).dtype is E.float32 and y.exp().dtype is E.float32   # CUDA's fp32 list
        assert y.sum().dtype is E.float32
        assert (E.ones(2, 2) @ E.ones(2, 2)).dtype is E.float32                # CPU tensors: not autocast
        with pytest.raises(RuntimeError, match="unsafe to autocast"):
            F.binary_cross_entropy(E.full((2,), 0.5, device="cuda"), E.ones(2, device="cuda"))
        loss = y.float().sum()
    loss.backward()
    assert w.grad.dtype is E.float32 and w.grad.device.type == "cuda"
    np.testing.assert_allclose(w.grad.cpu().numpy(), np.tile(x.detach().cpu().numpy().sum(0), (4, 1)), atol=1e-3)


def test_grad_scaler_on_cuda_scales_and_steps():
    w = E.tensor([1.0, -2.0], device="cuda", requires_grad=True)
    scaler = E.amp.GradScaler("cuda", init_scale=8.0)
    assert scaler.is_enabled()
    loss = scaler.scale((w * w).sum())
    assert loss.device.type == "cuda" and loss.item() == 40.0
    loss.backward()

    class Opt:
        param_groups = [{"params": [w]}]
        steps = 0

        def step(self):
            Opt.steps += 1

    scaler.step(Opt())
    scaler.update()
    assert Opt.steps == 1 and w.grad.cpu().tolist() == [2.0, -4.0] and scaler.get_scale() == 8.0
