"""A representative subset of autograd on CUDA tensors (Numba's simulator here, a GPU elsewhere)."""

from __future__ import annotations

import numpy as np
import pytest

import ember.autograd as E

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")]


def _cuda(values, requires_grad=True):
    return E.tensor(values, dtype=E.float64, device="cuda", requires_grad=requires_grad)


def test_elementwise_broadcast_and_sum_on_cuda():
    a = _cuda([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]])
    b = _cuda([1.0, 2.0, -3.0])
    y = ((a * b).exp() + a / b).sum()
    y.backward()
    av, bv = a.detach().cpu().numpy(), b.detach().cpu().numpy()
    assert a.grad.device.type == "cuda" and b.grad.device.type == "cuda"
    assert np.allclose(a.grad.cpu().numpy(), np.exp(av * bv) * bv + 1 / bv)
    assert np.allclose(b.grad.cpu().numpy(), (np.exp(av * bv) * av - av / bv ** 2).sum(0))


def test_views_and_inplace_on_cuda():
    a = _cuda([[1.0, 2.0], [3.0, 4.0]])
    b = a * 2
    b[0].mul_(3)
    b.backward(E.ones(2, 2, dtype=E.float64, device="cuda"))
    assert a.grad.cpu().tolist() == [[6.0, 6.0], [2.0, 2.0]]


def test_gradcheck_on_cuda():
    x = _cuda([[0.3, -0.7], [1.1, 0.2]])
    assert E.gradcheck(lambda t: (t.sin() * t).sum(1), (x,))


def test_device_transfers_are_differentiable():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    y = x.cuda()
    assert y.grad_fn.name() == "ToCopyBackward0"
    z = y.to(E.float64).cpu()
    (z * z).sum().backward()
    assert x.grad.device.type == "cpu" and x.grad.dtype == E.float32 and x.grad.tolist() == [2.0, 4.0]


def test_cpu_scalar_tensor_in_a_cuda_op_gets_a_cpu_gradient():
    s = E.tensor(2.0, dtype=E.float64, requires_grad=True)
    x = _cuda([1.0, 3.0])
    (x * s).sum().backward()
    assert s.grad.device.type == "cpu" and s.grad.item() == 4.0
    assert x.grad.device.type == "cuda" and x.grad.cpu().tolist() == [2.0, 2.0]
