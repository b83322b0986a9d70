"""The one node PyTorch records for CPU flash attention, for `F.scaled_dot_product_attention` computed outside
dispatch (NOTE [ One node computed outside dispatch ] in ember.autograd.record).

PyTorch's CPU dispatcher runs 4-D attention without dropout through its flash kernel, which records one
`ScaledDotProductFlashAttentionForCpuBackward0` with an edge to each of query, key and value. ember computes the
math path's result (`softmax(Q K^T * scale + mask) V`); the rule recomputes that path's weights from the saved
inputs and applies its ops' rules in their order (bmm, view, softmax, mul, bmm), so each gradient has the bits
the dispatched composite's chain of nodes gives.
"""

from __future__ import annotations

import math

import numpy as np

from ember.core import creation, dtypes
from ember.core import dispatch as _dispatch
from ember.core import storage as _storage
from ember.core.dispatch import get_op
from ember.core.ops import elementwise as ew
from ember.core.ops import linalg
from ember.core.ops.shape import view_strides
from ember.core.tensor import Tensor

from ember.autograd.derivatives._entry import derivative as d
from ember.autograd.grad_mode import _enabled

__all__ = ["COMPOSITE_ENTRIES", "attention_untracked"]


def _flash_backward(grad, query, key, value, is_causal, scale, grad_input_mask):
    """The gradients of query, key and value (None where not needed). Under create_graph they are recorded as
    PyTorch's one backward op, which has no derivative (`_flash_double`): a second backward raises its error."""
    if not _enabled.get():
        return _flash_grads(grad, query, key, value, is_causal, scale, grad_input_mask)
    from ember.autograd.grad_mode import no_grad
    from ember.autograd.record import computed

    with no_grad():
        grads = _flash_grads(grad, query, key, value, is_causal, scale, (True, True, True))
    grads = computed("_scaled_dot_product_flash_attention_for_cpu_backward", (grad, query, key, value, is_causal,
                                                                              scale), grads)
    return tuple(g if need else None for g, need in zip(grads, grad_input_mask))


def _flash_double():
    """PyTorch's CPU flash backward is one op without a derivative (its `NotImplemented` node)."""
    raise RuntimeError("derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward is not implemented")


def _flash_grads(grad, query, key, value, is_causal, scale, grad_input_mask):
    """The gradients of query, key and value (None where not needed), as the math path's nodes compute them: by
    their ops' CPU kernels at once where nothing records or watches those ops (`_kernels`), else by the ops."""
    skip = _dispatch._SKIP
    if (_dispatch.untracked and not _enabled.get() and grad._dtype is query._dtype and grad.__class__ in skip
            and (_storage.only_cpu or all(t._storage.device.type == "cpu" for t in (grad, query, key, value)))):
        return _kernels(grad, query, key, value, is_causal, scale, grad_input_mask)
    *batch, L, E = query.shape
    S, Ev = key.shape[-2], value.shape[-1]
    nb = math.prod(batch)
    kt = key.transpose(-2, -1)
    scores = linalg.matmul(query, kt) * (1 / math.sqrt(E) if scale is None else scale)
    if is_causal:
        neg_inf = creation.full((L, S), float("-inf"), dtype=scores.dtype)
        scores = scores + ew.where(creation.ones(L, S, dtype=dtypes.bool).tril(), creation.zeros_like(neg_inf),
                                   neg_inf)
    weights = get_op("softmax")(scores, len(batch) + 1)
    g3 = grad.reshape(nb, L, Ev)
    gq = gk = gv = None
    if grad_input_mask[2]:
        gv = weights.reshape(nb, L, S).transpose(1, 2).bmm(g3).reshape(value.shape)
    if grad_input_mask[0] or grad_input_mask[1]:
        gw = g3.bmm(value.reshape(nb, S, Ev).transpose(1, 2)).reshape(weights.shape)
        gs = (get_op("softmax_backward")(gw, weights, len(batch) + 1)
              * (1 / math.sqrt(E) if scale is None else scale)).reshape(nb, L, S)
        if grad_input_mask[0]:
            gq = gs.bmm(kt.reshape(nb, E, S).transpose(1, 2)).reshape(query.shape)
        if grad_input_mask[1]:
            gk = query.reshape(nb, L, E).transpose(1, 2).bmm(gs).reshape(kt.shape).transpose(-2, -1)
    return gq, gk, gv


_KERNELS: list = []  # the CPU kernels of bmm, mul, add, softmax, _safe_softmax and softmax_backward, on first use
_CAUSAL: dict = {}  # (L, S, dtype) -> the additive causal mask, for the few sizes a model uses


def attention_untracked(query: Tensor, key: Tensor, value: Tensor, mask: Tensor | None, scale: float | None,
                        safe: bool) -> Tensor:
    """`softmax(query @ key^T * scale + mask) @ value` (`_safe_softmax` with `safe`) by the math path's CPU kernels on
    the operands its ops would hand them, without dispatching: the bits of the dispatched composite, for a caller
    that made sure nothing but autograd would see those ops. query (*, L, E), key (*, S, E), value (*, S, Ev) of
    one float dtype and equal batch dims; `mask` an additive mask that broadcasts to (*, L, S) or None."""
    weights = _weights(query, key, mask, scale, safe)
    qs = query._shape
    nb = math.prod(qs[:-2])
    return _reshaped(_KERNELS[0](_reshaped(weights, (nb, qs[-2], key._shape[-2])),
                                _reshaped(value, (nb, key._shape[-2], value._shape[-1]))),
                     (*qs[:-1], value._shape[-1]))


