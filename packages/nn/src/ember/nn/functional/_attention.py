"""Attention: `scaled_dot_product_attention` and the multi-head forward behind `MultiheadAttention`."""

from __future__ import annotations

import math
import warnings

import numpy as np

from ember import autograd as ea
from ember.autograd.backends import cuda as _cuda
from ember.autograd.derivatives.attention import attention_untracked
from ember.autograd.record import computed
from ember.core import Tensor
from ember.core import dispatch as _dispatch
from ember.core import storage as _storage
from ember.core.dispatch import composite, node_name
from ember.core.ops._util import _CPP_TYPE_NAMES, internally, warn_at_caller

from ember.nn.functional._layers import dropout, linear

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _additive_mask(mask: Tensor | None, dtype) -> Tensor | None:
    """A boolean mask (True = take part) or float mask (added) as an additive float mask."""
    if mask is None or mask.is_floating_point():
        return mask
    neg_inf = ea.full(tuple(mask.shape), float("-inf"), dtype=dtype, device=mask.device)
    return ea.where(mask, ea.zeros_like(neg_inf), neg_inf)


_CAUSAL: dict = {}  # (L, S, dtype, device) -> the additive causal mask, for the few sizes a model uses
_CAUSAL_CACHED = 1 << 20  # elements: larger masks are made per call


def _causal_mask(L: int, S: int, dtype, device) -> Tensor:
    """The additive mask of `is_causal` (0 on and below the diagonal, -inf above), as PyTorch's math path makes it
    (`ones(L, S).tril()`, then a bool mask's additive form). While nothing watches its ops (`dispatch.untracked`:
    no capture, mode or hook) a mask of up to `_CAUSAL_CACHED` elements is kept and reused, five ops per call saved;
    it never requires grad and nothing writes it."""
    if not (_dispatch.untracked and L * S <= _CAUSAL_CACHED):
        return _additive_mask(ea.ones(L, S, dtype=ea.bool, device=device).tril(), dtype)
    key = (L, S, dtype, device)
    mask = _CAUSAL.get(key)
    if mask is None:
        if len(_CAUSAL) >= 8:
            _CAUSAL.clear()
        with ea.no_grad():
            mask = _CAUSAL[key] = _additive_mask(ea.ones(L, S, dtype=ea.bool, device=device).tril(), dtype)
    return mask


def _none_or_dtype(input: Tensor | None):
    """`input`'s dtype, or None for None (PyTorch's helper for `_canonical_mask`'s `other_type`)."""
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask: Tensor | None, mask_name: str, other_type, other_name: str, target_type,
                    check_other: bool = True) -> Tensor | None:
    """A bool or float mask as an additive float mask of `target_type`, with PyTorch's private signature (code
    that copies MultiheadAttention calls it): other dtypes are refused, and a mask whose dtype differs from
    `other_type` (when given and `check_other`) warns."""
    if mask is None:
        return None
    if mask.dtype != ea.bool and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=3)
    if mask.is_floating_point():
        return mask
    return ea.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))


