"""`clip_grad_norm_` and `clip_grad_value_`: in-place gradient clipping, as PyTorch."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable

from ember import autograd as ea
from ember.core import Tensor
from ember.core.sparse import _refusal

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def _as_list(parameters) -> list[Tensor]:
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def get_total_norm(tensors: Iterable[Tensor], norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The `norm_type`-norm of all `tensors` together, as if concatenated into one vector."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)  # first, as PyTorch's: a norm_type such as 'l2' fails even with no gradients
    if not tensors:
        return ea.tensor(0.0)
    with ea.no_grad():
        # a complex gradient's norm is its moduli's, real (float32 for complex64), as PyTorch's vector_norm
        tensors = [t.abs() if t.is_complex() else t for t in tensors]
        for t in tensors:
            if not t.is_floating_point():
                ea.vector_norm(t, norm_type)  # vector_norm's RuntimeError for an integer or bool gradient
        if norm_type == math.inf:
            total = ea.stack([ea.vector_norm(t, norm_type).to(ea.float64) for t in tensors]).max().to(
                tensors[0].dtype)
        else:  # PyTorch's: each tensor's norm in its dtype, then the norm of their stack
            norms = ea.stack([ea.vector_norm(t.to(ea.float64), norm_type).to(t.dtype) for t in tensors])
            total = ea.vector_norm(norms.to(ea.float64), norm_type).to(norms.dtype)
    if error_if_nonfinite and not bool(ea.isfinite(total)):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                           "it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                           "norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Scale all gradients together so that their total norm is at most `max_norm`; returns the
    norm before clipping."""
    params = _as_list(parameters)
    total = get_total_norm([p.grad for p in params if p.grad is not None], norm_type, error_if_nonfinite)
    clip_grads_with_norm_(params, max_norm, total)
    return total


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every gradient elementwise to [-clip_value, clip_value]. With no gradient at all (called before
    backward) PyTorch's grouping of the gradients by device fails: so does this, in its words."""
    clip_value = float(clip_value)
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        raise RuntimeError("Expected !nested_tensorlist[0].empty() to be true, but got false.  (Could this error "
                           "message be improved?  If so, please report an enhancement request to PyTorch.)")
    for g in grads:  # PyTorch's per-tensor fallback of its foreach path clamps below first
        if g.layout is not ea.strided:
            raise _refusal(g.layout.name, "clamp_" if foreach is False else "clamp_min_")
    with ea.no_grad():
        for g in grads:
            g.clamp_(min=-clip_value, max=clip_value)


def clip_grads_with_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, total_norm: Tensor,
                          foreach: bool | None = None) -> None:
    """Multiply the gradients by min(max_norm / (total_norm + 1e-6), 1) (`total_norm` from `get_total_norm`,
    e.g. reduced across processes first). Tensor ops, as PyTorch's: no host read, so a compiled step
    captures it whole; a factor of 1 leaves the gradients exactly as they were."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    with ea.no_grad():
        coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef if coef.device == g.device else coef.to(g.device))


def clip_grad_norm(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Deprecated spelling of `clip_grad_norm_`."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)
