"""Variable-length sequences: `pad_sequence`, and `PackedSequence` with `pack_padded_sequence`,
`pad_packed_sequence`, `pack_sequence` (the recurrent layers accept packed input).

A PackedSequence holds the valid time steps of a batch sorted by decreasing length, time-major:
`data` is (sum of lengths, *), `batch_sizes[t]` the number of sequences still running at step t.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ember import autograd as ea
from ember.core import Tensor
from ember.core.dispatch import node_name
from ember.core.ops._util import tp_name

__all__ = ["PackedSequence", "pad_sequence", "pack_padded_sequence", "pad_packed_sequence", "pack_sequence",
           "invert_permutation", "unpad_sequence", "unpack_sequence"]


class PackedSequence_(NamedTuple):
    """PackedSequence's fields (PyTorch's base class of that name)."""

    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(PackedSequence_):
    """Sequences packed time step by time step: `data` (sum of lengths, *), `batch_sizes` per step, and the
    permutations that sorted the batch by length and undo that sort."""

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        # as PyTorch: unsorted_indices defaults to the inverse of sorted_indices; `PackedSequence((data, sizes))`
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is not None:
            if batch_sizes.device.type != "cpu":  # a list fails here with AttributeError, as in PyTorch
                raise ValueError("batch_sizes should always be on CPU. Instances of PackedSequence should never be "
                                 "created manually. They should be instantiated by functions like pack_sequence and "
                                 "pack_padded_sequences in nn.utils.rnn. "
                                 "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
            return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)
        if not (isinstance(data, list | tuple) and len(data) == 2):
            raise AssertionError("Expected data to be a list or tuple of length 2")
        return super().__new__(cls, data[0], data[1], sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs) -> PackedSequence:
        """`data` moved/cast as `Tensor.to`; the index permutations follow its device; `batch_sizes` stays."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        rest = {k: v for k, v in kwargs.items() if k not in ("device", "dtype")}

        def move(t):
            return None if t is None else t.to(data.device, **rest)

        return type(self)(data, self.batch_sizes, move(self.sorted_indices), move(self.unsorted_indices))

    def cuda(self, *args, **kwargs) -> PackedSequence:
        return self.to(*args, **{**kwargs, "device": kwargs.get("device", "cuda")})

    def cpu(self, *args, **kwargs) -> PackedSequence:
        return self.to(*args, **{**kwargs, "device": "cpu"})

    def double(self) -> PackedSequence:
        return self.to(dtype=ea.float64)

    def float(self) -> PackedSequence:
        return self.to(dtype=ea.float32)

    def half(self) -> PackedSequence:
        return self.to(dtype=ea.float16)

    def long(self) -> PackedSequence:
        return self.to(dtype=ea.int64)

    def int(self) -> PackedSequence:
        return self.to(dtype=ea.int32)

    def short(self) -> PackedSequence:
        return self.to(dtype=ea.int16)

    def char(self) -> PackedSequence:
        return self.to(dtype=ea.int8)

    def byte(self) -> PackedSequence:
        return self.to(dtype=ea.uint8)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return self.data.is_pinned()

    def pin_memory(self) -> PackedSequence:
        return type(self)(self.data.pin_memory(), self.batch_sizes, self.sorted_indices, self.unsorted_indices)


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of a permutation of 0..n-1."""
    if permutation is None:
        return None
    out = ea.empty_like(permutation)
    out[permutation] = ea.arange(permutation.numel(), device=permutation.device)
    return out


def pad_sequence(sequences: Sequence[Tensor], batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Pad tensors of shape (L_i, *) to the longest L and stack them: (L, B, *), or (B, L, *)
    with `batch_first`; `padding_side="left"` pads before the data.

    >>> import ember.autograd as torch
    >>> pad_sequence([torch.ones(2), torch.ones(1)], batch_first=True).tolist()
    [[1.0, 1.0], [1.0, 0.0]]
    """
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if len(sequences) == 0:
        raise RuntimeError("received an empty list of sequences")
    for i, s in enumerate(sequences):
        if not isinstance(s, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {tp_name(s)}")
    if sequences[0].dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    if any(s.dim() == 0 for s in sequences):
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    longest = max(s.shape[0] for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    batch = len(sequences)
    # as PyTorch: one tensor of the first sequence's dtype, filled, and each sequence copied into its slice (so a
    # result that requires grad hangs from CopySlices)
    out = ea.full((batch, longest, *trailing) if batch_first else (longest, batch, *trailing), padding_value,
                  dtype=sequences[0].dtype, device=sequences[0].device)
    for i, s in enumerate(sequences):
        n = s.shape[0]
        _check_copy_shape((n, *trailing), tuple(s.shape))
        rows = slice(0, n) if padding_side == "right" else slice(longest - n, longest)
        out[(i, rows) if batch_first else (rows, i)] = s
    return out


def _check_copy_shape(target: tuple, source: tuple) -> None:
    """copy_'s broadcast check of `source` into a slice of shape `target`, in PyTorch's words."""
    ndim = max(len(target), len(source))
    for d in range(ndim - 1, -1, -1):
        a = target[d - ndim + len(target)] if d >= ndim - len(target) else 1
        b = source[d - ndim + len(source)] if d >= ndim - len(source) else 1
        if a != b and a != 1 and b != 1:
            raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton "
                               f"dimension {d}")


def _lengths_list(lengths) -> list[int]:
    if isinstance(lengths, Tensor):
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def _packing_lengths(lengths) -> list[int]:
    """`lengths` as ints after PyTorch's first check: one dimension."""
    t = lengths if isinstance(lengths, Tensor) else ea.as_tensor(lengths, dtype=ea.int64)
    if t.dim() != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {t.dim()}D cpu Long tensor")
    return _lengths_list(t)


def _check_batch(lens: list, input: Tensor, batch_first: bool) -> None:
    """One length per sequence of the batch, as PyTorch's packing kernel checks first (it reads dimension 1, or
    transposes 0 and 1, before anything else)."""
    if input.dim() < 2:
        n = max(input.dim(), 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got 1)")
    batch = input.shape[0 if batch_first else 1]
    if len(lens) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} "
                           f"(batch_size={batch})")