def _repeat_kv_heads(query: Tensor, kv: Tensor) -> Tensor:
    """Grouped-query attention: each of `kv`'s heads (dim -3) repeated to serve its group of query heads."""
    hq, hkv = query.shape[-3], kv.shape[-3]
    if hkv == hq:
        return kv
    if hkv == 0 or hq % hkv:
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    return kv.repeat_interleave(hq // hkv, dim=-3)


@composite("scaled_dot_product_attention")
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(Q K^T * scale + mask) V; query (..., L, E), key (..., S, E), value (..., S, Ev).
    A boolean `attn_mask` marks the positions that take part (True), a float one is added; a `CausalBias`
    (`torch.nn.attention.bias`) picks its causal triangle."""
    if attn_mask is not None and not isinstance(attn_mask, Tensor):
        from ember.nn.attention.bias import CausalBias

        if isinstance(attn_mask, CausalBias):
            return attn_mask._dispatch(query, key, value, dropout_p, is_causal, scale, enable_gqa)
    _validate_input(query, key, value, attn_mask)
    # the default switches (flash and math on) refuse nothing: the choice then waits until a path needs it
    flash = None if _sdp_switches["flash"] and _sdp_switches["math"] else _choose_cpu_backend(
        query, key, value, attn_mask, dropout_p, enable_gqa)
    if _dispatch.untracked and dropout_p == 0.0 and not enable_gqa and query._dtype in _UNTRACKED:
        if not ((query._requires_grad or key._requires_grad or value._requires_grad
                 or attn_mask is not None and attn_mask._requires_grad) and ea.is_grad_enabled()):
            out = _direct(query, key, value, attn_mask, is_causal, scale)
            if out is not None:
                return out
        elif attn_mask is None and (_flash_applies(query, key, value, None, dropout_p, enable_gqa) if flash is None
                                    else flash):
            out = _direct(query, key, value, None, is_causal, scale)
            if out is not None:  # PyTorch's one node (NOTE [ One node computed outside dispatch ])
                return computed("_scaled_dot_product_flash_attention_for_cpu",
                                (query, key, value, 0.0, is_causal, None, scale), out)
    if query.shape[-1] != key.shape[-1]:  # PyTorch's math path refuses in its Q K^T product: the same message
        ea.matmul(query, key.transpose(-2, -1))
    if flash is None:
        flash = _flash_applies(query, key, value, attn_mask, dropout_p, enable_gqa)
    low = query.dtype if query.dtype in (ea.bfloat16, ea.float16) and query.device.type == "cpu" else None
    if low is not None:  # PyTorch's CPU kernels compute half and bfloat16 attention in float32, rounding once
        query, key, value = query.float(), key.float(), value.float()
        if attn_mask is not None and attn_mask.is_floating_point():
            attn_mask = attn_mask.float()
    if enable_gqa and query.dim() >= 3:
        key, value = _repeat_kv_heads(query, key), _repeat_kv_heads(query, value)
    L, S = query.shape[-2], key.shape[-2]
    scale_factor = (1 / math.sqrt(query.shape[-1]) if query.shape[-1] else math.inf) if scale is None else scale
    scores = ea.matmul(query, key.transpose(-2, -1)) * scale_factor
    if is_causal:
        causal = _causal_mask(L, S, scores.dtype, query.device)
        if attn_mask is None:
            scores, safe = scores + causal, False
        elif flash:  # PyTorch's CPU flash kernel applies both masks; its math path refuses
            scores, safe = scores + causal + _additive_mask(attn_mask, scores.dtype), True
        else:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
    elif attn_mask is not None:
        if attn_mask.dim() > scores.dim() or any(m > n for m, n in zip(attn_mask.shape[::-1], scores.shape[::-1])):
            _check_mask_fits(scores, attn_mask)
        scores, safe = scores + _additive_mask(attn_mask, scores.dtype), True
    else:
        safe = False
    if low is not None and flash:
        out = _flash_reduced(scores, value, low)
    else:
        weights = ea._safe_softmax(scores, -1) if safe else ea.softmax(scores, -1)
        if dropout_p > 0.0:
            weights = dropout(weights, dropout_p, True)
        out = ea.matmul(weights, value)
    if low is not None:
        out = out.to(low)
    return node_name(out, "UnsafeViewBackward0" if low is None else "ToCopyBackward0",
                     "ScaledDotProductFlashAttentionForCpuBackward0") if flash else out


def _check_mask_fits(scores: Tensor, attn_mask: Tensor) -> None:
    """PyTorch's math path adds the mask into the scores in place: a mask that would grow them is refused (one
    that cannot broadcast at all gets the addition's own error)."""
    try:
        shape = ea.broadcast_shapes(scores.shape, attn_mask.shape)
    except RuntimeError:
        scores + attn_mask
        raise
    raise RuntimeError(f"output with shape {list(scores.shape)} doesn't match the broadcast shape {list(shape)}")


_UNTRACKED = (ea.float32, ea.float64)  # the dtypes `_direct` computes


def _direct(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, is_causal: bool,
            scale: float | None) -> Tensor | None:
    """The math path's result computed by its ops' CPU kernels without dispatching them, where only autograd would
    see those ops (`dispatch.untracked`; operands of no `__torch_function__`) and query, key and value have equal batch
    dims (each product is one `bmm`); None otherwise. The same kernels on the same operands as the dispatched ops'
    (a view where `matmul`'s reshape views, a row-major copy where it copies): the same bits, without the composite's
    16 dispatches. The caller records the result where an operand requires grad."""
    skip = _dispatch._SKIP
    if not (query.__class__ in skip and key.__class__ in skip and value.__class__ in skip
            and attn_mask.__class__ in skip and (_storage.only_cpu or all(
                t._storage.device.type == "cpu" for t in (query, key, value)))):
        return None
    qs, ks, vs = query._shape, key._shape, value._shape
    n = len(qs)
    batch = qs[:-2]
    if not (n >= 3 and len(ks) == n and len(vs) == n and ks[:-2] == batch and vs[:-2] == batch
            and qs[-1] == ks[-1] and ks[-2] == vs[-2] and all(qs) and all(ks) and all(vs)):
        return None
    L, S = qs[-2], ks[-2]
    mask = None
    if is_causal:
        if attn_mask is not None:
            return None
        mask = _causal_mask(L, S, query._dtype, query.device)
    elif attn_mask is not None:
        ms = attn_mask._shape
        if not ((attn_mask._dtype is query._dtype or attn_mask._dtype is ea.bool) and len(ms) <= n
                and attn_mask.device == query.device
                and all(m == 1 or m == s for m, s in zip(ms[::-1], (S, L, *batch[::-1])))):
            return None  # a mask that broadcasts the scores to a larger shape: the dispatched ops
        mask = _additive_mask(attn_mask, query._dtype)
    return attention_untracked(query, key, value, mask, scale, attn_mask is not None)


def _validate_input(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None) -> None:
    """PyTorch's `validate_sdpa_input`, in its order: one dtype, one device, at least 2-D, a usable mask dtype."""
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{_cpp_name(query.dtype)} key.dtype: {_cpp_name(key.dtype)} and value.dtype: "
                           f"{_cpp_name(value.dtype)} instead.")
    if not query.device == key.device == value.device:
        raise RuntimeError(f"Expected query, key, and value to have the same device type, but got query.device: "
                           f"{query.device} key.device: {key.device} and value.device: {value.device} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead.")
    if attn_mask is not None and attn_mask.dtype not in (ea.bool, ea.float32, query.dtype):
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {_cpp_name(attn_mask.dtype)} and  query.dtype: "
                           f"{_cpp_name(query.dtype)} instead.")


