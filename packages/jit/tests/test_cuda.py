"""Capture and replay of CUDA tensors (Numba's simulator here, a GPU elsewhere): the plan calls the CUDA kernels."""

from __future__ import annotations

import numpy as np
import pytest

import ember.autograd as ea
import ember.jit as jit

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not ea.cuda.is_available(), reason="no CUDA device or simulator")]


def test_forward_backward_on_cuda_replays_to_eager():
    w = ea.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=ea.float64, device="cuda")

    def f(x):
        x.grad = None
        y = ((x @ w).exp() + x / 3).sum()
        y.backward()
        return y.detach(), x.grad

    xe = ea.tensor([[1.0, 2.0], [3.0, -4.0]], dtype=ea.float64, device="cuda", requires_grad=True)
    xc = ea.tensor([[1.0, 2.0], [3.0, -4.0]], dtype=ea.float64, device="cuda", requires_grad=True)
    c = jit.compile(f)
    for _ in range(3):
        ye, ge = f(xe)
        yc, gc = c(xc)
    assert c.captures == 1 and gc.device.type == "cuda"
    np.testing.assert_array_equal(ye.cpu().numpy(), yc.cpu().numpy())
    np.testing.assert_array_equal(ge.cpu().numpy(), gc.cpu().numpy())
