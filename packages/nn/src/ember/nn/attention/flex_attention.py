"""`torch.nn.attention.flex_attention`: attention with a user `score_mod` and a block-sparse `BlockMask`.

ember computes it as PyTorch's eager ("math") path does: the whole score matrix in float32 (float64 for float64
inputs), `score_mod` and `mask_mod` evaluated on it, a safe softmax, so fully masked rows give zeros. PyTorch
vectorizes the user functions with vmap over (b, h, q_idx, kv_idx); ember calls them once with index tensors
shaped to broadcast against each other ((B,1,1,1), (1,H,1,1), (1,1,Q,1), (1,1,1,KV)), which gives the same values
for the elementwise and indexing code these functions hold. The block structure (which tiles of
`BLOCK_SIZE` are empty, partial or full) is kept for what programs inspect: `sparsity()`, `to_dense()`, the printed
picture; the computation itself applies `mask_mod` element by element, as PyTorch's eager path does.
"""

from __future__ import annotations

import inspect
import itertools
import math
import warnings
from collections.abc import Callable
from typing import NamedTuple

from ember import autograd as ea
from ember.core import Tensor

__all__ = ["BlockMask", "flex_attention", "AuxOutput", "AuxRequest", "FlexKernelOptions", "create_block_mask",
           "create_mask", "or_masks", "and_masks", "noop_mask"]

_DEFAULT_SPARSE_BLOCK_SIZE = 128
_LARGE_SPARSE_BLOCK_SIZE = 1 << 30
_FLEX_ATTENTION_DISABLE_COMPILE_DEBUG = False
FlexKernelOptions = dict


class AuxRequest(NamedTuple):
    """Which auxiliary outputs `flex_attention(..., return_aux=)` returns."""

    lse: bool = False
    max_scores: bool = False


class AuxOutput(NamedTuple):
    """The auxiliary outputs asked for: the natural-log logsumexp and the row maxima of the scores."""

    lse: Tensor | None = None
    max_scores: Tensor | None = None


