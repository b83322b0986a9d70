"""conv2d, its backward ops and conv_transpose2d on both devices (im2col + tiled GEMM on CUDA):
CUDA must match the CPU, with stride, padding, dilation and groups. CUDA simulator, tiny shapes."""

from __future__ import annotations

import pytest

import ember.core as E
from ember.core.dispatch import get_op
from ember.core.testing import assert_close, make_tensor

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")]

DEVICES = ["cpu", "cuda"]
CASES = [((1, 1), (0, 0), (1, 1), 1), ((2, 1), (1, 1), (1, 1), 1), ((1, 1), (1, 0), (2, 1), 2)]


def _on(t, device):
    return t.to(device) if isinstance(t, E.Tensor) and device != "cpu" else t


def _both(fn, device, *args):
    expected = fn(*args)
    actual = fn(*(_on(a, device) for a in args))
    assert actual.device.type == device
    assert_close(actual, _on(expected, device), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("stride", "padding", "dilation", "groups"), CASES)
def test_conv2d_and_backward_match_cpu(stride, padding, dilation, groups, device):
    x = make_tensor(2, 2, 5, 4, seed=1, noncontiguous=True)
    w = make_tensor(4, 2 // groups, 3, 2, seed=2)
    b = make_tensor(4, seed=3)
    args = (stride, padding, dilation, groups)
    _both(lambda xx, ww, bb: get_op("conv2d")(xx, ww, bb, *args), device, x, w, b)
    y = get_op("conv2d")(x, w, None, *args)
    g = make_tensor(*y.shape, seed=4)
    _both(lambda gg, ww: get_op("conv2d_backward_input")(gg, ww, x.shape, *args), device, g, w)
    _both(lambda gg, xx: get_op("conv2d_backward_weight")(gg, xx, w.shape, *args), device, g, x)


@pytest.mark.parametrize("device", DEVICES)
def test_conv_transpose2d_and_functional_conv(device):
    x = make_tensor(1, 2, 3, 3, seed=5)
    w = make_tensor(2, 3, 2, 2, seed=6)
    b = make_tensor(3, seed=7)
    _both(lambda xx, ww, bb: get_op("conv_transpose2d")(xx, ww, bb, (2, 2), (0, 0), (1, 1), 1, (1, 1)),
          device, x, w, b)
    w2 = make_tensor(3, 2, 2, 2, seed=8)
    _both(lambda xx, ww: E.conv2d(xx, ww, padding=1), device, x, w2)


@pytest.mark.parametrize("fn", ["conv1d", "conv_transpose1d"])
def test_integer_conv_on_cuda_raises_naming_op_and_dtype(fn):
    x = E.ones(1, 1, 4, dtype=E.int64, device="cuda")
    w = E.ones(1, 1, 2, dtype=E.int64, device="cuda")
    with pytest.raises(NotImplementedError, match=rf"^{fn}: no CUDA kernel for int64 input"):
        getattr(E, fn)(x, w)