def _cpp_name(dtype) -> str:
    """The demangled C++ type name PyTorch's SDPA checks print (`long int`, `c10::BFloat16`)."""
    names = {**_CPP_TYPE_NAMES, "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
             "float64": "double", "complex32": "c10::complex<c10::Half>", "complex64": "c10::complex<float>",
             "complex128": "c10::complex<double>"}
    return names.get(dtype.name, dtype.name)


def _flash_reduced(scores: Tensor, value: Tensor, low) -> Tensor:
    """PyTorch's CPU flash kernel in half/bfloat16: the float32 exponentials `p = exp(s - max)` (by `_flash_exp`'s
    approximation) are rounded to the input's dtype for the product with V, then divided by their float32 sum (rows
    masked out entirely give 0). The gradient is the exact exponential's."""
    m = scores.detach().amax(-1, keepdim=True)
    m = ea.where(ea.isfinite(m), m, ea.zeros_like(m))
    p = ea.exp(scores - m)
    with ea.no_grad():
        shift = Tensor._wrap(_flash_exp((scores.detach() - m).contiguous()._np())) - p.detach()
    p = p + shift
    total = p.sum(-1, keepdim=True)
    out = ea.matmul(p.to(low).float(), value) / ea.where(total > 0, total, ea.ones_like(total))
    return out


_FLASH_LANES = 16  # float32 lanes of PyTorch's AVX-512 kernel; keys past the row's last full vector take std::exp
_LOG2E = np.array(0x3FB8AA3B, np.uint32).view(np.float32)
_LN_FLT_MIN = np.array(0xC2AEAC50, np.uint32).view(np.float32)
_LN_FLT_MAX = np.array(0x42B17218, np.uint32).view(np.float32)
_FEXP_POLY = np.array([-0.079204240219773236, -0.22433836478672356, 0.30354260500649682, 0.00010703434948458272],
                      np.float32)  # c3, c2, c1, c0 of 2**f - 1 - f's correction, Horner order


def _fma32(a: np.ndarray, b, c) -> np.ndarray:
    """float32 a * b + c rounded once (the product of two float32 values is exact in float64)."""
    return (a.astype(np.float64) * np.float64(b) + np.float64(c)).astype(np.float32)


