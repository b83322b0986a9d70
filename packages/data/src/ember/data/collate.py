"""Collation: a list of samples becomes one batch, the way PyTorch's `default_collate` does it.

In a DataLoader worker, stacked tensors are allocated in the worker's shared-memory segment
pool, so the batch crosses to the main process as a handle (NOTE [ DataLoader worker protocol ]
in `ember.data.worker`).
"""

from __future__ import annotations

import collections.abc
import copy
import functools
import re

import numpy as np

import ember.core as E
from ember.core import Tensor
from ember.core.dtypes import as_dtype
from ember.data import worker as _worker

__all__ = ["default_collate", "default_convert"]

_NP_STRINGS = re.compile(r"[SaUO]")
_ERR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


def _stacked(arrays: list[np.ndarray], dtype) -> Tensor:
    """Stack same-shaped arrays along a new first dimension into a new tensor of `dtype` (in a
    worker, in shared memory)."""
    shape = arrays[0].shape
    for i, a in enumerate(arrays):
        if a.shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 "
                               f"and {list(a.shape)} at entry {i}")
    out_shape = (len(arrays), *shape)
    out = _worker.empty_shared(out_shape, dtype)
    if out is None:
        out = E.empty(out_shape, dtype=dtype)
    np.stack(arrays, out=out._np())
    return out


def _stack(batch: list[Tensor]) -> Tensor:
    if any(t.device.type != "cpu" for t in batch):
        return E.stack(batch)
    return _stacked([t._np() for t in batch], functools.reduce(E.promote_types, {t.dtype for t in batch}))


def _stack_numpy(batch: list[np.ndarray]) -> Tensor:
    # Straight from numpy (no tensor per sample); dtypes promote as the tensors' would.
    dtypes = {as_dtype(a.dtype) for a in batch}
    return _stacked(batch, functools.reduce(E.promote_types, dtypes))


def default_collate(batch: list | tuple):
    """Merge a list of samples into a batch, recursively by the type of the first sample.

    Tensors, numpy arrays and numpy scalars are stacked into one tensor with a new first
    dimension (size `len(batch)`); Python floats become a float64 tensor, ints an int64 tensor;
    strings and bytes stay a list; mappings, namedtuples and sequences are collated field by
    field (tuples collate to lists, as in PyTorch).

    Args:
        batch: the samples, all of the same structure.

    Returns:
        The batch, with the samples' structure.

    Raises:
        TypeError: an element type it does not know how to collate.
        RuntimeError: tensors of different shapes, or sequences of different lengths.

    >>> b = default_collate([(1, 0.5, "a"), (2, 1.5, "b")])
    >>> b[0].tolist(), b[0].dtype, b[1].dtype, b[2]
    ([1, 2], ember.int64, ember.float64, ('a', 'b'))
    """
    elem = batch[0]
    elem_type = type(elem)
    if isinstance(elem, Tensor):
        return _stack(batch)
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "bytes_", "string_"):
        if isinstance(elem, np.ndarray) and elem.shape != ():
            if _NP_STRINGS.search(elem.dtype.str) is not None:
                raise TypeError(_ERR.format(elem.dtype))
            return _stack_numpy(batch)
        if _NP_STRINGS.search(np.asarray(elem).dtype.str) is not None:
            raise TypeError(_ERR.format(np.asarray(elem).dtype))
        return E.as_tensor(np.asarray(batch))
    if isinstance(elem, float):
        return E.tensor(batch, dtype=E.float64)
    if isinstance(elem, int):
        return E.tensor(batch)
    if isinstance(elem, str | bytes):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        fields = {key: default_collate([d[key] for d in batch]) for key in elem}
        if isinstance(elem, collections.abc.MutableMapping):
            clone = copy.copy(elem)
            clone.update(fields)
            return clone
        try:
            return elem_type(fields)
        except TypeError:
            return fields
    if _is_namedtuple(elem):
        return elem_type(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if not all(len(e) == size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = [default_collate(samples) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return transposed
        if isinstance(elem, collections.abc.MutableSequence):
            clone = copy.copy(elem)
            for i, v in enumerate(transposed):
                clone[i] = v
            return clone
        try:
            return elem_type(transposed)
        except TypeError:
            return transposed
    raise TypeError(_ERR.format(elem_type))


def default_convert(data):
    """Turn numpy arrays (and numbers inside numpy types) into tensors, keeping every container;
    the `collate_fn` of a DataLoader without automatic batching.

    >>> import numpy as np
    >>> default_convert({"x": np.zeros(2)})["x"].dtype
    ember.float64
    """
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "bytes_", "string_"):
        if isinstance(data, np.ndarray) and _NP_STRINGS.search(data.dtype.str) is not None:
            return data
        return E.as_tensor(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        fields = {key: default_convert(data[key]) for key in data}
        if isinstance(data, collections.abc.MutableMapping):
            clone = copy.copy(data)
            clone.update(fields)
            return clone
        try:
            return elem_type(fields)
        except TypeError:
            return fields
    if _is_namedtuple(data):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, str | bytes):
        converted = [default_convert(d) for d in data]
        if isinstance(data, collections.abc.MutableSequence):
            clone = copy.copy(data)
            for i, v in enumerate(converted):
                clone[i] = v
            return clone
        try:
            return elem_type(converted)
        except TypeError:
            return converted
    return data

