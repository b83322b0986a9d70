"""2-D max/avg/adaptive pooling and their backward ops on both devices: CUDA must match the CPU
(padding, dilation, ceil_mode, count_include_pad, divisor_override). CUDA simulator."""

from __future__ import annotations

import pytest

import ember.core as E
from ember.core.dispatch import get_op
from ember.core.testing import assert_close, make_tensor

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")]

DEVICES = ["cpu", "cuda"]


def _on(t, device):
    return t.to(device) if isinstance(t, E.Tensor) and device != "cpu" else t


def _both(fn, device, *args):
    expected = fn(*args)
    actual = fn(*(_on(a, device) for a in args))
    if isinstance(expected, tuple):
        for a, e in zip(actual, expected, strict=True):
            assert_close(a, _on(e, device), rtol=1e-5, atol=1e-5)
    else:
        assert actual.device.type == device
        assert_close(actual, _on(expected, device), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("k", "s", "p", "d", "ceil"), [((2, 2), (2, 2), (0, 0), (1, 1), False),
                                                       ((3, 2), (2, 1), (1, 1), (1, 2), True)])
def test_max_pool_and_backward(k, s, p, d, ceil, device):
    x = make_tensor(2, 2, 5, 6, seed=1, noncontiguous=True)
    _both(lambda t: get_op("max_pool2d_with_indices")(t, k, s, p, d, ceil), device, x)
    out, idx = get_op("max_pool2d_with_indices")(x, k, s, p, d, ceil)
    g = make_tensor(*out.shape, seed=2)
    _both(lambda gg, ii: get_op("max_pool2d_backward")(gg, ii, x.shape), device, g, idx)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("ceil", "include_pad", "divisor"), [(False, True, None), (True, False, None),
                                                              (False, True, 3)])
def test_avg_pool_and_backward(ceil, include_pad, divisor, device):
    x = make_tensor(1, 2, 5, 5, seed=3)
    args = ((3, 3), (2, 2), (1, 1), ceil, include_pad, divisor)
    _both(lambda t: get_op("avg_pool2d")(t, *args), device, x)
    y = get_op("avg_pool2d")(x, *args)
    g = make_tensor(*y.shape, seed=4)
    _both(lambda gg: get_op("avg_pool2d_backward")(gg, x.shape, *args), device, g)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("size", [(1, 1), (2, 3), (4, 4)])
def test_adaptive_pooling(size, device):
    x = make_tensor(2, 1, 5, 7, seed=5)
    _both(lambda t: get_op("adaptive_avg_pool2d")(t, size), device, x)
    _both(lambda t: get_op("adaptive_max_pool2d")(t, size), device, x)
    g = make_tensor(2, 1, *size, seed=6)
    _both(lambda gg: get_op("adaptive_avg_pool2d_backward")(gg, x.shape), device, g)


@pytest.mark.parametrize("dtype", [E.int64, E.int8, E.uint8])
def test_integer_max_pools_match_the_cpu_and_integer_average_refuses(dtype):
    # integers compute exactly on CUDA as on the CPU (int64 extremes included); the integer average
    # has no CUDA kernel (nor in PyTorch): a clean NotImplementedError
    import numpy as np

    a = np.array([[[[2**62, -2**63, 5, 7], [2**63 - 1, 0, -1, 3], [4, 4, -2**63, 9]]]], dtype=np.int64)
    x = E.tensor(a).to(dtype)
    for fn in (lambda t: E.max_pool2d(t, 2, 1, 1, return_indices=True),
               lambda t: E.max_pool1d(t[0], 3, 2, 1, return_indices=True),
               lambda t: E.max_pool3d(t.unsqueeze(0), (1, 2, 2), 1, return_indices=True)):
        want = fn(x)
        got = fn(x.to("cuda"))
        for g, w in zip(got, want, strict=True):
            assert g.device.type == "cuda" and g.dtype is w.dtype
            assert g.cpu().tolist() == w.tolist()
    if dtype is E.int64:
        with pytest.raises(NotImplementedError, match="\"avg_pool2d_out_cuda_frame\" not implemented for 'Long'"):
            E.avg_pool2d(x.to("cuda"), 2)
    with pytest.raises(NotImplementedError, match="not implemented for"):
        E.adaptive_avg_pool2d(x.to("cuda"), 2)
    with pytest.raises(NotImplementedError, match="\"softmax_lastdim_kernel_impl\" not implemented for"):
        E.softmax(x.to("cuda"), -1)


def test_uint8_nearest_interpolation_and_norm_refusals_on_cuda():
    x = E.tensor([[[[1, 200], [30, 255]]]], dtype=E.uint8)
    got = E.interpolate(x.to("cuda"), size=(3, 5))
    assert got.device.type == "cuda" and got.dtype is E.uint8
    assert got.cpu().tolist() == E.interpolate(x, size=(3, 5)).tolist()
    with pytest.raises(NotImplementedError, match="uint8 'bilinear' on the CPU only"):
        E.interpolate(x.to("cuda"), size=(3, 5), mode="bilinear")
    with pytest.raises(NotImplementedError, match="\"LayerNormKernelImpl\" not implemented for 'Long'"):
        E.layer_norm(E.ones(2, 3, dtype=E.int64).to("cuda"), (3,))


@pytest.mark.parametrize("dtype", [E.float32, E.int8])
def test_a_max_pool_window_with_no_tap_inside_the_input_matches_the_cpu(dtype):
    x = E.tensor([[1.0], [2.0], [3.0]]).to(dtype)
    want = E.max_pool1d(x, 2, 3, 1, 2, True, True)
    got = E.max_pool1d(x.to("cuda"), 2, 3, 1, 2, True, True)
    for g, w in zip(got, want, strict=True):
        assert g.cpu().tolist() == w.tolist()
