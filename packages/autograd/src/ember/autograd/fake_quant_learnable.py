"""`torch._fake_quantize_learnable_per_tensor_affine` and `..._per_channel_affine`: fake quantization whose scale
and zero_point learn too (LSQ; what `torch.ao`'s learnable FakeQuantize calls). Forward rounds zero_point to an
integer and fake-quantizes as the non-learnable ops do; backward is PyTorch's: the straight-through gradient for
the input, and for the qparams

    clamped below/above: dscale = dy * (quant_min or quant_max - zp),  dzero_point = -dy * scale
    in range:            dscale = dy * (fake_quantized - x) / scale,    dzero_point = 0

each times grad_factor, summed per tensor (or per channel along `axis`)."""

from __future__ import annotations

import ember.core as E
from ember.autograd.fake_quant import (_cpp_node, _past_int64, fake_quantize_per_channel_affine,
                                      fake_quantize_per_tensor_affine)
from ember.autograd.function import Function, once_differentiable
from ember.core import Tensor

__all__ = ["_fake_quantize_learnable_per_tensor_affine", "_fake_quantize_learnable_per_channel_affine"]


def _qparam_grads(x, scale, zp, quant_min, quant_max, grad_factor, grad, q):
    """(dx, dscale, dzero_point) elementwise, q being the unclamped integer grid value of x. PyTorch's kernels cast q
    to int64, which on x86 turns NaN, infinities and values past int64's range into INT64_MIN: those elements
    count as clamped below."""
    q = E.where(_past_int64(q), -2.0 ** 63, q)
    inside = (q >= quant_min) & (q <= quant_max)
    fq = (E.clamp(q, quant_min, quant_max) - zp) * scale
    edge = E.where(q < quant_min, quant_min - zp, quant_max - zp)
    dscale = E.where(inside, grad * (fq - x) * (1.0 / scale), grad * edge) * grad_factor
    dzp = E.where(inside, E.zeros_like(grad), -grad * scale * grad_factor)
    return grad * inside, dscale, dzp


class _LearnablePerTensor(Function):
    @staticmethod
    def forward(ctx, input, scale, zero_point, quant_min, quant_max, grad_factor):
        s = float(scale[0].item())  # PyTorch reads element 0
        zp = min(max(round(float(zero_point[0].item())), quant_min), quant_max)  # nearbyint, half to even
        ctx.save_for_backward(input, scale, zero_point)
        ctx.qparams = (quant_min, quant_max, grad_factor)
        return fake_quantize_per_tensor_affine(input.detach(), s, int(zp), quant_min, quant_max)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        x, scale, zero_point = ctx.saved_tensors
        quant_min, quant_max, grad_factor = ctx.qparams
        s = E.tensor(float(scale[0].item()), dtype=E.float32)
        zp = int(min(max(float(zero_point[0].item()) + 0.5, quant_min), quant_max))  # backward truncates zp + 0.5
        q = E.round(x * (1.0 / s)) + zp
        dx, dscale, dzp = _qparam_grads(x, s, zp, quant_min, quant_max, grad_factor, grad, q)
        return (dx, dscale.sum().reshape(1).sum_to_size(scale.shape).to(scale.dtype),
                dzp.sum().reshape(1).sum_to_size(zero_point.shape).to(zero_point.dtype), None, None, None)


class _LearnablePerChannel(Function):
    @staticmethod
    def forward(ctx, input, scale, zero_point, axis, quant_min, quant_max, grad_factor):
        zp = E.clamp(E.round(zero_point.detach()), quant_min, quant_max)
        ctx.save_for_backward(input, scale, zp)
        ctx.qparams = (axis, quant_min, quant_max, grad_factor)
        return fake_quantize_per_channel_affine(input.detach(), scale.detach(), zp.to(E.int32), axis, quant_min,
                                                quant_max)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        x, scale, zp = ctx.saved_tensors
        axis, quant_min, quant_max, grad_factor = ctx.qparams
        shape = [1] * x.dim()
        shape[axis] = -1
        s, z = scale.float().reshape(shape), zp.float().reshape(shape)
        q = E.round(z + x * (1.0 / s))  # the per-channel kernel rounds zp + x / scale
        dx, dscale, dzp = _qparam_grads(x, s, z, quant_min, quant_max, grad_factor, grad, q)
        others = [d for d in range(x.dim()) if d != axis]
        return (dx, dscale.sum(others).to(scale.dtype), dzp.sum(others).to(zp.dtype), None, None, None, None)


_cpp_node(_LearnablePerTensor, "FakeQuantizeLearnablePerTensorAffineBackward0")
_cpp_node(_LearnablePerChannel, "FakeQuantizeLearnablePerChannelAffineBackward0")


def _fake_quantize_learnable_per_tensor_affine(self: Tensor, scale: Tensor, zero_point: Tensor, quant_min: int,
                                               quant_max: int, grad_factor: float = 1.0) -> Tensor:
    """`fake_quantize_per_tensor_affine(self, scale[0], nearbyint(zero_point[0]) clamped, ...)` with gradients for
    scale and zero_point (see the module docstring); `grad_factor` scales those two only."""
    if scale.dim() == 0 or zero_point.dim() == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    return _LearnablePerTensor.apply(self, scale, zero_point, quant_min, quant_max, grad_factor)


def _fake_quantize_learnable_per_channel_affine(self: Tensor, scale: Tensor, zero_point: Tensor, axis: int,
                                                quant_min: int, quant_max: int, grad_factor: float = 1.0) -> Tensor:
    """Per-channel `_fake_quantize_learnable_per_tensor_affine`: zero_point rounded (half to even) and clamped
    per channel, the qparam gradients summed over every dim but `axis`."""
    return _LearnablePerChannel.apply(self, scale, zero_point, axis, quant_min, quant_max, grad_factor)
