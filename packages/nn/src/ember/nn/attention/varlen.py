"""`torch.nn.attention.varlen`: attention over packed sequences of different lengths (`cu_seq_q`/`cu_seq_k` hold
each sequence's start in the packed `(T, H, D)` tensors).

PyTorch computes it with its flash kernel, which only CUDA builds have: on CPU tensors it checks the heads and
raises the dispatcher's NotImplementedError, as here. On a CUDA device ember computes it with the math path
(`_varlen_math`: each sequence's scaled dot product attention, and its log-sum-exp when asked).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import ember.autograd as ea
from ember.core import Tensor

__all__ = ["varlen_attn", "varlen_attn_out", "AuxRequest"]


class AuxRequest(NamedTuple):
    """Which auxiliary outputs `varlen_attn` returns: `lse`, the log-sum-exp of each query's scores `(T_q, H_q)`."""

    lse: bool = False


def _check_heads(query: Tensor, key: Tensor, enable_gqa: bool, block_table) -> None:
    hq = query.size(1)
    hk = key.size(2) if block_table is not None else key.size(1)
    if not enable_gqa and hq != hk:
        raise ValueError(f"Expect query and key/value to have the same number of heads but got Hq={hq} and Hkv={hk}. "
                         "Try setting enable_gqa=True for GQA.")
    if enable_gqa and hq % hk != 0:
        raise ValueError(f"Expect number of query heads to be a multiple of kv heads for GQA but got Hq={hq} and "
                         f"Hkv={hk}.")


def _no_cpu_kernel(op: str) -> NotImplementedError:
    return NotImplementedError(f"Could not run 'aten::{op}' with arguments from the 'CPU' backend. This could be "
                               "because the operator doesn't exist for this backend, or was omitted during the "
                               "selective/custom build process (if using custom build).")


def _varlen_math(query, key, value, cu_seq_q, cu_seq_k, scale, window_size, enable_gqa, seqused_k):
    """(out, lse) of every packed sequence's attention, one sequence at a time; `window_size` (left, right)
    keeps key j for query i where i - left <= j <= i + right (-1: unbounded), aligned to the last key."""
    cq = [int(v) for v in cu_seq_q.tolist()]
    ck = cq if cu_seq_k is None else [int(v) for v in cu_seq_k.tolist()]
    scale = 1.0 / math.sqrt(query.size(-1)) if scale is None else scale
    outs, lses = [], []
    for i in range(len(cq) - 1):
        q = query[cq[i]:cq[i + 1]].transpose(0, 1)
        end = ck[i + 1] if seqused_k is None else ck[i] + int(seqused_k[i])
        k, v = key[ck[i]:end].transpose(0, 1), value[ck[i]:end].transpose(0, 1)
        if enable_gqa and k.size(0) != q.size(0):
            k = k.repeat_interleave(q.size(0) // k.size(0), 0)
            v = v.repeat_interleave(q.size(0) // v.size(0), 0)
        scores = (q @ k.transpose(-2, -1)) * scale
        left, right = window_size
        if left >= 0 or right >= 0:
            rows = ea.arange(q.size(1), device=q.device).unsqueeze(1) + (k.size(1) - q.size(1))
            cols = ea.arange(k.size(1), device=q.device).unsqueeze(0)
            keep = ea.ones_like(scores, dtype=ea.bool)
            if left >= 0:
                keep = keep & (cols >= rows - left)
            if right >= 0:
                keep = keep & (cols <= rows + right)
            scores = scores.masked_fill(~keep, float("-inf"))
        lse = scores.logsumexp(-1)
        outs.append(((scores - lse.unsqueeze(-1)).exp() @ v).transpose(0, 1))
        lses.append(lse.transpose(0, 1))
    return ea.cat(outs), ea.cat(lses)


def varlen_attn(query: Tensor, key: Tensor, value: Tensor, cu_seq_q: Tensor, cu_seq_k: Tensor | None, max_q: int,
                max_k: int, *, return_aux: AuxRequest | None = None, scale: float | None = None,
                window_size: tuple[int, int] = (-1, -1), enable_gqa: bool = False, seqused_k: Tensor | None = None,
                block_table: Tensor | None = None, num_splits: int | None = None) -> Tensor | tuple[Tensor, Tensor]:
    """Attention over packed variable-length sequences.

    Args:
        query: `(T_q, H_q, D)`; key, value: `(T_k, H_kv, D)`
        cu_seq_q, cu_seq_k: `(N + 1,)` int32 sequence starts in the packed tensors
        max_q, max_k: the longest query and key sequence
        return_aux: `AuxRequest(lse=True)` also returns the log-sum-exp `(T_q, H_q)`
        window_size: (left, right) sliding window, (-1, 0) causal, (-1, -1) full
        enable_gqa: let `H_q` be a multiple of `H_kv`

    Returns:
        `(T_q, H_q, D)`, and the log-sum-exp when asked.

    Raises:
        ValueError: heads that do not match; NotImplementedError: CPU tensors (PyTorch has no CPU kernel).
    """
    _check_heads(query, key, enable_gqa, block_table)
    if query.device.type == "cpu":
        raise _no_cpu_kernel("_flash_attention_forward")
    if block_table is not None:
        raise NotImplementedError("varlen_attn: ember has no paged KV cache (block_table)")
    out, lse = _varlen_math(query, key, value, cu_seq_q, cu_seq_k, scale, tuple(window_size), enable_gqa,
                            seqused_k)
    return (out, lse) if return_aux is not None and return_aux.lse else out


def varlen_attn_out(out: Tensor, query: Tensor, key: Tensor, value: Tensor, cu_seq_q: Tensor, cu_seq_k: Tensor | None,
                    max_q: int, max_k: int, *, return_aux: AuxRequest | None = None, scale: float | None = None,
                    window_size: tuple[int, int] = (-1, -1), enable_gqa: bool = False,
                    seqused_k: Tensor | None = None, block_table: Tensor | None = None,
                    num_splits: int | None = None) -> Tensor | tuple[Tensor, Tensor]:
    """`varlen_attn` written into `out` (inference only: no gradient)."""
    _check_heads(query, key, enable_gqa, block_table)
    if query.device.type == "cpu":
        raise _no_cpu_kernel("_flash_attention_forward_no_dropout_inplace")
    with ea.no_grad():
        result = varlen_attn(query, key, value, cu_seq_q, cu_seq_k, max_q, max_k, return_aux=AuxRequest(True),
                             scale=scale, window_size=window_size, enable_gqa=enable_gqa, seqused_k=seqused_k,
                             block_table=block_table, num_splits=num_splits)
    out.copy_(result[0])
    return (out, result[1]) if return_aux is not None and return_aux.lse else out
