"""`torch.nn.grad`: the gradients of a convolution w.r.t. its input and its weight, as functions.

Each is the vector-Jacobian product of the forward convolution, taken by autograd (exact, and
differentiable again when the arguments require grad); conv3d's need `F.conv3d`.
"""

from __future__ import annotations

from ember import autograd as ea
from ember.core import Tensor

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]


def _vjp(conv: str, wrt: str, input: Tensor, weight: Tensor, grad_output: Tensor, stride, padding, dilation,
         groups: int) -> Tensor:
    from ember.nn import functional as F

    fn = getattr(F, conv, None)
    if fn is None:
        raise NotImplementedError(f"torch.nn.grad: F.{conv} is not available in this ember")
    leaf = (input if wrt == "input" else weight).detach().requires_grad_(True)
    args = (leaf, weight) if wrt == "input" else (input, leaf)
    create = ea.is_grad_enabled() and any(t.requires_grad for t in (input, weight, grad_output))
    with ea.enable_grad():
        out = fn(*args, None, stride, padding, dilation, groups)
        (g,) = ea.autograd.grad(out, leaf, grad_output, create_graph=create)
    return g


def _input(conv: str, input_size, weight: Tensor, grad_output: Tensor, stride, padding, dilation, groups) -> Tensor:
    x = ea.zeros(tuple(input_size), dtype=weight.dtype, device=weight.device)
    return _vjp(conv, "input", x, weight, grad_output, stride, padding, dilation, groups)


def _weight(conv: str, input: Tensor, weight_size, grad_output: Tensor, stride, padding, dilation, groups) -> Tensor:
    w = ea.zeros(tuple(weight_size), dtype=input.dtype, device=input.device)
    return _vjp(conv, "weight", input, w, grad_output, stride, padding, dilation, groups)


def conv1d_input(input_size, weight: Tensor, grad_output: Tensor, stride=1, padding=0, dilation=1,
                 groups: int = 1) -> Tensor:
    """The gradient of conv1d w.r.t. an input of `input_size` `(N, C_in, L)`."""
    return _input("conv1d", input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(input: Tensor, weight_size, grad_output: Tensor, stride=1, padding=0, dilation=1,
                  groups: int = 1) -> Tensor:
    """The gradient of conv1d w.r.t. a weight of `weight_size` `(C_out, C_in / groups, k)`."""
    return _weight("conv1d", input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(input_size, weight: Tensor, grad_output: Tensor, stride=1, padding=0, dilation=1,
                 groups: int = 1) -> Tensor:
    """The gradient of conv2d w.r.t. an input of `input_size` `(N, C_in, H, W)`."""
    return _input("conv2d", input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(input: Tensor, weight_size, grad_output: Tensor, stride=1, padding=0, dilation=1,
                  groups: int = 1) -> Tensor:
    """The gradient of conv2d w.r.t. a weight of `weight_size` `(C_out, C_in / groups, kH, kW)`."""
    return _weight("conv2d", input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(input_size, weight: Tensor, grad_output: Tensor, stride=1, padding=0, dilation=1,
                 groups: int = 1) -> Tensor:
    """The gradient of conv3d w.r.t. an input of `input_size` `(N, C_in, D, H, W)`."""
    return _input("conv3d", input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(input: Tensor, weight_size, grad_output: Tensor, stride=1, padding=0, dilation=1,
                  groups: int = 1) -> Tensor:
    """The gradient of conv3d w.r.t. a weight of `weight_size` `(C_out, C_in / groups, kD, kH, kW)`."""
    return _weight("conv3d", input, weight_size, grad_output, stride, padding, dilation, groups)
