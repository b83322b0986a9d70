"""`torch.nn.grad`: the gradients of a convolution with respect to its input and its weight, given the
gradient of its output (for custom backward passes), computed through ember's convolution derivatives."""

from __future__ import annotations

from ember import autograd as ea
from ember.core import Tensor
from ember.nn import functional as F

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]


def _conv(nd: int):
    return getattr(F, f"conv{nd}d")


def _input_grad(nd: int, input_size, weight: Tensor, grad_output: Tensor, stride, padding, dilation,
                groups: int) -> Tensor:
    x = ea.zeros(tuple(input_size), dtype=weight.dtype, device=weight.device, requires_grad=True)
    with ea.enable_grad():
        out = _conv(nd)(x, weight.detach(), None, stride, padding, dilation, groups)
    if tuple(out.shape) != tuple(grad_output.shape):
        raise RuntimeError(f"conv{nd}d_input: grad_output of shape {list(grad_output.shape)} does not match the "
                           f"convolution's output shape {list(out.shape)} for input_size {list(input_size)}")
    return ea.autograd.grad(out, x, grad_output)[0]


def _weight_grad(nd: int, input: Tensor, weight_size, grad_output: Tensor, stride, padding, dilation,
                 groups: int) -> Tensor:
    w = ea.zeros(tuple(weight_size), dtype=input.dtype, device=input.device, requires_grad=True)
    with ea.enable_grad():
        out = _conv(nd)(input.detach(), w, None, stride, padding, dilation, groups)
    if tuple(out.shape) != tuple(grad_output.shape):
        raise RuntimeError(f"conv{nd}d_weight: grad_output of shape {list(grad_output.shape)} does not match the "
                           f"convolution's output shape {list(out.shape)} for weight_size {list(weight_size)}")
    return ea.autograd.grad(out, w, grad_output)[0]


def conv1d_input(input_size, weight: Tensor, grad_output: Tensor, stride=1, padding=0, dilation=1,
                 groups: int = 1) -> Tensor:
    """d(loss)/d(input) of `conv1d` for an input of `input_size` (N, C_in, L)."""
    return _input_grad(1, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(input: Tensor, weight_size, grad_output: Tensor, stride=1, padding=0, dilation=1,
                  groups: int = 1) -> Tensor:
    """d(loss)/d(weight) of `conv1d` for a weight of `weight_size` (C_out, C_in / groups, k)."""
    return _weight_grad(1, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(input_size, weight: Tensor, grad_output: Tensor, stride=1, padding=0, dilation=1,
                 groups: int = 1) -> Tensor:
    """d(loss)/d(input) of `conv2d` for an input of `input_size` (N, C_in, H, W)."""
    return _input_grad(2, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(input: Tensor, weight_size, grad_output: Tensor, stride=1, padding=0, dilation=1,
                  groups: int = 1) -> Tensor:
    """d(loss)/d(weight) of `conv2d` for a weight of `weight_size` (C_out, C_in / groups, kH, kW)."""
    return _weight_grad(2, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(input_size, weight: Tensor, grad_output: Tensor, stride=1, padding=0, dilation=1,
                 groups: int = 1) -> Tensor:
    """d(loss)/d(input) of `conv3d` for an input of `input_size` (N, C_in, D, H, W)."""
    return _input_grad(3, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(input: Tensor, weight_size, grad_output: Tensor, stride=1, padding=0, dilation=1,
                  groups: int = 1) -> Tensor:
    """d(loss)/d(weight) of `conv3d` for a weight of `weight_size` (C_out, C_in / groups, kD, kH, kW)."""
    return _weight_grad(3, input, weight_size, grad_output, stride, padding, dilation, groups)