def _weights(query: Tensor, key: Tensor, mask: Tensor | None, scale: float | None, safe: bool) -> Tensor:
    """The attention weights (*, L, S) of the math path, by its ops' CPU kernels."""
    if not _KERNELS:  # filled whole at once: a second thread's first call sees it empty or complete
        _KERNELS[:] = [get_op(n).kernels["cpu"] for n in ("bmm", "mul", "add", "softmax", "_safe_softmax",
                                                          "softmax_backward")]
    bmm, mul, add, softmax, safe_softmax, _ = _KERNELS
    qs = query._shape
    batch, L, E, S = qs[:-2], qs[-2], qs[-1], key._shape[-2]
    nb = math.prod(batch)
    scores = mul(_reshaped(bmm(_reshaped(query, (nb, L, E)), _reshaped(_transposed(key), (nb, E, S))),
                           (*batch, L, S)), 1 / math.sqrt(E) if scale is None else scale)
    if mask is not None:
        scores = add(scores, mask)
    return (safe_softmax if safe else softmax)(scores, len(qs) - 1)


def _kernels(grad, query, key, value, is_causal, scale, grad_input_mask):
    """`_flash_backward`'s ops as their CPU kernels on the same operands (views where `reshape` views, row-major
    copies where it copies, transposes as views), without dispatching them: the same bits."""
    qs = query._shape
    batch, L, E = qs[:-2], qs[-2], qs[-1]
    S, Ev, n = key._shape[-2], value._shape[-1], len(qs)
    nb = math.prod(batch)
    weights = _weights(query, key, _causal(L, S, query._dtype) if is_causal else None, scale, False)
    bmm, mul, _, _, _, softmax_backward = _KERNELS
    g3 = _reshaped(grad, (nb, L, Ev))
    gq = gk = gv = None
    if grad_input_mask[2]:
        gv = _reshaped(bmm(_transposed(_reshaped(weights, (nb, L, S))), g3), value._shape)
    if grad_input_mask[0] or grad_input_mask[1]:
        gw = _reshaped(bmm(g3, _transposed(_reshaped(value, (nb, S, Ev)))), weights._shape)
        gs = _reshaped(mul(softmax_backward(gw, weights, n - 1), 1 / math.sqrt(E) if scale is None else scale),
                       (nb, L, S))
        if grad_input_mask[0]:
            gq = _reshaped(bmm(gs, _transposed(_reshaped(_transposed(key), (nb, E, S)))), qs)
        if grad_input_mask[1]:
            gk = _transposed(_reshaped(bmm(_transposed(_reshaped(query, (nb, L, E))), gs), (*batch, E, S)))
    return gq, gk, gv


def _transposed(t: Tensor) -> Tensor:
    """`t.transpose(-2, -1)`, a view made without dispatching."""
    st = t._strides
    return Tensor._make(t._storage, t._offset, (*t._shape[:-2], t._shape[-1], t._shape[-2]),
                        (*st[:-2], st[-1], st[-2]), t._dtype)


def _reshaped(t: Tensor, shape: tuple) -> Tensor:
    """`t.reshape(shape)` without dispatching: a view where the strides allow, else a row-major copy."""
    st = view_strides(t._shape, t._strides, shape)
    if st is not None:
        return Tensor._make(t._storage, t._offset, shape, st, t._dtype)
    return Tensor._wrap(np.ascontiguousarray(t._np()).reshape(shape))


def _causal(L: int, S: int, dtype) -> Tensor:
    """The math path's additive causal mask: 0 on and below the diagonal, -inf above (never written)."""
    key = (L, S, dtype)
    mask = _CAUSAL.get(key)
    if mask is None:
        if len(_CAUSAL) >= 8:
            _CAUSAL.clear()
        mask = _CAUSAL[key] = Tensor._wrap(np.where(np.tri(L, S, dtype=bool), 0, -np.inf).astype(dtype.np))
    return mask


# PyTorch's schema, its keyword-only `attn_mask` and `scale` positional here (`record.computed` passes no keywords);
# it saves `output` and `logsumexp` too, which this rule does not read
COMPOSITE_ENTRIES = [
    d("_scaled_dot_product_flash_attention_for_cpu(query, key, value, dropout_p=0.0, is_causal=False, attn_mask=None,"
      " scale=None)",
      **{"query, key, value": lambda grad, query, key, value, dropout_p, is_causal, attn_mask, scale, grad_input_mask:
         _flash_backward(grad, query, key, value, is_causal, scale, grad_input_mask)}),
    d("_scaled_dot_product_flash_attention_for_cpu_backward(grad_out, query, key, value, is_causal, scale)",
      name="NotImplemented", **{"grad_out, query, key, value": _flash_double}),
]