def _flash_exp(x: np.ndarray) -> np.ndarray:
    """exp over the last axis as PyTorch's CPU flash kernel takes it for half/bfloat16 inputs: `fexp_u20` (2**(x log2 e)
    with a cubic in the fraction, assembled in the float's bits and truncated) over each full vector of lanes, the
    correctly rounded exp over the tail."""
    out = np.exp(x)
    n = _FLASH_LANES * (x.shape[-1] // _FLASH_LANES)
    if n:
        v = x[..., :n].astype(np.float32)
        with np.errstate(invalid="ignore"):  # -inf (masked keys) and nan lanes: replaced below
            src = (v * _LOG2E).astype(np.float32)
            frac = (src - np.floor(src)).astype(np.float32)
            poly = _fma32(frac, _FEXP_POLY[0], _FEXP_POLY[1])
            for c in _FEXP_POLY[2:]:
                poly = _fma32(frac, poly, c)
            bits = np.trunc(_fma32((src - poly).astype(np.float32), 2.0 ** 23, 127.0 * 2.0 ** 23))
        fast = np.where(np.isfinite(bits), bits, 0).astype(np.int64).astype(np.int32).view(np.float32)
        fast = np.where(v < _LN_FLT_MIN, np.float32(0), np.where(v > _LN_FLT_MAX, np.float32(np.inf), fast))
        out[..., :n] = np.where(np.isnan(v), v, fast)
    return out


_sdp_switches = _cuda._sdp  # the enabled backends (`torch.nn.attention.sdpa_kernel` writes the same dict)
_FLASH_NOT_USED = internally("Flash attention kernel not used because:",
                             "aten/src/ATen/native/transformers/sdp_utils_cpp.cpp:99")
_MASK_SHAPES = ("Please use the following attn mask shapes: 2d - ({Q_seq_len, 1}  x {KV_seq_len, 1}); 4d - ({Batch, 1} "
                "x {Num_heads, 1} x {Q_seq_len, 1}  x {KV_seq_len, 1})")


def _choose_cpu_backend(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, dropout_p: float,
                        enable_gqa: bool) -> bool:
    """PyTorch's CPU backend choice (`select_sdp_backend_cpp`) under the enabled backends (`sdpa_kernel`,
    `torch.backends.cuda.enable_*_sdp`): True for its flash kernel (which names the grad_fn), False for the math
    path; with neither enabled, or flash alone enabled and refusing these inputs, PyTorch's error (after its
    warnings saying why). Inputs off the CPU or with no elements keep the flash rule without a choice."""
    if not (query.device.type == "cpu" and query.numel() and key.numel() and value.numel()):
        return _flash_applies(query, key, value, attn_mask, dropout_p, enable_gqa)
    switches = _sdp_switches
    if not (switches["flash"] or switches["math"]):
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This is likely due to "
                           "turning off both the math kernel and the fused kernels.")
    refusal = _cpu_flash_refusal(query, key, value, attn_mask, dropout_p, enable_gqa) if switches["flash"] else ""
    if refusal is None:
        return True
    if not switches["math"]:
        warn_at_caller(_FLASH_NOT_USED)
        if refusal:
            warn_at_caller(refusal)
        raise RuntimeError("No available kernel.  Aborting execution.")
    return False


def _flash_applies(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, dropout_p: float,
                   enable_gqa: bool) -> bool:
    """Whether the flash kernel is enabled and takes these inputs (the grad_fn it names)."""
    return _sdp_switches["flash"] and _cpu_flash_refusal(query, key, value, attn_mask, dropout_p, enable_gqa) is None


def _takes_cpu_flash(query: Tensor, key: Tensor, value: Tensor, dropout_p: float, attn_mask: Tensor | None = None,
                     enable_gqa: bool = False) -> bool:
    """Whether PyTorch's CPU dispatcher picks its flash kernel for these inputs under the enabled backends."""
    return query.device.type == "cpu" and _flash_applies(query, key, value, attn_mask, dropout_p, enable_gqa)