def pack_padded_sequence(input: Tensor, lengths: Tensor | Sequence[int], batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch (T, B, *) ((B, T, *) with `batch_first`) of sequences of `lengths`."""
    if not enforce_sorted and isinstance(lengths, Tensor) and lengths.dim() > 1:
        # PyTorch sorts first and selects the batch with the sort's indices, before checking the lengths' rank
        raise IndexError("index_select(): Index is supposed to be a vector")
    lens = _packing_lengths(lengths)
    if enforce_sorted:
        _check_batch(lens, input, batch_first)
        if any(a < b for a, b in zip(lens, lens[1:])):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                               "sidestep this requirement if you do not need ONNX exportability.")
        sorted_indices = None
    else:
        order = sorted(range(len(lens)), key=lambda i: -lens[i])
        sorted_indices = ea.tensor(order, dtype=ea.int64, device=input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
        lens = [lens[i] for i in order]
        _check_batch(lens, input, batch_first)  # after the sort's index_select, as PyTorch
    if lens and lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    if batch_first:
        input = input.transpose(0, 1)
    batch_sizes = [sum(1 for n in lens if n > t) for t in range(lens[0] if lens else 0)]
    data = node_name(ea.cat([input[t, :b] for t, b in enumerate(batch_sizes)], 0), "CatBackward0",
                     "PackPaddedSequenceBackward0")
    return PackedSequence(data, ea.tensor(batch_sizes, dtype=ea.int64), sorted_indices,
                          invert_permutation(sorted_indices))


def _unpack_sorted(sequence: PackedSequence, padding_value: float = 0.0,
                   total_length: int | None = None) -> tuple[Tensor, list[int]]:
    """The padded (T, B, *) batch in sorted order, and the sorted lengths: a filled tensor with each time step's
    rows copied in, as PyTorch's kernel (a result that requires grad hangs from CopySlices)."""
    sizes = _lengths_list(sequence.batch_sizes)
    batch = sizes[0] if sizes else 0
    steps = max(len(sizes), total_length or 0)
    data = sequence.data
    out = ea.full((steps, batch, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)
    offset = 0
    for t, b in enumerate(sizes):
        out[t, :b] = data[offset:offset + b]
        offset += b
    lengths = [sum(1 for s in sizes if s > i) for i in range(batch)]
    return out, lengths


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:
    """The inverse of `pack_padded_sequence`: `(padded, lengths)` in the original batch order."""
    if total_length is not None and total_length < len(sequence.batch_sizes):
        raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but got "
                         f"total_length={total_length} and max sequence length being {len(sequence.batch_sizes)}")
    padded, lengths = _unpack_sorted(sequence, padding_value, total_length)
    lengths_t = ea.tensor(lengths, dtype=ea.int64)
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths_t = lengths_t[sequence.unsorted_indices.cpu()]
    return padded, lengths_t


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of (L_i, *) tensors."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list[Tensor]:
    """The inverse of `pad_sequence`: the list of (L_i, *) tensors, each cut to its length."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(n)] for seq, n in zip(padded_sequences, lengths)]


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The inverse of `pack_sequence`: the list of (L_i, *) tensors in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
