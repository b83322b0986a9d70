"""`torch.fake_quantize_per_tensor_affine` and `torch.fake_quantize_per_channel_affine`: quantize then dequantize
in the input's dtype, for quantization-aware training. The gradient is PyTorch's straight-through one: the
incoming gradient where the rounded value lies in [quant_min, quant_max], zero where it was clamped."""

from __future__ import annotations

import numpy as np

import ember.core as E
from ember.autograd.function import Function, once_differentiable
from ember.core import Tensor, dtypes

__all__ = ["fake_quantize_per_tensor_affine", "fake_quantize_per_channel_affine"]


def _check_range(quant_min: int, quant_max: int) -> None:
    if quant_min > quant_max:
        raise RuntimeError("`quant_min` should be less than or         equal to `quant_max`.")


def _check_input(input: Tensor) -> None:
    if not input.dtype.is_floating_point:
        name = dtypes.TORCH_NAMES.get(input.dtype.name, input.dtype.name)
        raise NotImplementedError(
            f"\"fake_quantize_tensor_cachemask_kernel_type_handling\" not implemented for '{name}'")


def _quantize(x: Tensor, inv_scale, zero_point, quant_min: int, quant_max: int, scale):
    """(dequantized value, in-range mask): zero_point + nearbyint(x * inv_scale), clamped, shifted back, scaled."""
    q = E.round(x * inv_scale) + zero_point
    mask = (q >= quant_min) & (q <= quant_max)
    return (E.clamp(q, quant_min, quant_max) - zero_point) * scale, mask


class _FakeQuantize(Function):
    @staticmethod
    def forward(ctx, input, inv_scale, zero_point, quant_min, quant_max, scale):
        out, mask = _quantize(input, inv_scale, zero_point, quant_min, quant_max, scale)
        ctx.save_for_backward(mask)
        return out.to(input.dtype)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        return grad * mask, None, None, None, None, None


class _FakeQuantizeTensorQparams(_FakeQuantize):
    pass


class _FakeQuantizePerChannel(_FakeQuantize):
    pass


# PyTorch's node names
_FakeQuantize._backward_cls.__name__ = "FakeQuantizePerTensorAffineCachemaskBackward0"
_FakeQuantizeTensorQparams._backward_cls.__name__ = "FakeQuantizePerTensorAffineCachemaskTensorQparamsBackward0"
_FakeQuantizePerChannel._backward_cls.__name__ = "FakeQuantizePerChannelAffineCachemaskBackward0"


def fake_quantize_per_tensor_affine(input: Tensor, scale, zero_point, quant_min: int, quant_max: int) -> Tensor:
    """Round `input` to the grid `scale * (q - zero_point)`, q an integer in [quant_min, quant_max].

    Args:
        input: a floating tensor of any shape.
        scale: a float (or one-element tensor); zero_point: an int (or one-element int32 tensor).
        quant_min, quant_max: the integer range, e.g. -128 and 127.
    Returns:
        a tensor of `input`'s shape and dtype; its gradient passes where no clamping happened.
    Raises:
        RuntimeError: quant_min > quant_max, or zero_point outside [quant_min, quant_max].

    >>> import ember.autograd as torch
    >>> torch.fake_quantize_per_tensor_affine(torch.tensor([0.26, -1.0]), 0.1, 0, -5, 5).tolist()
    [0.30000001192092896, -0.5]
    """
    _check_input(input)
    _check_range(quant_min, quant_max)
    fn = _FakeQuantizeTensorQparams if isinstance(scale, Tensor) else _FakeQuantize
    scale = float(scale.item() if isinstance(scale, Tensor) else scale)
    zero_point = int(zero_point.item() if isinstance(zero_point, Tensor) else zero_point)
    if not quant_min <= zero_point <= quant_max:
        raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
    inv_scale = float(np.float32(1.0) / np.float32(scale))  # PyTorch multiplies by the float32 reciprocal
    return fn.apply(input, inv_scale, zero_point, quant_min, quant_max, scale)


def fake_quantize_per_channel_affine(input: Tensor, scale: Tensor, zero_point: Tensor, axis: int, quant_min: int,
                                     quant_max: int) -> Tensor:
    """Per-channel `fake_quantize_per_tensor_affine`: channel i along `axis` uses scale[i] and zero_point[i].

    Args:
        input: a floating tensor; scale: (C,) float; zero_point: (C,) int32, float or half; axis: the channel dim.
    Raises:
        RuntimeError: a zero_point of another dtype, sizes that differ from the channel count, a bad range.
    """
    _check_input(input)
    if zero_point.dtype not in (dtypes.int32, dtypes.float32, dtypes.float16):
        name = dtypes.TORCH_NAMES.get(zero_point.dtype.name, zero_point.dtype.name)
        raise RuntimeError(f"Zero-point must be Int32, Float or Half, found {name}")
    _check_range(quant_min, quant_max)
    axis = axis + input.dim() if axis < 0 else axis
    if scale.dim() != 1 or zero_point.dim() != 1 or scale.numel() != zero_point.numel():
        raise RuntimeError("scale and zero_point need to have the same dimensions")
    if scale.numel() != input.shape[axis]:
        raise RuntimeError("dimensions of scale and zero-point are not consistent with input tensor")
    zps = zero_point.tolist()
    if any(not quant_min <= z <= quant_max for z in zps):
        raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
    shape = [1] * input.dim()
    shape[axis] = -1
    scale = scale.detach().to(input.dtype).reshape(shape)
    zero_point = zero_point.detach().to(input.dtype).reshape(shape)
    return _FakeQuantizePerChannel.apply(input, 1.0 / scale, zero_point, quant_min, quant_max, scale)