def noop_mask(b: Tensor, h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
    """The mask_mod that keeps every position."""
    return b.new_ones((), dtype=ea.bool)


def _identity(score: Tensor, b: Tensor, h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
    return score


def or_masks(*mask_mods: Callable) -> Callable:
    """The mask_mod keeping what any of `mask_mods` keeps."""
    if not all(callable(arg) for arg in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def or_mask(b, h, q_idx, kv_idx):
        result = b.new_zeros((), dtype=ea.bool)
        for mask in mask_mods:
            result = result | mask(b, h, q_idx, kv_idx)
        return result
    return or_mask


def and_masks(*mask_mods: Callable) -> Callable:
    """The mask_mod keeping what all of `mask_mods` keep."""
    if not all(callable(arg) for arg in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def and_mask(b, h, q_idx, kv_idx):
        result = b.new_ones((), dtype=ea.bool)
        for mask in mask_mods:
            result = result & mask(b, h, q_idx, kv_idx)
        return result
    return and_mask


def _is_score_mod(fn: Callable) -> bool:
    """PyTorch tells a score_mod (5 positional parameters without defaults) from a mask_mod (4)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                  and p.default is p.empty]
    return len(positional) == 5


def _grid(B: int, H: int, Q: int, KV: int, device) -> tuple[Tensor, ...]:
    """The (b, h, q_idx, kv_idx) index tensors, shaped to broadcast to (B, H, Q, KV)."""
    return (ea.arange(B, device=device).view(B, 1, 1, 1), ea.arange(H, device=device).view(1, H, 1, 1),
            ea.arange(Q, device=device).view(1, 1, Q, 1), ea.arange(KV, device=device).view(1, 1, 1, KV))


def _as_full(t, shape: tuple[int, ...], dtype, device) -> Tensor:
    if not isinstance(t, Tensor):
        t = ea.tensor(t, dtype=dtype, device=device)
    return t.expand(shape) if tuple(t.shape) != shape else t


def create_mask(mod_fn: Callable, B: int | None, H: int | None, Q_LEN: int, KV_LEN: int, device=None) -> Tensor:
    """The dense (B, H, Q_LEN, KV_LEN) boolean mask of a mask_mod (or where a score_mod leaves scores finite)."""
    B, H = B or 1, H or 1
    device = "cpu" if device is None else device
    shape = (B, H, Q_LEN, KV_LEN)
    b, h, m, n = _grid(B, H, Q_LEN, KV_LEN, device)
    if _is_score_mod(mod_fn):
        out = _as_full(mod_fn(ea.zeros(shape, device=device), b, h, m, n), shape, ea.float32, device)
        return ea.where(ea.isneginf(out), False, True)
    return _as_full(mod_fn(b, h, m, n), shape, ea.bool, device).contiguous()


def _sliced_mask_mod_error(batch: Tensor, head: Tensor, token_q: Tensor, token_kv: Tensor):
    """The mask_mod of a sliced BlockMask: PyTorch's error saying to take the original's."""
    raise RuntimeError(
        "Cannot use mask_mod from a sliced BlockMask. When you slice a BlockMask using [], the mask_mod attribute is "
        "reset. You must set it from the original BlockMask's mask_mod.\n\nIncorrect usage:\n  base_mask = "
        "create_block_mask(my_mask_fn, ...)\n  sliced_mask = base_mask[:, :, block_idx]\n  sliced_mask.mask_mod = "
        "apply_offset(sliced_mask.mask_mod, offset)  # WRONG!\n\nCorrect usage:\n  base_mask = "
        "create_block_mask(my_mask_fn, ...)\n  sliced_mask = base_mask[:, :, block_idx]\n  sliced_mask.mask_mod = "
        "apply_offset(base_mask.mask_mod, offset)  # Use base_mask!")


def _dense_to_ordered(dense: Tensor) -> tuple[Tensor, Tensor]:
    """Per row of blocks: how many are set, and the column indices with the set ones first (stable)."""
    dense = dense.to(ea.int32)
    return dense.sum(-1).to(ea.int32), ea.argsort(dense, dim=-1, descending=True, stable=True).to(ea.int32)


def _ordered_to_dense(num_blocks: Tensor, indices: Tensor, num_cols: int) -> Tensor:
    """The inverse of `_dense_to_ordered`: a 0/1 int32 tensor (..., rows, num_cols)."""
    valid = ea.arange(indices.shape[-1], device=indices.device) < num_blocks.unsqueeze(-1)
    cols = ea.where(valid, indices.long(), num_cols)  # invalid entries land in a spare column
    dense = ea.zeros((*indices.shape[:-1], num_cols + 1), dtype=ea.int32, device=indices.device)
    dense.scatter_(-1, cols, 1)
    return dense[..., :num_cols].contiguous()


class BlockMask:
    """A block-sparse attention mask: per row of query blocks, the key blocks that are partially masked
    (`kv_num_blocks`/`kv_indices`) and those kept entirely (`full_kv_num_blocks`/`full_kv_indices`), with the
    transposed lists (`q_*`), the block sizes, the original sequence lengths and the `mask_mod` itself."""

    def __init__(self, seq_lengths, kv_num_blocks, kv_indices, full_kv_num_blocks, full_kv_indices, q_num_blocks,
                 q_indices, full_q_num_blocks, full_q_indices, BLOCK_SIZE, mask_mod):  # noqa: N803
        self.seq_lengths = tuple(seq_lengths)
        self.kv_num_blocks, self.kv_indices = kv_num_blocks, kv_indices
        self.full_kv_num_blocks, self.full_kv_indices = full_kv_num_blocks, full_kv_indices
        self.q_num_blocks, self.q_indices = q_num_blocks, q_indices
        self.full_q_num_blocks, self.full_q_indices = full_q_num_blocks, full_q_indices
        self.BLOCK_SIZE = tuple(BLOCK_SIZE)
        self.mask_mod = mask_mod

    @classmethod
    def from_kv_blocks(cls, kv_num_blocks: Tensor, kv_indices: Tensor, full_kv_num_blocks: Tensor | None = None,
                       full_kv_indices: Tensor | None = None, BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE,  # noqa: N803
                       mask_mod: Callable | None = None, seq_lengths: tuple[int, int] | None = None) -> BlockMask:
        """A BlockMask from its key-block lists; the query-block lists are derived by transposing them."""
        if kv_indices.dim() < 2:
            raise RuntimeError("BlockMask must have at least 2 dimensions")
        if (full_kv_num_blocks is None) != (full_kv_indices is None):
            raise RuntimeError("full_kv_num_blocks and full_kv_indices must be both provided or omitted")
        q_num, q_idx = _dense_to_ordered(
            _ordered_to_dense(kv_num_blocks, kv_indices, kv_indices.shape[-1]).transpose(-2, -1))
        full_q_num = full_q_idx = None
        if full_kv_num_blocks is not None:
            full_q_num, full_q_idx = _dense_to_ordered(
                _ordered_to_dense(full_kv_num_blocks, full_kv_indices, full_kv_indices.shape[-1]).transpose(-2, -1))
        bs = (BLOCK_SIZE, BLOCK_SIZE) if isinstance(BLOCK_SIZE, int) else tuple(BLOCK_SIZE)
        if seq_lengths is None:
            seq_lengths = (kv_num_blocks.shape[-1] * bs[0], kv_indices.shape[-1] * bs[1])
        return cls(seq_lengths, kv_num_blocks, kv_indices, full_kv_num_blocks, full_kv_indices, q_num, q_idx,
                   full_q_num, full_q_idx, bs, noop_mask if mask_mod is None else mask_mod)

    def __getitem__(self, index) -> BlockMask:
        """The BlockMask of some batches, heads or query-block rows (integers keep their dimension, as PyTorch's);
        its mask_mod is reset to one that raises (take the original's)."""
        index = index if isinstance(index, tuple) else (index,)
        padded = (*index, slice(None), slice(None), slice(None))[:3]
        index = tuple((slice(i + n, i + n + 1) if -n <= i < 0 else slice(i, i + 1)) if isinstance(i, int) else i
                      for i, n in zip(padded, self.kv_num_blocks.shape[:3], strict=True))
        full = self.full_kv_num_blocks is not None
        return BlockMask.from_kv_blocks(self.kv_num_blocks[index], self.kv_indices[index],
                                        self.full_kv_num_blocks[index] if full else None,
                                        self.full_kv_indices[index] if full else None, BLOCK_SIZE=self.BLOCK_SIZE,
                                        mask_mod=_sliced_mask_mod_error, seq_lengths=self.seq_lengths)

    def _adjust(self, new_q_len: int, new_kv_len: int) -> BlockMask:
        """This mask cropped to its upper-left (new_q_len, new_kv_len) corner, block lists trimmed (for decoding
        with a mask made for the longest sequence)."""
        rows, cols = -(-new_q_len // self.BLOCK_SIZE[0]), -(-new_kv_len // self.BLOCK_SIZE[1])

        def crop(num_blocks, indices):
            indices = indices[..., :rows, :cols]
            num_blocks = num_blocks[..., :rows].clamp(max=cols)
            return (indices < num_blocks.unsqueeze(-1)).sum(-1).to(ea.int32), indices

        kv_num, kv_idx = crop(self.kv_num_blocks, self.kv_indices)
        full_num = full_idx = None
        if self.full_kv_num_blocks is not None:
            full_num, full_idx = crop(self.full_kv_num_blocks, self.full_kv_indices)
        return BlockMask.from_kv_blocks(kv_num, kv_idx, full_num, full_idx, BLOCK_SIZE=self.BLOCK_SIZE,
                                        mask_mod=self.mask_mod, seq_lengths=(new_q_len, new_kv_len))

    def to(self, device) -> BlockMask:
        """A copy with every block list on `device`."""
        def move(t):
            return None if t is None else t.to(device)
        return BlockMask(self.seq_lengths, *(move(t) for t in (
            self.kv_num_blocks, self.kv_indices, self.full_kv_num_blocks, self.full_kv_indices, self.q_num_blocks,
            self.q_indices, self.full_q_num_blocks, self.full_q_indices)), self.BLOCK_SIZE, self.mask_mod)

    def as_tuple(self) -> tuple:
        return (*self.seq_lengths, self.kv_num_blocks, self.kv_indices, self.full_kv_num_blocks,
                self.full_kv_indices, self.q_num_blocks, self.q_indices, self.full_q_num_blocks, self.full_q_indices,
                *self.BLOCK_SIZE, self.mask_mod)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.kv_indices.shape[:-2]) + self.seq_lengths

    def numel(self) -> int:
        """The number of elements of the mask (sparsity not counted)."""
        return math.prod(self.shape)

    def sparsity(self) -> float:
        """The percentage of blocks that are skipped (neither partial nor full)."""
        computed = int(self.kv_num_blocks.sum())
        if self.full_kv_num_blocks is not None:
            computed += int(self.full_kv_num_blocks.sum())
        return 100 * (1 - computed * self.BLOCK_SIZE[0] * self.BLOCK_SIZE[1] / self.numel())

    def to_dense(self) -> Tensor:
        """The block-level mask (..., query blocks, key blocks), int32: 1 where a block is computed."""
        dense = _ordered_to_dense(self.kv_num_blocks, self.kv_indices, self.kv_indices.shape[-1])
        if self.full_kv_num_blocks is not None:
            dense = dense | _ordered_to_dense(self.full_kv_num_blocks, self.full_kv_indices,
                                              self.full_kv_indices.shape[-1])
        return dense

    def to_string(self, grid_size: int | tuple[int, int] = (20, 20), limit: int = 4) -> str:
        """A picture of the block mask: '█' computed, ' ' skipped, '░' a mix (when blocks are summarized)."""
        dense = self.to_dense()
        *batch_dims, rows, cols = dense.shape
        if grid_size == -1:
            max_rows, max_cols = rows, cols
        elif isinstance(grid_size, int):
            max_rows = max_cols = grid_size
        else:
            max_rows, max_cols = grid_size
        row_step, col_step = max(1, -(-rows // max_rows)), max(1, -(-cols // max_cols))
        out = []
        for i, idx in enumerate(itertools.product(*[range(d) for d in batch_dims])):
            if i == limit:
                out += ["...", "To print out more, set BlockMask.to_string(limit=N)",
                        "You can also index (BlockMask[batch, head]) to choose a specific batch or head"]
                break
            cur = dense[idx] if idx else dense
            vis = f"{idx}\n"
            for r in range(0, rows, row_step):
                for c in range(0, cols, col_step):
                    frac = cur[r:r + row_step, c:c + col_step].float().mean().item()
                    vis += ("█" if frac == 1 else " " if frac == 0 else "░") * 2
                vis += "\n"
            out.append(vis)
        return "\n".join(out)

    def __str__(self) -> str:
        return f"BlockMask(shape={self.shape}, sparsity={self.sparsity():.2f}%, \n{self.to_string().strip()}\n)"

    def __repr__(self) -> str:
        def shape_or_none(x):
            return None if x is None else x.shape
        name = getattr(self.mask_mod, "__name__", self.mask_mod)
        return (f"BlockMask(\n    kv_num_blocks={self.kv_num_blocks.shape},\n    kv_indices={self.kv_indices.shape},\n"
                f"    full_kv_num_blocks={shape_or_none(self.full_kv_num_blocks)},\n"
                f"    full_kv_indices={shape_or_none(self.full_kv_indices)},\n"
                f"    q_num_blocks={shape_or_none(self.q_num_blocks)},\n"
                f"    q_indices={shape_or_none(self.q_indices)},\n"
                f"    full_q_num_blocks={shape_or_none(self.full_q_num_blocks)},\n"
                f"    full_q_indices={shape_or_none(self.full_q_indices)},\n    BLOCK_SIZE={self.BLOCK_SIZE},\n"
                f"    shape={self.shape},\n    sparsity={self.sparsity():.2f}%,\n    mask_mod={name}\n)")


def create_block_mask(mask_mod: Callable, B: int | None, H: int | None, Q_LEN: int, KV_LEN: int,  # noqa: N803
                      device=None, BLOCK_SIZE: int | tuple[int, int] = _DEFAULT_SPARSE_BLOCK_SIZE,  # noqa: N803
                      _compile: bool = False, separate_full_blocks: bool = True, compute_dq_write_order: bool = False,
                      dq_kv_order: bool = True) -> BlockMask:
    """The BlockMask of `mask_mod` over (B, H, Q_LEN, KV_LEN), tiled by `BLOCK_SIZE` (query, key)."""
    if _is_score_mod(mask_mod):
        raise AssertionError(f"create-block_mask requires a mask_mod function! Got {mask_mod}")
    if _compile:
        warnings.warn("_compile flag on create_block_mask was originally added to work around a torch.compile "
                      "limitation. That limitation has since been addressed. So, to compile create_block_mask, we "
                      "suggest doing torch.compile(create_block_mask). This still works for now, but will be "
                      "removed in the future.", DeprecationWarning, stacklevel=2)
    if not isinstance(dq_kv_order, bool):
        raise ValueError("dq_kv_order must be a bool when using create_block_mask")
    qb, kb = (BLOCK_SIZE, BLOCK_SIZE) if isinstance(BLOCK_SIZE, int) else BLOCK_SIZE
    mask = create_mask(mask_mod, B, H, Q_LEN, KV_LEN, device)
    pad_q, pad_kv = -Q_LEN % qb, -KV_LEN % kb
    if pad_q or pad_kv:
        mask = _pad_bool(mask, pad_q, pad_kv)
    b, h, q, kv = mask.shape
    counts = mask.view(b, h, q // qb, qb, kv // kb, kb).sum((3, 5))
    if separate_full_blocks:
        full = (counts == qb * kb).to(ea.int8)
        partial = ((counts > 0) & (counts < qb * kb)).to(ea.int8)
        full_num, full_idx = _dense_to_ordered(full)
    else:
        partial, full_num, full_idx = (counts > 0).to(ea.int8), None, None
    kv_num, kv_idx = _dense_to_ordered(partial)
    return BlockMask.from_kv_blocks(kv_num, kv_idx, full_num, full_idx, BLOCK_SIZE=(qb, kb), mask_mod=mask_mod,
                                    seq_lengths=(Q_LEN, KV_LEN))


def _pad_bool(mask: Tensor, pad_q: int, pad_kv: int) -> Tensor:
    """`mask` (B, H, Q, KV) with False rows and columns appended up to whole blocks."""
    B, H, Q, KV = mask.shape
    out = ea.zeros((B, H, Q + pad_q, KV + pad_kv), dtype=ea.bool, device=mask.device)
    out[:, :, :Q, :KV] = mask
    return out


def _empty_block_mask(query: Tensor, key: Tensor) -> BlockMask:
    """The BlockMask of no masking: one huge block per row."""
    one = ea.ones((1, 1, 1), dtype=ea.int32, device=query.device)
    return BlockMask.from_kv_blocks(one, ea.zeros((1, 1, 1, 1), dtype=ea.int32, device=query.device),
                                    BLOCK_SIZE=_LARGE_SPARSE_BLOCK_SIZE, seq_lengths=(query.shape[-2], key.shape[-2]))


_warned: set[str] = set()  # the warnings given once per process, as PyTorch's _warn_once


def flex_attention(query: Tensor, key: Tensor, value: Tensor, score_mod: Callable | None = None,
                   block_mask: BlockMask | None = None, scale: float | None = None, enable_gqa: bool = False,
                   return_lse: bool = False, kernel_options: dict | None = None, *,
                   return_aux: AuxRequest | None = None):
    """softmax(score_mod(Q K^T * scale) where mask_mod) V for (B, H, L, E) query and (B, Hkv, S, E) key/value.

    Returns the (B, H, L, Ev) output; with `return_lse` also the (B, H, L) logsumexp, with `return_aux` an
    `AuxOutput`. Rows masked out entirely give zeros (and a logsumexp of -inf). As PyTorch's, it refuses inputs
    that require grad on the CPU (its CPU kernel has no backward); on CUDA the composition is differentiated.
    """
    if query.device != key.device or query.device != value.device:  # (lower-precision key/value are allowed)
        raise ValueError(f"Expected query, key, and value to have the same device type, but got query.device: "
                         f"{query.device}, key.device: {key.device}, and value.device: {value.device} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise ValueError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                         f"{query.dim()}, key.dim: {key.dim()} and value.dim: {value.dim()} instead.")
    if query.size(-1) != key.size(-1):
        raise ValueError(f"Expect query and key/value to have the same embedding dimension but got "
                         f"E={query.size(-1)} and E={key.size(-1)}.")
    if query.device.type == "cpu" and (query.requires_grad or key.requires_grad or value.requires_grad):
        raise NotImplementedError("FlexAttention does not support backward on CPU. Please set the input "
                                  "requires_grad to False or use another device.")
    if query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        raise NotImplementedError("NYI: query, key, and value must be 4D tensors")
    hq, hkv = query.size(1), key.size(1)
    if not enable_gqa and hq != hkv:
        raise ValueError(f"Expect query and key/value to have the same number of heads but got Hq={hq} and "
                         f"Hkv={hkv}. Try setting enable_gqa=True for GQA.")
    if enable_gqa and hq % hkv:
        raise ValueError(f"Expect number of query heads to be a multiple of kv heads for GQA but got Hq={hq} and "
                         f"Hkv={hkv}.")
    if query.size(0) != key.size(0) and block_mask is None:
        raise ValueError(f"Expect query and key/value to have the same batch size, or non-none block_mask, but got "
                         f"block_mask=None, Bq={query.size(0)}, and Bkv={key.size(0)}.")
    if block_mask is None:
        block_mask = _empty_block_mask(query, key)
    elif block_mask.mask_mod is _sliced_mask_mod_error:
        raise RuntimeError("Cannot use mask_mod from a sliced BlockMask")
    elif block_mask.BLOCK_SIZE != (_LARGE_SPARSE_BLOCK_SIZE, _LARGE_SPARSE_BLOCK_SIZE):
        _check_lengths(query, key, block_mask)
    if return_lse and return_aux is not None:
        raise ValueError("Cannot specify both return_lse and return_aux. return_lse is deprecated, please use "
                         "return_aux=AuxRequest(lse=True) instead.")
    if return_lse and "return_lse" not in _warned:
        _warned.add("return_lse")
        warnings.warn("return_lse is deprecated and will be removed in v2.10. Please use "
                      "return_aux=AuxRequest(lse=True) instead.", FutureWarning, stacklevel=2)
    if return_aux is not None and return_aux.max_scores and "cpu" in (query.device.type, key.device.type,
                                                                      value.device.type):
        raise NotImplementedError("Returning max scores is not supported on CPU/MPS.")
    if "unfused" not in _warned and not _FLEX_ATTENTION_DISABLE_COMPILE_DEBUG:
        _warned.add("unfused")
        warnings.warn("flex_attention called without torch.compile() - this will use an unfused implementation that "
                      "materializes the full scores matrix instead of generating a fused kernel.\n\nSOLUTION: Use "
                      "torch.compile(flex_attention)(...)\n\nIf you want to debug your score_mod/mask_mod, you can "
                      "set:\ntorch.nn.attention.flex_attention._FLEX_ATTENTION_DISABLE_COMPILE_DEBUG = True\n\nThis "
                      "will allow you to use print statements or breakpoints. Note: This doesn't work with the "
                      "backwards pass and may produce incorrect results.", UserWarning, stacklevel=2)
    scale = 1.0 / math.sqrt(query.size(-1)) if scale is None else scale
    out, lse, row_max = _math_attention(query, key, value, score_mod or _identity, block_mask.mask_mod, scale)
    want_lse = return_lse or (return_aux is not None and return_aux.lse)
    if return_aux is not None:
        return out, AuxOutput(lse=lse if want_lse else None, max_scores=row_max if return_aux.max_scores else None)
    return (out, lse) if return_lse else out


def _check_lengths(query: Tensor, key: Tensor, block_mask: BlockMask) -> None:
    q_len, kv_len = block_mask.shape[-2], block_mask.shape[-1]
    L, S = query.size(-2), key.size(-2)
    if L > q_len or S > kv_len:
        raise ValueError(f"block_mask was created for block_mask.shape={block_mask.shape} but got q_len={L} and "
                         f"kv_len={S}. As the block mask was created for a smaller length than you're using it for, "
                         "you likely need to create a new block mask.")
    if L < q_len or S < kv_len:
        raise ValueError(f"block_mask was created for block_mask.shape={block_mask.shape} but got q_len={L} and "
                         f"kv_len={S}. As the block mask was created for a larger length than you're using it for, "
                         "you can either 1. create a new block mask with the correct length, or 2. 'adjust' the "
                         "existing block mask to the correct length by calling block_mask._adjust(q_len, kv_len). "
                         "This essentially 'crops' the block mask to the upper left corner, which does not work for "
                         "all mask_mods!")


def _math_attention(query: Tensor, key: Tensor, value: Tensor, score_mod: Callable, mask_mod: Callable,
                    scale: float) -> tuple[Tensor, Tensor, Tensor]:
    """PyTorch's eager flex attention: scores in the working precision, the mods, a safe softmax; returns the output,
    the logsumexp (-inf on fully masked rows) and the row maxima."""
    groups = query.size(1) // key.size(1)
    if groups > 1:
        key, value = key.repeat_interleave(groups, dim=1), value.repeat_interleave(groups, dim=1)
    bq, bkv = query.size(0), key.size(0)
    if not (bq == bkv or (bq > 1 and bkv == 1)):
        raise RuntimeError(f"Bq and Bkv must broadcast. Got Bq={bq} and Bkv={bkv}")
    key, value = key.expand(bq, *key.shape[1:]), value.expand(bq, *value.shape[1:])
    work = ea.float64 if query.dtype == ea.float64 else ea.float32
    scores = ea.matmul(query.to(work), key.to(work).transpose(-2, -1)) * scale
    shape = tuple(scores.shape)
    b, h, m, n = _grid(*shape, query.device)
    keep = _as_full(mask_mod(b, h, m, n), shape, ea.bool, query.device)
    modded = _as_full(score_mod(scores, b, h, m, n), shape, work, query.device)
    post = ea.where(keep, modded, ea.tensor(float("-inf"), dtype=work, device=query.device))
    lse = post.logsumexp(-1)
    lse = ea.where((post == float("-inf")).all(-1), float("-inf"), lse)
    row_max = post.max(-1)[0]
    out = ea.matmul(ea._safe_softmax(post, -1).to(query.dtype), value.to(query.dtype))
    return out, lse, row_max
