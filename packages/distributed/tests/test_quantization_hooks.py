"""The quantization hooks' arithmetic (qparams, quantize, the dequantized mean) against PyTorch's observers
and hand-computed values; the hooks themselves run on 2 and 4 ranks in jobs/exchange.py."""

import numpy as np
import pytest

import ember.core as E
from ember.distributed import comm_hooks
from ember.distributed.quantization_hooks import (dequantize_mean, qparams, quantization_perchannel_hook,
                                                  quantization_pertensor_hook, quantize)


def test_qparams_widen_the_range_to_zero_and_round_the_zero_point():
    scale, zp = qparams(np.array([-1.0, 0.5, 0.0, -3.0], np.float32), np.array([2.0, 4.0, 0.0, -1.0], np.float32))
    np.testing.assert_array_equal(scale, np.float32([3 / 255, 4 / 255, np.finfo(np.float32).eps, 3 / 255]))
    # -(-1)/(3/255) = 85; a range without negatives has zero point 0; all-negative: 255
    np.testing.assert_array_equal(zp, np.float32([85, 0, 0, 255]))
    assert scale.dtype == np.float32 and zp.dtype == np.float32


def test_quantize_rounds_half_to_even_and_saturates():
    q = quantize(np.float32([0.5, 1.5, 2.5, -7.0, 300.0]), np.float32(1), np.float32(0))
    np.testing.assert_array_equal(q, np.uint8([0, 2, 2, 0, 255]))
    assert q.dtype == np.uint8


def test_dequantized_mean_is_close_to_the_mean():
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((3, 1000)).astype(np.float32)
    scales, zps = qparams(xs.min(1), xs.max(1))
    q = np.stack([quantize(x, s, z) for x, s, z in zip(xs, scales, zps)])
    mean = dequantize_mean(q, scales, zps)
    # each rank's value is within half a step of its own; the mean within the mean half step
    assert np.abs(mean - xs.mean(0)).max() <= scales.mean() / 2 + 1e-6


def test_hooks_refuse_other_dtypes():
    bucket = comm_hooks.GradBucket(0, E.zeros(4, dtype=E.float64), [E.zeros(4)], [0], True)
    with pytest.raises(TypeError, match="expected a float32 gradient bucket; got .*float64"):
        quantization_pertensor_hook(None, bucket)
    with pytest.raises(ValueError, match="bucket_size must be positive; got 0"):
        quantization_perchannel_hook(None, bucket, bucket_size=0)


@pytest.mark.torch
@pytest.mark.parametrize("per_channel", [False, True])
def test_qparams_and_quantize_match_torch(per_channel):
    torch = pytest.importorskip("torch")
    from torch.ao.quantization import MinMaxObserver, PerChannelMinMaxObserver
    x = (np.random.default_rng(1).standard_normal((4, 16)) * [[1], [1e-3], [50], [0]]).astype(np.float32)
    x[1] = np.abs(x[1])
    obs = PerChannelMinMaxObserver() if per_channel else MinMaxObserver()
    obs(torch.tensor(x))
    s_t, z_t = obs.calculate_qparams()
    if per_channel:
        scale, zp = qparams(x.min(1), x.max(1))
        q = quantize(x, scale[:, None], zp[:, None])
        ref = torch.clamp(torch.round(torch.tensor(x) / s_t[:, None]) + z_t[:, None], 0, 255).to(torch.uint8)
    else:
        scale, zp = qparams(np.float32([x.min()]), np.float32([x.max()]))
        q = quantize(x, scale[0], zp[0])
        ref = torch.clamp(torch.round(torch.tensor(x) / s_t) + z_t, 0, 255).to(torch.uint8)
    np.testing.assert_array_equal(scale, s_t.numpy().reshape(-1))
    np.testing.assert_array_equal(zp, z_t.numpy().astype(np.float32).reshape(-1))
    np.testing.assert_array_equal(q, ref.numpy())