def _cpu_flash_refusal(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, dropout_p: float,
                       enable_gqa: bool) -> str | None:
    """None where PyTorch's CPU flash kernel takes these inputs (`use_flash_attention_cpp`), else the warning its
    first failing check gives ("" for the checks that give none), in its order of checks."""
    at = "aten/src/ATen/native/transformers/"
    if dropout_p > 0.0:
        return internally("Both fused kernels do not support non-zero dropout.", at + "sdp_utils_cpp.h:241")
    if not query.dim() == key.dim() == value.dim() == 4:
        return internally(f"All fused kernels requires query, key and value to be 4 dimensional, but got Query dim: "
                          f"{query.dim()}, Key dim: {key.dim()}, Value dim: {value.dim()} instead.",
                          at + "sdp_utils_cpp.h:327")
    qs, ks, vs = list(query.shape), list(key.shape), list(value.shape)
    if not qs[0] == ks[0] == vs[0]:
        return internally(f"For dense inputs, both fused kernels require query, key and value to have the same "
                          f"batch_size. Query.sizes(): {qs}, Key.sizes(): {ks}, Value.sizes(): {vs} instead. To "
                          "broadcast dense inputs, try using unsqueeze and expand_to before passing them into the "
                          "kernel.", at + "sdp_utils_cpp.h:417")
    if enable_gqa:
        if ks[1] != vs[1]:
            return ""
        if ks[1] == 0 or qs[1] % ks[1]:
            return ""
    elif not qs[1] == ks[1] == vs[1]:
        return internally(f"For dense input, both fused kernels require query, key and value to have the same "
                          f"num_heads. Query.sizes(): {qs}, Key sizes(): {ks}, Value sizes(): {vs} instead. To "
                          "broadcast dense inputs, try using unsqueeze and expand_to before passing them into the "
                          "kernel.", at + "sdp_utils_cpp.h:437")
    if attn_mask is not None:
        if attn_mask.requires_grad:
            return ""
        if attn_mask.size(-2) not in (qs[2], 1) or attn_mask.size(-1) not in (ks[2], 1):
            return ""
        ms = attn_mask.shape
        if not (attn_mask.dim() == 2 or attn_mask.dim() == 4 and ms[0] in (1, qs[0]) and ms[1] in (1, qs[1])):
            return internally(_MASK_SHAPES, at + "sdp_utils_cpp.h:314")
    if not qs[3] == ks[3] == vs[3]:
        return internally(f"Flash attention requires q,k,v to have the same last dimension. Got Query.size(-1): "
                          f"{qs[3]}, Key.size(-1): {ks[3]}, Value.size(-1): {vs[3]} instead.",
                          at + "sdp_utils_cpp.cpp:21")
    if qs[2] == 0 or ks[2] == 0:
        return ""
    if not query.stride(-1) == key.stride(-1) == value.stride(-1) == 1:
        return internally(f"All fused kernels require the last dimension of the input to have stride 1. Got "
                          f"Query.stride(-1): {query.stride(-1)}, Key.stride(-1): {key.stride(-1)}, "
                          f"Value.stride(-1): {value.stride(-1)}", at + "sdp_utils_cpp.h:546")
    if query.dtype not in (ea.float32, ea.float64, ea.bfloat16, ea.float16):
        return internally(f"Expected query, key and value to all be of dtype: {{Float, Double, BFloat16, Half}}. Got "
                          f"Query dtype: {_cpp_name(query.dtype)}, Key dtype: {_cpp_name(key.dtype)}, and Value "
                          f"dtype: {_cpp_name(value.dtype)} instead.", at + "sdp_utils_cpp.h:91")
    return None


def _pad_key(mask: Tensor | None) -> Tensor | None:
    """A mask over keys with one more key (the bias or zero key) that nothing masks."""
    if mask is None:
        return None
    return ea.cat([mask, ea.zeros((*mask.shape[:-1], 1), dtype=mask.dtype, device=mask.device)], -1)


def _check_masks(attn_mask, key_padding_mask, L: int, S: int, N: int, num_heads: int, unbatched: bool) -> None:
    """PyTorch's mask shape errors (its types: AssertionError for the rank and key_padding_mask, RuntimeError for
    attn_mask's shape)."""
    if attn_mask is not None:
        want = {2: (L, S), 3: (N * num_heads, L, S)}.get(attn_mask.dim())
        if want is None:
            kind = "unbatched (2-D)" if unbatched else "batched (3-D)"
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                                 f"{attn_mask.dim()}-D tensor instead")
        if tuple(attn_mask.shape) != want:
            raise RuntimeError(f"The shape of the {attn_mask.dim()}D attn_mask is {attn_mask.shape}, but should be "
                               f"{want}.")
    if key_padding_mask is not None:
        for i, want in enumerate((N, S)):
            if key_padding_mask.shape[i] != want:
                raise AssertionError(f"Expected key_padded_mask.shape[{i}] to be {want}, but got "
                                     f"{key_padding_mask.shape[i]}")


