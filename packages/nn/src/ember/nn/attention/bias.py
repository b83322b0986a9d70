"""`torch.nn.attention.bias`: causal masks that `scaled_dot_product_attention` takes as `attn_mask` without a
materialized tensor: `causal_upper_left` (the `is_causal=True` triangle) and `causal_lower_right` (the diagonal
aligned to the last key, as when new queries attend to a longer cache)."""

from __future__ import annotations

import warnings
from enum import IntEnum, auto

import ember.autograd as ea

__all__ = ["CausalVariant", "CausalBias", "causal_upper_left", "causal_lower_right"]


class CausalVariant(IntEnum):
    """Where the causal triangle's diagonal starts: the top-left corner, or aligned to the bottom-right one."""

    UPPER_LEFT = auto()
    LOWER_RIGHT = auto()


class CausalBias:
    """A causal mask of `seq_len_q` queries over `seq_len_kv` keys, materialized only where a kernel needs it."""

    def __init__(self, variant: CausalVariant, seq_len_q: int, seq_len_kv: int) -> None:
        if not isinstance(variant, CausalVariant):
            raise AssertionError(f"variant must be a CausalVariant, got {type(variant).__name__}")
        self.variant, self.seq_len_q, self.seq_len_kv = variant, seq_len_q, seq_len_kv
        if seq_len_q > seq_len_kv and variant == CausalVariant.LOWER_RIGHT:
            warnings.warn("Lower right causal bias will produce NaNs in the output when seq_len_q > seq_len_kv!",
                          stacklevel=2)

    def _upper_left(self, device) -> ea.Tensor:
        return ea.tril(ea.ones(self.seq_len_q, self.seq_len_kv, device=device, dtype=ea.bool))

    def _lower_right(self, device) -> ea.Tensor:
        return ea.tril(ea.ones(self.seq_len_q, self.seq_len_kv, device=device, dtype=ea.bool),
                       diagonal=self.seq_len_kv - self.seq_len_q)

    def _materialize(self, device=None) -> ea.Tensor:
        """The boolean mask (True: the key takes part), on `device` (the CPU when None)."""
        device = "cpu" if device is None else device
        return self._upper_left(device) if self.variant == CausalVariant.UPPER_LEFT else self._lower_right(device)

    def _dispatch(self, query, key, value, dropout_p: float = 0.0, is_causal: bool = False,
                  scale: float | None = None, enable_gqa: bool = False):
        """`scaled_dot_product_attention` with this mask: the causal kernel where the triangle is its own."""
        from ember.nn.functional import scaled_dot_product_attention

        if is_causal:
            raise ValueError("CausalBias should not be used with causal=True")
        if self.seq_len_q == self.seq_len_kv or self.variant == CausalVariant.UPPER_LEFT:
            return scaled_dot_product_attention(query, key, value, None, dropout_p, True, scale, enable_gqa)
        return scaled_dot_product_attention(query, key, value, self._materialize(query.device), dropout_p, False,
                                            scale, enable_gqa)

    def __repr__(self) -> str:
        return repr(self._materialize())


def _sizes(size: tuple, name: str) -> tuple[int, int]:
    if len(size) != 2:
        raise AssertionError(f"{name} only supports 2D tensors")
    return size[0], size[1]


def causal_upper_left(*size) -> CausalBias:
    """The causal mask whose diagonal starts at the top-left corner (`is_causal=True`'s), of `(seq_len_q,
    seq_len_kv)`."""
    return CausalBias(CausalVariant.UPPER_LEFT, *_sizes(size, "causal_upper_left"))


def causal_lower_right(*size) -> CausalBias:
    """The causal mask whose diagonal ends at the bottom-right corner: query i sees the keys up to
    `i + seq_len_kv - seq_len_q`."""
    return CausalBias(CausalVariant.LOWER_RIGHT, *_sizes(size, "causal_lower_right"))
