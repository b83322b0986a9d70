"""`call_for_per_sample_grads`: a module call whose backward leaves each trainable parameter's per-example
gradients in `grad_sample` and its `.grad` untouched (PyTorch's Expanded Weights API, the core of DP-SGD).

PyTorch swaps each parameter for an ExpandedWeight that every supported layer differentiates per sample; ember
runs the whole module as one custom Function whose backward takes torch.func's vmap over grad of
`<module(sample), grad_output slice>`, so any module whose samples do not interact gets per-sample gradients; a
trainable BatchNorm, whose samples do, is refused as in PyTorch."""

from __future__ import annotations

import functools
from typing import Any

from ember import autograd as ea
from ember.autograd.func import grad, vmap
from ember.core import Tensor
from ember.nn.func import functional_call
from ember.nn.modules.module import Module
from ember.nn.modules.normalization import _BatchNorm

__all__ = ["call_for_per_sample_grads"]


def call_for_per_sample_grads(module: Module, *, batch_size: int | None = None, loss_reduction: str = "sum",
                              batch_first: bool = True):
    """A function calling `module` whose backward sets `p.grad_sample` (shape `(N, *p.shape)`) for every parameter
    that requires grad; with `loss_reduction="mean"` they are scaled by the batch size N, undoing the mean's 1/N.

    Raises:
        RuntimeError: PyTorch's words for a bad `loss_reduction`, `batch_size` or module, a parameter whose
            `grad_sample` was not cleared, and inputs whose batch sizes disagree.
    """
    if loss_reduction not in ["sum", "mean"]:
        raise RuntimeError(f"Expected loss_reduction argument to be sum or mean, got {loss_reduction}")
    if not isinstance(module, Module):
        raise RuntimeError(f"Module passed must be nn.Module, got {type(module).__name__}")
    if not (batch_size is None or isinstance(batch_size, int)):
        raise RuntimeError(f"Batch size passed must be None or an integer, got {type(batch_size).__name__}")
    if batch_size is not None and batch_size < 1:
        raise RuntimeError(f"Batch size must be positive, got {batch_size}")
    for weight in module.parameters():
        if getattr(weight, "grad_sample", None) is not None:
            raise RuntimeError("Current Expanded Weights accumulates the gradients, which will be incorrect for "
                               "multiple calls without clearing gradients. Please clear out the grad_sample parameter "
                               f"of {weight} or post an issue to pytorch/pytorch to prioritize correct behavior")
    bdim = 0 if batch_first else 1

    @functools.wraps(module.forward)
    def wrapper(*args, **kwargs):
        if any(isinstance(m, _BatchNorm) and any(p.requires_grad for p in m.parameters()) for m in module.modules()):
            # a batch's statistics mix its samples: PyTorch has no per-sample rule for it
            raise RuntimeError("Expanded Weights encountered but cannot handle function batch_norm")
        batched = [v for v in (*args, *kwargs.values()) if isinstance(v, Tensor)]
        n = batch_size if batch_size is not None else _batch_size(batched, bdim)
        params = {name: p for name, p in module.named_parameters() if p.requires_grad}
        spec = _Spec(module, args, kwargs, bdim, n, loss_reduction, list(params))
        return _PerSample.apply(spec, len(batched), *batched, *params.values())

    return wrapper


def _batch_size(tensors: list[Tensor], bdim: int) -> int:
    size = None
    for t in tensors:
        n = t.shape[bdim]
        if size is not None and size != n:
            raise RuntimeError(f"When computing batch size, found at least one input with batch size {size} and one "
                               f"with batch size {n}. Please specify it explicitly using the batch size kwarg in "
                               "call_for_per_sample_grads")
        size = n
    if size is None:
        raise RuntimeError("Unable to find a tensor in the passed args and kwargs. They may not be pytree-able and "
                           "so ExpandedWeights cannot compute the batch size from the inputs. Please specify it "
                           "explicitly")
    return size


class _Spec:
    """One call's module, its non-tensor arguments and where its tensor arguments go back."""

    def __init__(self, module, args, kwargs, bdim, n, loss_reduction, names) -> None:
        self.module, self.args, self.kwargs = module, args, kwargs
        self.bdim, self.n, self.loss_reduction, self.names = bdim, n, loss_reduction, names

    def call(self, params: dict, tensors) -> Any:
        """The module on `tensors` in place of the call's tensor arguments, with `params`."""
        it = iter(tensors)
        args = tuple(next(it) if isinstance(a, Tensor) else a for a in self.args)
        kwargs = {k: next(it) if isinstance(v, Tensor) else v for k, v in self.kwargs.items()}
        return functional_call(self.module, params, args, kwargs)


class _PerSample(ea.Function):
    @staticmethod
    def forward(ctx, spec: _Spec, n_inputs: int, *tensors):
        ctx.spec, ctx.n_inputs = spec, n_inputs
        ctx.save_for_backward(*tensors)
        params = dict(zip(spec.names, (p.detach() for p in tensors[n_inputs:])))
        return spec.call(params, tensors[:n_inputs])

    @staticmethod
    def backward(ctx, grad_output):
        spec, k = ctx.spec, ctx.n_inputs
        saved = ctx.saved_tensors
        inputs, params = saved[:k], dict(zip(spec.names, (p.detach() for p in saved[k:])))
        if spec.names:
            def sample_loss(p, g, *sample):
                one = [t.unsqueeze(spec.bdim) for t in sample]
                return (spec.call(p, one) * g.unsqueeze(spec.bdim)).sum()

            with ea.enable_grad():
                per = vmap(grad(sample_loss), in_dims=(None, spec.bdim) + (spec.bdim,) * k)(
                    params, grad_output, *(t.detach() for t in inputs))
            scale = spec.n if spec.loss_reduction == "mean" else 1
            for name, p in zip(spec.names, saved[k:]):
                p.grad_sample = per[name] * scale if scale != 1 else per[name]
        wanted = [i for i, t in enumerate(inputs) if t.requires_grad]
        input_grads = [None] * k
        if wanted:
            with ea.enable_grad():
                xs = [t.detach().requires_grad_(t.requires_grad) for t in inputs]
                out = spec.call(params, xs)
                for i, g in zip(wanted, ea.grad(out, [xs[i] for i in wanted], grad_output)):
                    input_grads[i] = g
        return (None, None, *input_grads, *([None] * len(spec.names)))