def _mha_shape_check(query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None,
                     attn_mask: Tensor | None, num_heads: int) -> bool:
    """PyTorch's rank checks of multi-head attention's inputs (AssertionErrors, in its words); returns whether the
    query is batched, as PyTorch's (code that reimplements the forward reads it)."""
    if query.dim() not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query "
                             "tensor")
    batched = query.dim() == 3
    kind, rank = ("batched (3-D)", 3) if batched else ("unbatched (2-D)", 2)
    if key.dim() != rank or value.dim() != rank:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {rank}-D but found {key.dim()}-D "
                             f"and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != rank - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or {rank - 1}-D but "
                             f"found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None and not batched and attn_mask.dim() == 3:
        want = (num_heads, query.shape[0], key.shape[0])
        if tuple(attn_mask.shape) != want:
            raise AssertionError(f"Expected `attn_mask` shape to be {want} but got {attn_mask.shape}")
    return batched


def _in_projection_packed(q: Tensor, k: Tensor, v: Tensor, w: Tensor, b: Tensor | None = None):
    """PyTorch's in-projection by packed (3E, E) weights in q, k, v order, for code that reimplements multi-head
    attention: self-attention (q is k is v) projects once, encoder-decoder attention (k is v) projects k and v
    together; each result is contiguous."""
    E = q.size(-1)
    if k is v:
        if q is k:
            proj = linear(q, w, b).unflatten(-1, (3, E)).movedim(-2, 0).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        kv = linear(k, w_kv, b_kv).unflatten(-1, (2, E)).movedim(-2, 0).contiguous()
        return linear(q, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q: Tensor, k: Tensor, v: Tensor, w_q: Tensor, w_k: Tensor, w_v: Tensor, b_q: Tensor | None = None,
                   b_k: Tensor | None = None, b_v: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """PyTorch's in-projection by separate weights: (Eq, Eq), (Eq, Ek), (Eq, Ev) and (Eq,) biases, asserted in its
    words."""
    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    for name, t, want in (("query weights", w_q, (Eq, Eq)), ("key weights", w_k, (Eq, Ek)),
                          ("value weights", w_v, (Eq, Ev)), ("query bias", b_q, (Eq,)), ("key bias", b_k, (Eq,)),
                          ("value bias", b_v, (Eq,))):
        if t is not None and tuple(t.shape) != want:
            raise AssertionError(f"expecting {name} shape of {want}, but got {t.shape}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
                                 in_proj_weight: Tensor, in_proj_bias: Tensor | None, bias_k, bias_v,
                                 add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor,
                                 out_proj_bias: Tensor | None, training: bool = True,
                                 key_padding_mask: Tensor | None = None, need_weights: bool = True,
                                 attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False,
                                 q_proj_weight: Tensor | None = None, k_proj_weight: Tensor | None = None,
                                 v_proj_weight: Tensor | None = None, static_k=None, static_v=None,
                                 average_attn_weights: bool = True, is_causal: bool = False):
    """Multi-head attention on sequence-first inputs: query (L, N, E), key/value (S, N, E).

    Returns `(output (L, N, E), weights)`; weights are (N, L, S) averaged over heads, (N, heads,
    L, S) when `average_attn_weights=False`, or None without `need_weights`. Masks: a boolean
    `key_padding_mask` (N, S) is True where a key is padding; a boolean `attn_mask` (L, S) or
    (N * heads, L, S) is True where attention is not allowed (float masks are added).
    """
    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward: static_k/static_v are not supported")
    _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    unbatched = query.dim() == 2
    if unbatched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # as PyTorch, which then trusts the hint: its attention applies the causal mask instead
    L, N, E = query.shape
    S = key.shape[0]
    if E != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {E}")
    head_dim = E // num_heads
    if head_dim * num_heads != E:
        raise AssertionError(f"embed_dim {E} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    _check_masks(attn_mask, key_padding_mask, L, S, N, num_heads, unbatched)
    for name, w in ((("q_proj_weight", q_proj_weight), ("k_proj_weight", k_proj_weight),
                     ("v_proj_weight", v_proj_weight)) if use_separate_proj_weight else
                    (("in_proj_weight", in_proj_weight),)):
        if w is None:  # PyTorch's asserts, in its words
            raise AssertionError(f"use_separate_proj_weight is {bool(use_separate_proj_weight)} but {name} is None")
    if use_separate_proj_weight:
        bq = bk = bv = None
        if in_proj_bias is not None:
            bq, bk, bv = in_proj_bias.chunk(3)
        for name, w, x in (("query", q_proj_weight, query), ("key", k_proj_weight, key),
                           ("value", v_proj_weight, value)):  # PyTorch's _in_projection asserts, in its words
            if tuple(w.shape) != (E, x.shape[-1]):
                raise AssertionError(f"expecting {name} weights shape of {(E, x.shape[-1])}, but got {w.shape}")
        q = linear(query, q_proj_weight, bq)
        k = linear(key, k_proj_weight, bk)
        v = linear(value, v_proj_weight, bv)
    else:
        if query is key and key is value and not query.is_contiguous() and query.dtype not in (ea.bfloat16,
                                                                                                ea.float16):
            # self-attention on a transposed (batch-first) input: rows laid out once, not once per projection (in
            # half/bfloat16 the strided input's projection rounds twice, as PyTorch's: kept as it is)
            query = key = value = query.contiguous()
        wq, wk, wv = in_proj_weight.chunk(3)
        bq = bk = bv = None
        if in_proj_bias is not None:
            bq, bk, bv = in_proj_bias.chunk(3)
        q, k, v = linear(query, wq, bq), linear(key, wk, bk), linear(value, wv, bv)
    if bias_k is not None and bias_v is not None:  # one more key and value, learned, that every query sees
        k, v = ea.cat([k, bias_k.repeat(1, N, 1)]), ea.cat([v, bias_v.repeat(1, N, 1)])
        attn_mask, key_padding_mask, S = _pad_key(attn_mask), _pad_key(key_padding_mask), S + 1
    # (L, N, E) -> (N, heads, L, head_dim)
    q = q.reshape(L, N, num_heads, head_dim).permute(1, 2, 0, 3)
    k = k.reshape(S, N, num_heads, head_dim).permute(1, 2, 0, 3)
    v = v.reshape(S, N, num_heads, head_dim).permute(1, 2, 0, 3)
    if add_zero_attn:  # and a zero key and value
        zeros = ea.zeros((N, num_heads, 1, head_dim), dtype=k.dtype, device=k.device)
        k, v = ea.cat([k, zeros], 2), ea.cat([v, zeros], 2)
        attn_mask, key_padding_mask, S = _pad_key(attn_mask), _pad_key(key_padding_mask), S + 1
    mask = None
    if attn_mask is not None:
        mask = attn_mask if attn_mask.is_floating_point() else _additive_mask(attn_mask.logical_not(), q.dtype)
        mask = mask.reshape(N, num_heads, L, S) if mask.dim() == 3 else mask
    elif is_causal:
        mask = _additive_mask(ea.ones(L, S, dtype=ea.bool, device=q.device).tril(), q.dtype)
    if key_padding_mask is not None:
        kpm = key_padding_mask if key_padding_mask.is_floating_point() else \
            _additive_mask(key_padding_mask.logical_not(), q.dtype)
        kpm = kpm.reshape(N, 1, 1, S)
        mask = kpm if mask is None else mask + kpm
    if not need_weights and q.dtype in (ea.bfloat16, ea.float16) and q.device.type == "cpu":
        # PyTorch attends by SDPA here, whose CPU kernels round half and bfloat16 their own way
        out = scaled_dot_product_attention(q, k, v, mask, dropout_p if training else 0.0)
    else:
        scores = ea.matmul(q, k.transpose(-2, -1)) * (1 / math.sqrt(head_dim))
        if mask is not None:
            scores = scores + mask
        # PyTorch computes attention without weights by SDPA, whose _safe_softmax gives fully masked rows 0 (one
        # op, zero gradient there), with them by softmax (NaN)
        weights = ea._safe_softmax(scores, -1) if mask is not None and not need_weights else ea.softmax(scores, -1)
        if dropout_p > 0.0 and training:
            weights = dropout(weights, dropout_p, True)
        out = ea.matmul(weights, v)
    # as PyTorch: the projection of (L * N, E) rows, then a view (its nodes: AddmmBackward0 or MmBackward0, then View)
    out = linear(out.permute(2, 0, 1, 3).reshape(L * N, E), out_proj_weight, out_proj_bias)
    out = out.view(L, N, out.shape[1])
    attn = None
    if need_weights:
        attn = weights.mean(1) if average_attn_weights else weights
        if unbatched:
            attn = attn.squeeze(0)
    if unbatched:
        out = out.squeeze(1)
    return out, attn
