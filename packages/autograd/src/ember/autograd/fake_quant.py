"""`torch.fake_quantize_per_tensor_affine` and `torch.fake_quantize_per_channel_affine`: quantize then dequantize
in the input's dtype, for quantization-aware training. The gradient is PyTorch's straight-through one: the
incoming gradient where the rounded value lies in [quant_min, quant_max], zero where it was clamped; scale and
zero_point are not differentiable (the `_fake_quantize_learnable_*` ops of fake_quant_learnable.py are)."""

from __future__ import annotations

import numpy as np

import ember.core as E
from ember.autograd.function import Function, cpp_node as _cpp_node, once_differentiable
from ember.autograd.grad_mode import refuse_grad
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


def _kind(v) -> str:
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


def _check_overloads(input, scale, zero_point, quant_min, quant_max) -> None:
    """The TypeError of PyTorch's argument parser when neither (Tensor, Tensor, Tensor, int, int) nor
    (Tensor, float, int, int, int) fits, e.g. a Python float zero_point."""
    args = (input, scale, zero_point, quant_min, quant_max)

    def is_int(v):
        return isinstance(v, (int, np.integer)) and not isinstance(v, bool)

    def is_float(v):
        return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)

    overloads = [("(Tensor input, Tensor scale, Tensor zero_point, int quant_min, int quant_max)",
                  (Tensor, Tensor, Tensor, is_int, is_int)),
                 ("(Tensor input, float scale, int zero_point, int quant_min, int quant_max)",
                  (Tensor, is_float, is_int, is_int, is_int))]
    lines = []
    for sig, checks in overloads:
        ok = [isinstance(a, c) if isinstance(c, type) else c(a) for a, c in zip(args, checks)]
        if all(ok):
            return
        marked = ", ".join(_kind(a) if good else f"!{_kind(a)}!" for a, good in zip(args, ok))
        lines.append(f" * {sig}\n      didn't match because some of the arguments have invalid types: ({marked})\n")
    got = ", ".join(_kind(a) for a in args)
    raise TypeError(f"fake_quantize_per_tensor_affine() received an invalid combination of arguments - got ({got}),"
                    " but expected one of:\n" + "".join(lines))


def _past_int64(q: Tensor) -> Tensor:
    """Where a cast of q to int64 gives x86's INT64_MIN (PyTorch's kernels cast the grid value): NaN, the
    infinities and values past int64's range."""
    return ~(E.isfinite(q) & (E.abs(q) < 2.0 ** 63))


def _quantize(x: Tensor, inv_scale, zero_point, quant_min: int, quant_max: int, scale):
    """(dequantized value, in-range mask): zero_point + nearbyint(x * inv_scale), clamped, shifted back, scaled.
    A NaN lands on quant_min, as PyTorch's fmax/fmin clamp leaves it; the per-channel kernel (a tensor inv_scale)
    casts to int64 before clamping, so an infinity or a value past int64's range lands there too."""
    q = E.round(x * inv_scale) + zero_point
    mask = (q >= quant_min) & (q <= quant_max)
    low = E.isnan(q) if not isinstance(inv_scale, Tensor) else _past_int64(q)
    q = E.where(low, float(quant_min), E.clamp(q, quant_min, quant_max))
    return (q - zero_point) * scale, mask


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


class _FakeQuantizePerChannelFloatZp(_FakeQuantize):
    """A float zero_point joins before rounding: q = lrintf(zp + x * (1 / scale)), the sum rounded to float32;
    then (clamp(q) - zp) * scale in float64 (PyTorch's fmin/fmax of an int64 promote to double), cast to the input's
    dtype, so the result is the correctly rounded value of the float32 qparams' product."""

    @staticmethod
    def forward(ctx, input, scale, zero_point, quant_min, quant_max):
        x = input if input.dtype == dtypes.float64 else input.float()
        q = E.round((x * (1.0 / scale) + zero_point).float())
        mask = (q >= quant_min) & (q <= quant_max)
        ctx.save_for_backward(mask)
        q = E.where(_past_int64(q), float(quant_min), E.clamp(q, quant_min, quant_max)).double()  # lrintf's LONG_MIN
        return ((q - zero_point.double()) * scale.double()).to(input.dtype)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        return grad * mask, None, None, None, None


