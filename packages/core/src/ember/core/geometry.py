"""The geometry gate: the one check every tensor built from an outside (storage, size, stride,
offset) passes before any kernel may read it.

NOTE [ The geometry gate ]
A `Tensor` is trusted metadata: kernels index its storage with `offset + sum(i * stride)` and
never check again. So every place that takes a geometry from outside ember's own view ops
(`as_strided`, `from_numpy`, DLPack and `__cuda_array_interface__` imports, tensors rebuilt from
shared memory or a pickle, and every checkpoint loader) builds its tensor through `make_tensor`,
which calls `check_geometry` first. The rules follow PyTorch's `setStorage`/`as_strided`:
sizes, strides and the offset are integers (bools and floats refused), never negative, and
numel and the extent are computed exactly (Python ints) and refused past int64, so no wrapped
product can hide an out-of-bounds extent; the last element must lie inside the storage's
bytes. A zero-size tensor needs no bytes; a stride-0 dimension costs nothing, so a huge
expanded tensor stays a cheap view.
"""

from __future__ import annotations

import operator

from ember.core import dtypes
from ember.core.storage import Storage
from ember.core.tensor import Tensor

__all__ = ["check_geometry", "make_tensor", "INT64_MAX"]

INT64_MAX = 2**63 - 1


def _ints(values, what: str, op: str) -> tuple[int, ...]:
    if not isinstance(values, tuple | list):
        raise TypeError(f"{op}(): argument '{what}' must be tuple of ints, not {type(values).__name__}")
    out = []
    for i, v in enumerate(values):
        if isinstance(v, bool):
            raise TypeError(f"{op}(): argument '{what}' must be tuple of ints, but found element of type bool at "
                            f"pos {i}")
        try:
            out.append(operator.index(v))
        except TypeError:
            raise TypeError(f"{op}(): argument '{what}' must be tuple of ints, but found element of type "
                            f"{type(v).__name__} at pos {i}") from None
    return tuple(out)


def _int(value, what: str, op: str) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{op}(): argument '{what}' must be int, not bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{op}(): argument '{what}' must be int, not {type(value).__name__}") from None


def check_geometry(storage_nbytes: int, itemsize: int, size, stride, offset, *,
                   op: str = "as_strided") -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """Validate a tensor geometry over a storage of `storage_nbytes` bytes; return it as ints.

    Args:
        storage_nbytes: the storage's size in bytes.
        itemsize: bytes per element of the dtype.
        size, stride: sequences of ints, in elements; `offset`: the first element's index.
        op: the operation named in the messages.

    Returns:
        `(size, stride, offset)` as a tuple of ints, a tuple of ints and an int.

    Raises:
        TypeError: a size, stride or offset that is not an integer (bool and float included).
        RuntimeError: a negative offset, size or stride, lengths that differ, a numel or extent
            past int64, or an extent that reaches past the storage (PyTorch's messages).

    Example:
        >>> check_geometry(16, 4, [2, 2], [2, 1], 0)
        ((2, 2), (2, 1), 0)
    """
    size, stride = _ints(size, "size", op), _ints(stride, "stride", op)
    offset = _int(offset, "storage_offset", op)
    if len(size) != len(stride):  # each of PyTorch's entry points says it its own way
        if op == "empty_strided":
            raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
                               f"({len(stride)})")
        if op == "set_":
            raise RuntimeError(f"unequal size length ({len(size)}) and stride length ({len(stride)})")
        raise RuntimeError("mismatch in length of strides and shape")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    negative = next((n for n in size if n < 0), None)
    if negative is not None and op not in ("as_strided", "set_"):
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative}: {list(size)}")
    if any(s < 0 for s in stride):
        if op == "set_":  # PyTorch's setStorage computes the extent first, which a negative stride overflows
            if 0 in size:
                return size, stride, offset
            raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                               f"strides={list(stride)}")
        raise RuntimeError(f"{op}: Negative strides are not supported at the moment, got strides: {list(stride)}")
    if negative is not None:  # as_strided and set_ meet it only in the extent and numel computations
        if 0 in size:
            raise RuntimeError(f"Trying to create tensor with negative dimension {negative}: {list(size)}")
        if op == "as_strided" and any(n < 0 and s for n, s in zip(size, stride)):
            raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                               f"strides={list(stride)}")
        raise RuntimeError("numel: integer multiplication overflow")
    if offset > INT64_MAX or any(s > INT64_MAX for s in stride) or any(n > INT64_MAX for n in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    if 0 in size:
        return size, stride, offset
    # PyTorch's order: the extent's overflow (computeStorageNbytes), then numel's
    need = (offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1) * itemsize
    if need > INT64_MAX:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    numel = 1
    for n in size:
        numel *= n
        if numel > INT64_MAX:
            raise RuntimeError(f"numel: integer multiplication overflow (sizes {list(size)})")
    if need > storage_nbytes:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {itemsize} requiring a storage size of {need} are out of bounds for storage "
                           f"of size {storage_nbytes}")
    return size, stride, offset


def make_tensor(storage: Storage, offset, size, stride, dtype, cls=None, *, op: str = "as_strided") -> Tensor:
    """A tensor over `storage`, built only after `check_geometry` accepts its geometry and dtype."""
    if not isinstance(storage, Storage):
        raise TypeError(f"{op}: expected a Storage, got {type(storage).__name__}")
    if not isinstance(dtype, dtypes.dtype):
        raise TypeError(f"{op}: unknown dtype {dtype!r}")
    size, stride, offset = check_geometry(storage.nbytes, dtype.itemsize, size, stride, offset, op=op)
    return Tensor._make(storage, offset, size, stride, dtype, cls)
