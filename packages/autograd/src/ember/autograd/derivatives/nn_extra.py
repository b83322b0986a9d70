"""Derivatives of the sampling, CTC and unpooling kernels (grid_sampler, ctc_loss, ...).

grid_sampler's backward is differentiable again, as PyTorch's (an eikonal loss on a grid-sampled field), through
its forward recomputed with ops; ctc_loss's is not, as PyTorch's is not: its rule raises when a second
derivative is asked for.
"""

from __future__ import annotations

import math

from ember.core.dispatch import get_op, node_name

from ember.autograd.derivatives import _recompute as rc
from ember.autograd.derivatives._entry import derivative as d
from ember.autograd.grad_mode import is_grad_enabled

__all__ = ["ENTRIES"]


def _grid_sampler(grad, input, grid, interpolation_mode, padding_mode, align_corners):
    r = get_op("grid_sampler_backward")(grad, input, grid, interpolation_mode, padding_mode, align_corners)
    if input.ndim == 5:  # recorded under create_graph: PyTorch's 3-D node name (one op serves both ranks)
        node_name(r[0], "GridSampler2DBackwardBackward0", "GridSampler3DBackwardBackward0")
    return r


def _grid_sampler_double(grads, grad_output, input, grid, interpolation_mode, padding_mode, align_corners):
    fn = rc.grid_sampler_fn(interpolation_mode, padding_mode, align_corners)
    return tuple(rc.second_order(fn, grad_output, [input, grid], list(grads)))


def _max_unpool(grad, indices, input_shape, output_size):
    """The gradient of each unpooled value: `grad` read at its index."""
    nd = len(output_size)
    planes = math.prod(input_shape[:-nd])
    g = grad.reshape(planes, math.prod(output_size)).gather(1, indices.reshape(planes, math.prod(input_shape[-nd:])))
    return g.reshape(tuple(input_shape))


def _ctc_loss(grad, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity, result0, result1):
    return get_op("ctc_loss_backward")(grad, log_probs, targets, input_lengths, target_lengths, result0, result1,
                                       blank, zero_infinity)


def _ctc_loss_double():
    """PyTorch records CTC's backward as its `NotImplemented` node, which refuses a second derivative."""
    raise RuntimeError("derivative for aten::_ctc_loss_backward is not implemented")


def _fractional_max_pool(grad, result1, input, kernel_size):
    """max_pool2d_backward's scatter-add by index, over planes flattened to `(*, 1, prod(spatial))`; under
    `create_graph` it takes the input too, whose gradient is zero (PyTorch's `self: zeros_like(self)`)."""
    nd = len(kernel_size)
    input_shape = tuple(input._shape)
    lead = input_shape[:-nd]
    flat = lead + (1, math.prod(input_shape[-nd:]))
    g = get_op("max_pool2d_backward")(grad.reshape(lead + (1, -1)), result1.reshape(lead + (1, -1)), flat,
                                      input.reshape(flat) if is_grad_enabled() else None)
    return g.reshape(input_shape)


ENTRIES = [
    d("grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)",
      name="GridSampler2DBackward0", **{"input, grid": _grid_sampler}),
    d("grid_sampler_backward(grad_output, input, grid, interpolation_mode, padding_mode, align_corners)",
      name="GridSampler2DBackwardBackward0",
      **{"grad_output, input, grid": _grid_sampler_double}),
    d("ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity)", name="CtcLossBackward0",
      targets=None, log_probs=_ctc_loss),
    d("ctc_loss_backward(grad, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood, log_alpha, "
      "blank, zero_infinity)", name="NotImplemented", targets=None,
      **{"grad, log_probs, log_alpha, neg_log_likelihood": _ctc_loss_double}),
    d("fractional_max_pool(input, kernel_size, output_size, samples)", name="FractionalMaxPoolBackward0",
      samples=None, input=_fractional_max_pool),
    d("max_unpool(input, indices, output_size)", name="MaxUnpoolBackward0", indices=None, input=_max_unpool),
]