_cpp_node(_FakeQuantize, "FakeQuantizePerTensorAffineCachemaskBackward0")
_cpp_node(_FakeQuantizeTensorQparams, "FakeQuantizePerTensorAffineCachemaskTensorQparamsBackward0")
_cpp_node(_FakeQuantizePerChannel, "FakeQuantizePerChannelAffineCachemaskBackward0")
_cpp_node(_FakeQuantizePerChannelFloatZp, "FakeQuantizePerChannelAffineCachemaskBackward0")


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
    _check_overloads(input, scale, zero_point, quant_min, quant_max)
    refuse_grad("_fake_quantize_per_tensor_affine_cachemask_tensor_qparams", scale=scale, zero_point=zero_point)
    _check_input(input)
    _check_range(quant_min, quant_max)
    fn = _FakeQuantizeTensorQparams if isinstance(scale, Tensor) else _FakeQuantize
    scale = float(scale.item() if isinstance(scale, Tensor) else scale)
    zero_point = int(zero_point.item() if isinstance(zero_point, Tensor) else zero_point)
    if not quant_min <= zero_point <= quant_max:
        raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
    with np.errstate(divide="ignore"):  # a zero scale: an infinite reciprocal, silently, as PyTorch's
        inv_scale = float(np.float32(1.0) / np.float32(scale))  # PyTorch multiplies by the float32 reciprocal
    return fn.apply(input, inv_scale, zero_point, quant_min, quant_max, scale)


def fake_quantize_per_channel_affine(input: Tensor, scale: Tensor, zero_point: Tensor, axis: int, quant_min: int,
                                     quant_max: int) -> Tensor:
    """Per-channel `fake_quantize_per_tensor_affine`: channel i along `axis` uses scale[i] and zero_point[i].

    An int32 zero_point adds to the rounded value (and must lie in the range); a float or half one is added before
    rounding, clamp(nearbyint(x / scale + zero_point)) - zero_point, and may lie anywhere, as in PyTorch.

    Args:
        input: a floating tensor; scale: (C,) float32 or bfloat16; zero_point: (C,) int32, float or half;
        axis: the channel dim, in [0, input.dim()).
    Raises:
        RuntimeError: qparams of another dtype or shape, sizes that differ from the channel count, a bad range or
        axis, or qparams that require grad.
        IndexError: an axis outside the input's dims.
    """
    refuse_grad("fake_quantize_per_channel_affine_cachemask", scale=scale, zero_point=zero_point)
    _check_input(input)
    if scale.dtype not in (dtypes.float32, dtypes.bfloat16):
        raise RuntimeError(f"Scale must be Float or BFloat16, found {dtypes.TORCH_NAMES[scale.dtype.name]}")
    if zero_point.dtype not in (dtypes.int32, dtypes.float32, dtypes.float16):
        name = dtypes.TORCH_NAMES.get(zero_point.dtype.name, zero_point.dtype.name)
        raise RuntimeError(f"Zero-point must be Int32, Float or Half, found {name}")
    if scale.dim() != 1:
        raise RuntimeError("scale should be a 1-D tensor")
    if zero_point.dim() != 1:
        raise RuntimeError("zero point should be a 1-D tensor")
    if scale.numel() != zero_point.numel():
        raise RuntimeError("scale and zero-point need to have the same dimensions")
    if input.dim() == 0:
        raise IndexError(f"Dimension specified as {axis} but tensor has no dimensions")
    if scale.numel() != input.shape[input._wrap_dim(axis)]:
        raise RuntimeError("dimensions of scale and zero-point are not consistent with input tensor")
    _check_range(quant_min, quant_max)
    float_zp = zero_point.dtype.is_floating_point
    if not float_zp and any(not quant_min <= z <= quant_max for z in zero_point.tolist()):
        raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
    if not 0 <= axis <= input.dim():
        raise RuntimeError("`axis` must be between 0 and number of dimensions of input")
    shape = [1] * input.dim()
    shape[axis] = -1
    if float_zp:
        return _FakeQuantizePerChannelFloatZp.apply(input, scale.detach().float().reshape(shape),
                                                     zero_point.detach().float().reshape(shape), quant_min, quant_max)
    scale = scale.detach().to(input.dtype).reshape(shape)
    zero_point = zero_point.detach().to(input.dtype).reshape(shape)
    return _FakeQuantizePerChannel.apply(input, 1.0 / scale, zero_point, quant_min, quant_max, scale)
