"""`pad_sequence`: stack variable-length sequences into one padded tensor."""

from __future__ import annotations

from collections.abc import Sequence

from ember import autograd as ea
from ember.core import Tensor

__all__ = ["pad_sequence"]


def pad_sequence(sequences: Sequence[Tensor], batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Pad tensors of shape (L_i, *) to the longest L and stack them: (L, B, *), or (B, L, *)
    with `batch_first`; `padding_side="left"` pads before the data.

    >>> import ember.autograd as torch
    >>> pad_sequence([torch.ones(2), torch.ones(1)], batch_first=True).tolist()
    [[1.0, 1.0], [1.0, 0.0]]
    """
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if len(sequences) == 0:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        extra = longest - s.shape[0]
        pads = [0, 0] * (s.dim() - 1) + ([0, extra] if padding_side == "right" else [extra, 0])
        padded.append(ea.pad(s, tuple(pads), value=padding_value) if extra else s)
    out = ea.stack(padded, 0)
    return out if batch_first else out.transpose(0, 1)
