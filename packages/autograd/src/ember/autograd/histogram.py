"""`histogram` and `histogramdd` of tensors that require grad: PyTorch records its `NotImplemented` node on the
results (counts and bin edges alike), whose backward refuses naming the aten op; the counting itself is core's."""

from __future__ import annotations

import ember.core as E
from ember.core import Tensor
from ember.core.methods import attach
from ember.core.ops.structseq import return_types

from ember.autograd.function import Function, cpp_node
from ember.autograd.grad_mode import is_grad_enabled

__all__ = ["histogram", "histogramdd"]


class _NotImplemented(Function):
    """Outputs `fn(*args)`'s tensors, flattened; backward raises PyTorch's words for `op`."""

    @staticmethod
    def forward(ctx, op, fn, args, kwargs, *tensors):
        ctx.op = op
        hist, edges = fn(*args, **kwargs)
        return (hist, edges) if isinstance(edges, Tensor) else (hist, *edges)

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(f"derivative for aten::{ctx.op} is not implemented")


cpp_node(_NotImplemented, "NotImplemented")


def _tracked(op: str, fn, args, kwargs, tensors):
    """`fn(*args, **kwargs)`, recorded on a `NotImplemented` node when grad mode is on and a tensor requires grad."""
    tensors = [t for t in tensors if isinstance(t, Tensor)]
    if not (is_grad_enabled() and any(t.requires_grad for t in tensors)):
        return fn(*args, **kwargs)
    hist, *edges = _NotImplemented.apply(op, fn, args, kwargs, *tensors)
    if op == "histogram":
        return return_types.histogram((hist, edges[0]))
    return return_types.histogramdd((hist, tuple(edges)))


def histogram(input: Tensor, bins=100, *, range=None, weight=None, density: bool = False, out=None):  # noqa: A002
    """core's `histogram`; its results carry PyTorch's refusing node when input, bins or weight requires grad."""
    kwargs = {"range": range, "weight": weight, "density": density, "out": out}
    return _tracked("histogram", E.histogram, (input, bins), kwargs,
                    (input, bins, weight))


def histogramdd(input: Tensor, bins=10, *, range=None, weight=None, density: bool = False):  # noqa: A002
    """core's `histogramdd`; its results carry PyTorch's refusing node when an input requires grad."""
    edges = list(bins) if isinstance(bins, list | tuple) else []
    kwargs = {"range": range, "weight": weight, "density": density}
    return _tracked("_histogramdd_from_bin_tensors" if edges and isinstance(edges[0], Tensor) else
                    "_histogramdd_from_bin_cts", E.histogramdd, (input, bins), kwargs, (input, weight, *edges))


attach("histogram", histogram, replace=True)
