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
from ember.core.dtypes import as_dtype, from_numpy_dtype
from ember.core.ops._util import tp_name
from ember.data import worker as _worker

__all__ = ["default_collate", "default_convert", "collate", "default_collate_fn_map", "collate_tensor_fn",
           "collate_numpy_array_fn", "collate_numpy_scalar_fn", "collate_float_fn", "collate_int_fn",
           "collate_str_fn"]

_NP_STRINGS = re.compile(r"[SaUO]")
_ERR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
np_str_obj_array_pattern, default_collate_err_msg_format = _NP_STRINGS, _ERR  # PyTorch's names


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
    for i, t in enumerate(batch):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {tp_name(t)}")
    if any(t.device.type != "cpu" or t.requires_grad or type(t) is not Tensor for t in batch):
        return E.stack(batch)  # the dispatched op: autograd records it and subclasses keep their type
    return _stacked([t._np() for t in batch], functools.reduce(E.promote_types, {t.dtype for t in batch}))


def _stack_numpy(batch: list[np.ndarray]) -> Tensor:
    # Straight from numpy (no tensor per sample); dtypes promote as the tensors' would.
    dtypes = {as_dtype(a.dtype) for a in batch}
    return _stacked(batch, functools.reduce(E.promote_types, dtypes))


def collate_tensor_fn(batch, *, collate_fn_map=None) -> Tensor:
    """Stack tensors along a new first dimension (in a worker, into shared memory)."""
    return _stack(batch)


def collate_numpy_array_fn(batch, *, collate_fn_map=None) -> Tensor:
    """Stack numpy arrays into one tensor; arrays of strings or objects are refused."""
    elem = batch[0]
    if _NP_STRINGS.search(elem.dtype.str) is not None:
        raise TypeError(_ERR.format(elem.dtype))
    for a in batch:
        if min(a.strides, default=0) < 0 or not a.dtype.isnative or from_numpy_dtype(a.dtype) is None:
            E.as_tensor(a)  # PyTorch converts each array with as_tensor first: its ValueError or TypeError
    return _stack_numpy(batch) if elem.shape != () else E.as_tensor(np.asarray(batch))


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None) -> Tensor:
    """Numpy scalars become a tensor of their dtype."""
    return E.as_tensor(np.asarray(batch))


def collate_float_fn(batch, *, collate_fn_map=None) -> Tensor:
    """Python floats become a float64 tensor."""
    return E.tensor(batch, dtype=E.float64)


def collate_int_fn(batch, *, collate_fn_map=None) -> Tensor:
    """Python ints become an int64 tensor (bools a bool tensor)."""
    return E.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    """Strings and bytes stay the batch as it is."""
    return batch


# element type (or tuple of types) -> its collate function; an exact type match wins, then the first
# isinstance match in insertion order. Users extend `default_collate` by updating it, as in PyTorch.
default_collate_fn_map: dict = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def collate(batch, *, collate_fn_map: dict | None = None):
    """Merge a list of samples into a batch, dispatching leaves through `collate_fn_map` and recursing
    into mappings, namedtuples and sequences (tuples collate to lists, as in PyTorch).

    Raises:
        TypeError: an element type no entry of `collate_fn_map` handles.
        RuntimeError: sequences of different lengths (or what a collate function raises).
    """
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        def fields():
            return {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update(fields())
                return clone
            return elem_type(fields())
        except TypeError:
            return fields()
    if _is_namedtuple(elem):
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if not all(len(e) == size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = collate(samples, collate_fn_map=collate_fn_map)
                return clone
            return elem_type([collate(samples, collate_fn_map=collate_fn_map) for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise TypeError(_ERR.format(elem_type))


def default_collate(batch: list | tuple):
    """Merge a list of samples into a batch, recursively by the type of the first sample.

    Tensors, numpy arrays and numpy scalars are stacked into one tensor with a new first
    dimension (size `len(batch)`); Python floats become a float64 tensor, ints an int64 tensor;
    strings and bytes stay a list; mappings, namedtuples and sequences are collated field by
    field (tuples collate to lists, as in PyTorch). It is `collate` with `default_collate_fn_map`.

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
    return collate(batch, collate_fn_map=default_collate_fn_map)


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

