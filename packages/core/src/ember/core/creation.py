"""Tensor creation: from data, from numpy (sharing memory), filled, ranges, `*_like`."""

from __future__ import annotations

import functools
import importlib
import numbers
import operator

import numpy as np

from ember.core import dispatch as _dispatch
from ember.core import dtypes
from ember.core import settings as _settings
from ember.core.device import CPU, as_device
from ember.core.geometry import INT64_MAX, check_geometry, make_tensor
from ember.core.ops import memfmt
from ember.core.ops import shape as _shape_ops
from ember.core.ops._util import (NO_FILL, internally, require_grad, scalar_as, warn_at_caller, warn_complex_to_real,
                                  warn_once)
from ember.core.storage import BorrowedBytes, Storage, allocation_error
from ember.core.tensor import _CSTRIDES, Tensor, _contiguous_strides_cached, contiguous_strides, made_like

_device = importlib.import_module("ember.core.device")  # the module (`ember.core.device` is the class)
_SEQ = (tuple, list)  # for isinstance: an inline `tuple | list` builds a Union object per call

__all__ = ["tensor", "as_tensor", "from_numpy", "asarray", "empty", "empty_strided", "zeros", "ones",
           "full", "arange", "range", "linspace", "logspace", "eye", "empty_like", "zeros_like",
           "ones_like", "full_like", "scalar_tensor", "new_empty"]

def _shape_arg(size, op: str = "empty") -> tuple[int, ...]:
    given = size  # the positional arguments, whose parse PyTorch's error words
    if len(size) == 1 and isinstance(size[0], tuple | list):
        size = size[0]
    if all(type(s) is int and s >= 0 for s in size):  # the common case, without the ABC checks below
        return tuple(size)
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = int(s)
        elif not isinstance(s, numbers.Integral) and hasattr(s, "__index__"):  # a 0-dim integer array
            s = operator.index(s)
        if not isinstance(s, numbers.Integral):
            raise size_error(op, given, None) or TypeError(
                f"{op}(): argument 'size' must be tuple of ints, but found element of type {type(s).__name__}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
        out.append(int(s))
    return tuple(out)


def _size_of(args: tuple, size, op: str = "empty") -> tuple[int, ...]:
    """The shape of `zeros(2, 3)`, `zeros((2, 3))` or `zeros(size=(2, 3))`."""
    if size is not None:
        if args:
            raise TypeError("size given both positionally and as a keyword")
        if (err := size_error(op, (), size)) is not None:
            raise err
        return _shape_arg((size,), op)
    if not all(type(s) is int for s in args) and (err := size_error(op, args, None)) is not None:
        raise err
    return _shape_arg(args, op)


def _no_size(op: str) -> None:
    """PyTorch's parser's TypeError for a factory called with no size at all (`torch.zeros()`)."""
    raise TypeError(f'{op}() missing 1 required positional arguments: "size"')


def _type_name(v) -> str:
    """The type name PyTorch's argument parser prints (numpy's scalars with their module)."""
    t = type(v)
    return "Tensor" if isinstance(v, Tensor) else t.__name__ if t.__module__ == "builtins" else \
        f"{t.__module__}.{t.__name__}"


_PY_DTYPES = (float, int, bool, complex)


def dtype_arg(dtype, op: str) -> None:
    """PyTorch's parser takes a torch.dtype or Python's float/int/bool/complex as `dtype=`; a dtype's name or a
    numpy type is refused in its words (ember's own `as_dtype` is more lenient)."""
    if not _good_dtype(dtype):
        raise TypeError(f"{op}(): argument 'dtype' must be torch.dtype, not {_type_name(dtype)}")


def _good_dtype(dtype) -> bool:
    return dtype is None or isinstance(dtype, dtypes.dtype) or any(dtype is t for t in _PY_DTYPES)


def overloads_error(op: str, args: tuple, dtype, overloads: tuple[str, ...]) -> TypeError:
    """PyTorch's parser error for a call that matches none of `op`'s `overloads` (their argument lists before the
    factory keywords, or whole where they hold their own `*`): the positional arguments' types, then `dtype=`'s."""
    from ember.core.random import _FACTORY_KW

    got = ", ".join([_type_name(a) for a in args] + ([] if dtype is None else [f"dtype={_type_name(dtype)}"]))
    sigs = "".join(f" * ({o})\n" if "*" in o else f" * ({o}, *, {_FACTORY_KW})\n" for o in overloads)
    return TypeError(f"{op}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     f"{sigs}")


def _int_like(v, first: bool) -> bool:
    """An element PyTorch's parser takes as an int (a bool only after the first, where the list is known)."""
    if isinstance(v, bool | np.bool_):
        return not first
    if isinstance(v, Tensor):
        return v.numel() == 1 and not (v._dtype.is_floating_point or v._dtype.is_complex)
    try:  # ints, numpy's integers and 0-dim integer arrays: what has __index__
        operator.index(v)
    except TypeError:
        return False
    return True


def size_error(op: str, args: tuple, keyword, name: str = "size") -> TypeError | None:
    """PyTorch's argument-parser error for a `size` that is not a tuple of ints (`zeros(n / 2)`): given
    positionally as `args`, or as the keyword's value; None when every element is an int."""
    if keyword is not None or len(args) == 1:
        v = keyword if keyword is not None else args[0]
        where = "" if keyword is not None else " (position 1)"
        if not isinstance(v, tuple | list):
            if keyword is None and _int_like(v, True):
                return None
            return TypeError(f"{op}(): argument '{name}'{where} must be tuple of ints, not {_type_name(v)}")
        if v and not _int_like(v[0], True):
            if keyword is not None:
                return TypeError(f"{op}(): argument '{name}' must be tuple of ints, not {_type_name(v)}")
            return TypeError(f"{op}(): argument '{name}' (position 1) must be tuple of ints, but found element of "
                             f"type {_type_name(v[0])} at pos 0")
        items = v
    else:
        if args and not _int_like(args[0], True):
            return TypeError(f"{op}() takes 1 positional argument but {len(args)} were given")
        items = args
    for i, v in enumerate(items):
        if i and not _int_like(v, False):
            return TypeError(f"{op}(): argument '{name}' failed to unpack the object at pos {i + 1} with error "
                             f"\"type must be tuple of ints,but got {_type_name(v)}\"")
    return None


def legacy_new_error(args: tuple) -> TypeError | None:
    """PyTorch's refusal of legacy-constructor arguments (`torch.Tensor(2.5)`, `torch.FloatTensor("abc")`,
    `torch.LongTensor(2, 2.5)`): one value that is no sequence, or sizes that are not all ints; else None."""
    if len(args) == 1:
        v = args[0]
        if isinstance(v, str | bytes):
            return TypeError(f"new(): invalid data type '{type(v).__name__}'")
        if v is None or isinstance(v, bool | numbers.Number | np.generic | dict | set):
            return None if _int_like(v, True) else TypeError(f"new(): data must be a sequence (got {_type_name(v)})")
        return None
    if args and _int_like(args[0], True):
        return size_error("new", args, None)
    return None


def _flat_sizes(args: tuple, size) -> tuple:
    """The size arguments of `zeros(2, 3)`, `zeros((2, 3))` or `zeros(size=(2, 3))`, unchecked."""
    given = (size,) if size is not None else args
    return tuple(given[0]) if len(given) == 1 and isinstance(given[0], _SEQ) else given


def _plain_device(device) -> bool:
    """`device=` left out, or the CPU named (`x.device`, "cpu"): the factories' numpy path may apply."""
    return device is None or device is CPU or device.__class__ is str and device == "cpu"


def _numpy_filled(shape, dt, value) -> Tensor | None:
    """A new row-major CPU tensor of `dt` (None: the default float dtype) that numpy allocates and fills (`value`
    None: uninitialised), for a factory called plainly while nothing watches ops (`dispatch.bare`); None where
    numpy cannot or an argument needs checking (the caller's general path then fills through the `fill_` op, or
    raises its errors)."""
    if dt is None:
        dt = dtypes.get_default_dtype()
    elif dt.__class__ is not dtypes.dtype or dt is dtypes.complex32:
        return None
    elif not dtypes._guard_installed and dt in dtypes.RESTRICTED:  # its first use: the guard of its ops goes in
        dtypes._restricted(dt)
    if _device._default is not None:
        return None
    for s in shape:
        if s.__class__ is not int or s < 0:
            return None
    if shape.__class__ is not tuple:
        shape = tuple(shape)
    if value.__class__ is float:  # checked as PyTorch converts it (a finite float beyond float32's range overflows)
        value = scalar_as(dt, value)
    try:
        if value == 0:
            a = np.zeros(shape, dt.np)
        else:
            a = np.empty(shape, dt.np)
            if value is not None:
                a.fill(value)
    except (MemoryError, ValueError):
        return None
    return Tensor._make(Storage(a, a.nbytes), 0, shape, _CSTRIDES.get(shape) or _contiguous_strides_cached(shape), dt)


def _numpy_filled_like(x, dtype, value) -> Tensor | None:
    """`_numpy_filled` of a row-major CPU tensor's shape (PyTorch's preserved layout is then row-major too)."""
    if not (isinstance(x, Tensor) and x._dense_like and x._storage.device.type == "cpu"):
        return None
    shape = x._shape
    if len(shape) > 1 and x._strides != (_CSTRIDES.get(shape) or _contiguous_strides_cached(shape)):
        return None
    return _numpy_filled(shape, x._dtype if dtype is None else dtype, value)


def new_empty(shape: tuple[int, ...], dtype, dev=CPU) -> Tensor:
    """An uninitialised contiguous tensor (the allocation every op's output starts from)."""
    n = 1
    for s in shape:
        n *= s
    nbytes = n * dtype.itemsize
    if nbytes > INT64_MAX:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")
    st = Storage.cpu(nbytes) if dev.type == "cpu" else _shape_ops.new_storage_like(nbytes, dev)
    return Tensor._make(st, 0, shape, contiguous_strides(shape), dtype)


def _finish(t: Tensor, requires_grad: bool, dev, pin_memory: bool = False) -> Tensor:
    if dev != t.device:
        t = t.to(dev)
    if pin_memory:
        t = t.pin_memory()
    if requires_grad:
        require_grad(t)
    return t


def _infer_np(data, dtype):
    """A numpy array of `data` (nested lists/tuples of numbers or tensors) in ember's dtype."""
    if isinstance(data, Tensor):
        a = data.detach()._host_array() if data._storage.device.type != "cpu" else data._np()
        if dtype is not None and data._dtype.is_complex:
            warn_complex_to_real(data._dtype, dtype)
            a = _real_part(a, dtype)
        if dtype is None or (dtype is not dtypes.complex32 and a.dtype.kind != "V"):
            return a if dtype is None else a.astype(dtype.np)
        from ember.core.ops.restricted_dtypes import cast_array

        return cast_array(a, dtype)
    from_numpy_data = isinstance(data, np.ndarray | np.generic)  # numpy data keeps its dtype
    if isinstance(data, np.bool_) and _is_integral(dtype):
        raise _numpy_bool_index_error()
    if isinstance(data, np.uint64) and dtype in (None, dtypes.uint64):
        raise _numpy_uint64_error()
    if from_numpy_data:
        a = np.asarray(data)
        _check_strides(a)
        if isinstance(data, np.ndarray):
            _check_byte_order(a)
            if dtypes.from_numpy_dtype(a.dtype) is None:
                raise _numpy_type_error(a)
    else:
        if isinstance(data, bytes):  # PyTorch reads bytes as a value, not as a sequence of ints
            raise TypeError("new(): invalid data type 'bytes'")
        if _array_like_only(data):
            raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")
        if isinstance(data, list | tuple) and not _leaf_types(data) <= _PY_NUMBERS:
            first = _first_leaf(data)
            if isinstance(first, np.ndarray) and first.ndim == 0:  # PyTorch reads the first one as a sequence
                raise TypeError("len() of unsized object")
            found: list = []
            data = _scalar_leaves(data, found, dtype)
            if dtype is None and any(d for d, _ in found):  # tensors or numpy scalars: PyTorch promotes every leaf
                dtype = functools.reduce(dtypes.promote_types, [d or _python_dtype(x) for d, x in found])
            if _is_integral(dtype) and any(isinstance(x, np.bool_) for _, x in found):
                raise _numpy_bool_index_error()
            if dtype is dtypes.uint64 and any(isinstance(x, np.uint64) for _, x in found):
                raise _numpy_uint64_error()
        if dtype is dtypes.uint64:
            _check_uint64_leaves(data)
        try:  # uint64 values past int64 would go through float64 and lose their low bits
            a = np.array(data, dtype=dtype.np if dtype is dtypes.uint64 else None)
        except ValueError:
            a = _empty_nesting(data)
            if a is None:
                raise _sequence_error(data) from None
        if a.dtype.kind == "c" and dtype is not None and not dtype.is_complex and dtype is not dtypes.bool:
            # PyTorch converts each Python number to the dtype, which a complex number cannot be
            raise TypeError("must be real number, not complex" if dtype.is_floating_point else
                            "'complex' object cannot be interpreted as an integer")
        if a.dtype.kind in "iufO" and dtype is not dtypes.uint64:
            _check_int_overflow(a, dtype)
            _check_unsigned_floats(data, a, dtype)
    if dtype is not None:
        if a.dtype.kind == "c":  # numpy data: the real part, with PyTorch's once-per-process warning
            warn_complex_to_real(dtypes.from_numpy_dtype(a.dtype), dtype)
            a = _real_part(a, dtype)
        if dtype in dtypes.FLOAT8 or dtype is dtypes.complex32:  # PyTorch's conversion, not ml_dtypes' (float8)
            from ember.core.ops.restricted_dtypes import cast_array

            return cast_array(a, dtype)
        with np.errstate(over="ignore"):  # 70000.0 as float16 is inf, silently as PyTorch's
            return a.astype(dtype.np)
    if a.dtype.kind == "f":
        if from_numpy_data:
            return a
        with np.errstate(over="ignore"):  # 1e39 in the default float32 is inf, silently as PyTorch's
            return a.astype(dtypes.get_default_dtype().np)
    if a.dtype.kind in "iu" and not from_numpy_data:
        return a.astype(np.int64)
    if a.dtype.kind == "b":
        return a
    if a.dtype.kind == "c":  # Python complex numbers give the default complex dtype, as in PyTorch
        if from_numpy_data:
            return a
        dt = _inferred_complex_dtype()  # complex32 when the default is float16, as in PyTorch
        if dt is dtypes.complex32:
            from ember.core.ops.restricted_dtypes import cast_array

            return cast_array(a, dt)
        return a.astype(dt.np)
    if a.dtype == np.object_ or a.dtype.kind in "USV":
        raise _sequence_error(data)
    return a


_INT64 = np.iinfo(np.int64)


def _check_int_overflow(a: np.ndarray, dtype) -> None:
    """PyTorch's errors for Python numbers out of range: past int64 (ValueError, as unpacking a C long long), or
    past an integer `dtype` (RuntimeError; an unsigned one takes -max..max, negatives wrapping)."""
    if a.dtype.kind == "O" or (a.dtype.kind == "u" and a.size and a.max() > _INT64.max):
        if dtype is not None and (dtype.is_floating_point or dtype.is_complex):
            return  # PyTorch reads each one as a double: 2**63 is 9.2234e+18
        if a.dtype.kind == "u" or all(isinstance(x, numbers.Integral) for x in a.flat):
            raise ValueError("Overflow when unpacking long long")
        return
    if dtype is None or dtype is dtypes.bool or dtype.np.kind not in "iu" or not a.size:
        return
    info = np.iinfo(dtype.np)
    lo = -info.max if info.min == 0 else info.min
    if a.min() < lo or a.max() > info.max or (a.dtype.kind == "f" and np.isnan(a).any()):
        raise RuntimeError(f"value cannot be converted to type {dtype.np.name} without overflow")


def _check_unsigned_floats(data, a: np.ndarray, dtype) -> None:
    """PyTorch converts a Python float to an unsigned dtype only from 0 to its max (-0.5 and -1.0 overflow, where
    the int -1 wraps to 255): the negative entries of a float array are looked up among the leaves."""
    if dtype is None or dtype.np.kind != "u" or a.dtype.kind != "f" or not a.size or not a.min() < 0:
        return
    from ember.core.ops.indexing import _leaves

    if any(isinstance(v, float) and v < 0 for v in (_leaves(data) if isinstance(data, list | tuple) else [data])):
        raise RuntimeError(f"value cannot be converted to type {dtype.np.name} without overflow")


def _check_uint64_leaves(data) -> None:
    """PyTorch unpacks each leaf for uint64 as a C unsigned long long: a float is refused, a negative int too."""
    from ember.core.ops.indexing import _leaves

    for v in _leaves(data) if isinstance(data, list | tuple) else [data]:
        if isinstance(v, float):
            raise TypeError("an integer is required")
        if isinstance(v, int) and not 0 <= v < 1 << 64:
            raise OverflowError("can't convert negative int to unsigned" if v < 0 else "int too big to convert")


def _real_part(a: np.ndarray, dtype: dtypes.dtype) -> np.ndarray:
    """A complex array's real part when it is cast to a real dtype other than bool (numpy's cast would
    warn), else the array."""
    return a.real if a.dtype.kind == "c" and not dtype.is_complex and dtype is not dtypes.bool else a


def _first_sizes(data) -> list[int]:
    """The sizes along the first elements of nested sequences, down to the first empty one."""
    sizes, x = [], data
    while isinstance(x, list | tuple):
        sizes.append(len(x))
        if not x:
            break
        x = x[0]
    return sizes


def _empty_nesting(data) -> np.ndarray | None:
    """Ragged numbers whose first elements nest down to an empty sequence: PyTorch makes that shape, with no
    element to read (`tensor([[], [1]])` is a (2, 0) float tensor), else None."""
    sizes = _first_sizes(data)
    if 0 not in sizes or _first_non_number(data) is not None:
        return None
    return np.zeros(sizes, np.complex128 if complex in _leaf_types(data) else np.float64)


def _sequence_error(data) -> Exception:
    """PyTorch's error for data it cannot make a tensor of: first the leaves' dtype (a non-number), then the
    nesting, checked against the sizes along the first elements (`expected sequence of length ...`)."""
    data = _numpy_as_lists(data)
    leaf = _first_non_number(data)
    if leaf is not None:
        if isinstance(leaf[0], bytes):
            return TypeError("new(): invalid data type 'bytes'")
        if not isinstance(leaf[0], str):
            return RuntimeError(f"Could not infer dtype of {type(leaf[0]).__name__}")
        if not isinstance(data, str) and isinstance(_first_leaf(data), str):
            return ValueError("too many dimensions 'str'")
        return TypeError("new(): invalid data type 'str'")
    sizes = _first_sizes(data)
    x = _first_leaf(data)
    return _nesting_error(data, sizes, 0, x) or ValueError(f"could not convert {type(data).__name__} to a tensor")


def _array_like_only(data) -> bool:
    """An object numpy reads through `__array__` or `__array_interface__` that is no sequence: PyTorch takes
    numpy arrays, CUDA array-likes and sequences only, so it cannot infer its dtype."""
    cls = type(data)
    return ((hasattr(cls, "__array__") or hasattr(data, "__array_interface__"))
            and not hasattr(data, "__cuda_array_interface__")
            and not (hasattr(cls, "__getitem__") and hasattr(cls, "__len__")))


def _numpy_as_lists(data):
    """Nested data with its numeric numpy arrays and scalars as the lists and numbers PyTorch reads them as
    (ragged rows of arrays are a nesting error, not an unknown dtype)."""
    if isinstance(data, list | tuple):
        return [_numpy_as_lists(x) for x in data]
    if isinstance(data, np.ndarray | np.generic) and data.dtype.kind in "biufcU":
        return data.tolist()
    return data


def _first_non_number(data):
    """`(leaf,)` for the first leaf, in order, that is no Python number, else None."""
    if isinstance(data, list | tuple):
        for x in data:
            found = _first_non_number(x)
            if found is not None:
                return found
        return None
    return None if isinstance(data, int | float | complex) else (data,)


def _nesting_error(seq, sizes: list, dim: int, first) -> Exception | None:
    if dim == len(sizes):
        if isinstance(seq, list | tuple):
            return TypeError(f"must be real number, not {type(seq).__name__}" if isinstance(first, float) else
                             f"'{type(seq).__name__}' object cannot be interpreted as an integer")
        return None
    if not isinstance(seq, list | tuple):
        return TypeError("not a sequence")
    if len(seq) != sizes[dim]:
        return ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(seq)})")
    for x in seq:
        err = _nesting_error(x, sizes, dim + 1, first)
        if err is not None:
            return err
    return None


def _first_leaf(data):
    while isinstance(data, list | tuple) and data:
        data = data[0]
    return data


_PY_NUMBERS = frozenset((int, float, bool, complex, list, tuple))


def _leaf_types(data) -> set:
    """The types of the leaves of nested lists/tuples (and of the sequences on the way), one pass in C per row."""
    types = set(map(type, data))
    if list in types or tuple in types:
        for x in data:
            if isinstance(x, list | tuple):
                types |= _leaf_types(x)
    return types


def _python_dtype(x) -> dtypes.dtype:
    """The dtype PyTorch infers for a Python number in a sequence."""
    if isinstance(x, bool):
        return dtypes.bool
    if isinstance(x, numbers.Integral):
        return dtypes.int64
    if isinstance(x, complex):
        return _inferred_complex_dtype()
    return dtypes.get_default_dtype()


def _inferred_complex_dtype() -> dtypes.dtype:
    """The dtype `tensor` infers for Python complex data: none exists for a bfloat16 default (PyTorch's error)."""
    if dtypes.get_default_dtype() is dtypes.bfloat16:
        raise RuntimeError("invalid default scalar type for complex")
    return dtypes.get_default_complex_dtype()


def _scalar_leaves(data, found: list, dtype):
    """`data` with its tensors and numpy scalars as Python numbers, as PyTorch stores each leaf of a sequence
    (a tensor leaf must hold one element); `found` gets (dtype or None, leaf) for each leaf."""
    if isinstance(data, list | tuple):
        return [_scalar_leaves(x, found, dtype) for x in data]
    if isinstance(data, Tensor):
        found.append((data._dtype, data))
        if data.numel() != 1:  # PyTorch reads the leaf with float()/complex() (ValueError) or __index__ (TypeError)
            to = dtype or data._dtype
            if to.is_floating_point or to.is_complex:
                raise ValueError("only one element tensors can be converted to Python scalars")
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return complex(data) if data._dtype.is_complex else float(data) if data._dtype.is_floating_point \
            else data.item()
    if isinstance(data, np.generic) and not isinstance(data, np.str_ | np.bytes_ | np.void):
        found.append((dtypes.from_numpy_dtype(data.dtype), data))
        return data.item()
    if isinstance(data, np.ndarray):
        warn_once(internally(_LIST_OF_NDARRAYS, "torch/csrc/utils/tensor_new.cpp:252"))
    if isinstance(data, np.ndarray) and (dt := dtypes.from_numpy_dtype(data.dtype)) is not None:
        found.append((dt, data))  # an array leaf gives its dtype, as PyTorch (`tensor([f64_array])` is float64)
        return data
    found.append((None, data))
    return data


_LIST_OF_NDARRAYS = ("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider converting "
                     "the list to a single numpy.ndarray with numpy.array() before converting to a tensor.")


def copy_construct_warning(call: str) -> str:
    """PyTorch's warning when `call` (`torch.tensor`, `tensor.new_tensor`) is handed a tensor to copy."""
    return ("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            f"sourceTensor.detach().clone().requires_grad_(True), rather than {call}(sourceTensor).")


@_dispatch.composite("tensor")
def tensor(data, *, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A new tensor holding a copy of `data` (nested sequences, numbers, numpy arrays, tensors).

    Example:
        >>> tensor([[1, 2], [3, 4]]).shape
        ember.Size([2, 2])
    """
    dtype_arg(dtype, "tensor")
    if isinstance(data, Tensor):
        warn_at_caller(copy_construct_warning("torch.tensor"))
    return copy_of(data, dtype, device, requires_grad, pin_memory)


def copy_of(data, dtype, device, requires_grad: bool, pin_memory: bool = False) -> Tensor:
    """`tensor()`'s copy without its warning, for the callers that give their own (`new_tensor`)."""
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    if dtype is not None and dtype._category == dtypes._SHELL:  # PyTorch stores no Python number as one
        raise RuntimeError("store_scalar: invalid type")
    if (shared := storage_view(data, dtype or dtypes.get_default_dtype(), "")) is not None:
        return _finish(shared, requires_grad, as_device(device), pin_memory)
    a = np.array(_infer_np(data, dtype), copy=True)
    t = Tensor._wrap(a)
    return _finish(t, requires_grad, as_device(device), pin_memory)


def storage_view(data, dtype: dtypes.dtype, where: str) -> Tensor | None:
    """A typed storage (`torch.FloatStorage([1, 2])`: an object with a `dtype` and its `_untyped_storage`) as
    PyTorch's constructors take one: the 1-D tensor over its memory (PyTorch shares it), of `dtype` only; None for
    anything else. `where` ends PyTorch's refusal (" for argument 1 'storage'" in a legacy constructor)."""
    st = getattr(data, "_untyped_storage", None)
    if not isinstance(st, Storage) or not isinstance(getattr(data, "dtype", None), dtypes.dtype):
        return None
    if data.dtype is not dtype:
        names = dtypes.TORCH_NAMES
        raise RuntimeError(f"Expected a Storage of type {names[dtype.name]} or an UntypedStorage, but got "
                           f"{'type ' if where else ''}{names[data.dtype.name]}{where}")
    return Tensor._make(st, 0, (st.nbytes // dtype.itemsize,), (1,), dtype)


@_dispatch.composite("as_tensor")
def as_tensor(data, dtype=None, device=None) -> Tensor:
    """`data` as a tensor, sharing memory with a tensor or numpy array when dtype and device allow."""
    dtype_arg(dtype, "as_tensor")
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    if isinstance(data, Tensor):
        return data.to(device=device if device is not None else data.device, dtype=dtype or data.dtype)
    if (isinstance(data, np.ndarray) and (dtype is None or data.dtype == dtype.np)
            and dtypes.from_numpy_dtype(data.dtype) is not None):
        t = from_numpy(data)
        return t if device is None else t.to(device)
    return tensor(data, dtype=dtype, device=device)


_ASARRAY_GRAD = ("torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of False. Pass "
                 "requires_grad=False explicitly to get the old behavior and silence this warning.")


def asarray(obj, *, dtype=None, device=None, copy: bool | None = None, requires_grad: bool | None = None) -> Tensor:
    """`obj` as a tensor, sharing memory with a tensor or numpy array unless `copy`, `dtype` or `device`
    ask for a copy (`copy=False` refuses one). A tensor's `requires_grad` carries over unless given (with
    PyTorch's warning when it is True); `requires_grad=True` on an aliased tensor sets it on `obj` itself."""
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    if isinstance(obj, Tensor | np.ndarray):
        src = dtypes.from_numpy_dtype(obj.dtype) if isinstance(obj, np.ndarray) else obj._dtype
        if copy is False and dtype is not None and dtype is not src:
            raise ValueError(f"can't alias tensor with dtype '{dtypes.TORCH_NAMES[src.name]}' into dtype "
                             f"'{dtypes.TORCH_NAMES[dtype.name]}'.")
        if copy is False and device is not None and isinstance(obj, Tensor) and as_device(device) != obj.device:
            raise ValueError(f"can't alias tensor from device '{obj.device}' to '{as_device(device)}'.")
    if isinstance(obj, Tensor) and requires_grad is None:
        requires_grad = obj._requires_grad
        if requires_grad:
            warn_at_caller(_ASARRAY_GRAD)
    if _is_buffer(obj):  # PyTorch reads a buffer's bytes in `dtype` (the default dtype), as frombuffer
        from ember.core.ops.tensor_utils import frombuffer

        t = frombuffer(obj, dtype=dtype or dtypes.get_default_dtype())
        t = _shape_ops.clone(t) if copy else t
        t = t if device is None else t.to(as_device(device))
    elif copy and isinstance(obj, np.ndarray):
        t = tensor(obj, dtype=dtype, device=device)
    else:
        t = as_tensor(obj, dtype=dtype, device=device)
        if copy and t is obj:
            t = _shape_ops.clone(t)
    if requires_grad is False and t._requires_grad:
        t = t.detach()
    elif requires_grad and not t._requires_grad:
        require_grad(t)  # obj itself when aliased, as PyTorch: a later cast of obj is then no leaf
    return t


def _numpy_bool_index_error() -> TypeError:
    """PyTorch stores each number of an integer tensor through `__index__`, which np.bool_ lacks."""
    return TypeError("'numpy.bool' object cannot be interpreted as an integer")


def _numpy_uint64_error() -> TypeError:
    """PyTorch stores a uint64 element from an exact Python int only: a numpy uint64 scalar is refused."""
    return TypeError("an integer is required")


def _is_integral(dtype) -> bool:
    return dtype is not None and dtype is not dtypes.bool and not (dtype.is_floating_point or dtype.is_complex)


def _is_buffer(obj) -> bool:
    """Whether `obj` is a Python buffer (bytes, bytearray, memoryview, array.array, mmap), not an array or tensor."""
    if isinstance(obj, Tensor | np.ndarray | np.generic | list | tuple | numbers.Number):
        return False
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


def _numpy_type_error(ndarray: np.ndarray) -> TypeError:
    """PyTorch's error for a numpy array of a dtype it has no tensor of (str, object, longdouble ...)."""
    return TypeError(f"can't convert np.ndarray of type numpy.{ndarray.dtype.type.__name__}. The only supported "
                     "types are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
                     "uint64, uint32, uint16, uint8, and bool.")


def _check_strides(ndarray: np.ndarray) -> None:
    """PyTorch's refusal of a numpy array with a negative stride (from_numpy, and tensor/as_tensor of it)."""
    if any(s < 0 for s in ndarray.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative "
                         "strides are not currently supported. (You can probably work around this by making a "
                         "copy of your array  with array.copy().) ")


def _check_byte_order(ndarray: np.ndarray) -> None:
    """PyTorch's refusal of a non-native (e.g. big-endian `>f4`) numpy array (from_numpy, tensor, as_tensor)."""
    if not ndarray.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte order. Conversion "
                         "between byte orders is currently not supported.")


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing memory with `ndarray` (writes show through both ways)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {_type_name(ndarray)})")
    _check_byte_order(ndarray)
    dt = dtypes.from_numpy_dtype(ndarray.dtype)
    if dt is None:
        raise _numpy_type_error(ndarray)
    isz = ndarray.itemsize
    _check_strides(ndarray)
    if any(s % isz for s in ndarray.strides):
        raise ValueError(f"from_numpy: strides {ndarray.strides} are not multiples of the element size {isz}")
    if ndarray.size == 0:
        span = 0
    else:
        span = sum((n - 1) * s for n, s in zip(ndarray.shape, ndarray.strides, strict=True)) + isz
    if not ndarray.flags.writeable:
        from ember.core.ops._util import internally

        warn_once(internally("The given NumPy array is not writable, and PyTorch does not support non-writable "
                             "tensors. This means writing to this tensor will result in undefined behavior. You may "
                             "want to copy the array to protect its data or make it writable before converting it to "
                             "a tensor. This type of warning will be suppressed for the rest of this program.",
                             "torch/csrc/utils/tensor_numpy.cpp:213"))
    st = Storage.wrap_cpu(_byte_span(ndarray, span) if span else np.empty(0, np.uint8))
    return make_tensor(st, 0, ndarray.shape, tuple(s // isz for s in ndarray.strides), dt, op="from_numpy")


def _byte_span(a: np.ndarray, span: int) -> np.ndarray:
    return np.asarray(BorrowedBytes(a, span))


def _sparse_layout(layout, op: str) -> bool:
    """Whether `layout` asks for a sparse COO result (None and `strided`: dense); PyTorch's TypeError for a
    non-layout, and ember's refusal of the layouts it cannot build."""
    if layout is None:
        return False
    from ember.core.ops.tensor_utils import layout as layout_type

    if not isinstance(layout, layout_type):
        raise TypeError(f"{op}(): argument 'layout' must be torch.layout, not {layout.__class__.__name__}")
    if layout.name not in ("strided", "sparse_coo"):
        raise NotImplementedError(f"ember: {op}(layout=torch.{layout.name}) is not supported")
    return layout.name == "sparse_coo"


def _dense_only(layout, op: str, aten: str) -> None:
    """A factory with no sparse kernel: PyTorch's refusal of a sparse `layout`."""
    if _sparse_layout(layout, op):
        raise NotImplementedError(f"Could not run '{aten}' with arguments from the 'SparseCPU' backend.")


def _input_layout(input: Tensor, layout):
    """A `*_like` call's layout: the one asked for, else a sparse input's own (a dense one's stays None)."""
    return input.layout if layout is None and not input._dense_like else layout


def _refuse_sparse_fill(input: Tensor, layout) -> None:
    """`ones_like`/`full_like` of a sparse tensor: PyTorch's refusal of its fill_ on the sparse backend."""
    if layout is None and not input._dense_like:
        from ember.core.sparse import _refusal

        raise _refusal(input.layout.name, "fill_.Scalar")


def _sparse_zeros(shape, dtype, device, requires_grad: bool) -> Tensor:
    """An all-zero sparse COO tensor of `shape` (no stored elements), as `zeros(..., layout=torch.sparse_coo)`."""
    from ember.core.sparse import sparse_coo_tensor

    return sparse_coo_tensor(size=shape, dtype=dtype, device=device, requires_grad=requires_grad, check_invariants=True)


def _dtype_or_default(dtype):
    return dtypes.get_default_dtype() if dtype is None else dtypes.as_dtype(dtype)


@_dispatch.composite("empty")
def empty(*args, size=None, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False,
          pin_memory: bool = False, memory_format=None) -> Tensor:
    """An uninitialised tensor of `size`: contiguous, or ordered as `memory_format` says (`channels_last`:
    NHWC, 4-D only; `channels_last_3d`: 5-D only); with `out=`, that tensor resized to `size`.

    Raises:
        RuntimeError: `memory_format` of the wrong rank, `preserve_format`, or given with `out=`; a `dtype`
            other than `out`'s.
    """
    if not args and size is None:
        _no_size("empty")
    if (_dispatch.bare and size is None and out is None and layout is None and _plain_device(device)
            and memory_format is None and not pin_memory
            and (t := _numpy_filled(_flat_sizes(args, None), dtype, None)) is not None):
        if _settings._deterministic and _settings._fill_uninitialized:
            fill_uninitialized(t)
        return require_grad(t) if requires_grad else t
    dtype_arg(dtype, "empty")
    shape = _size_of(args, size, "empty")
    if layout is not None and _sparse_layout(layout, "empty"):
        return _sparse_zeros(shape, dtype, device, requires_grad)
    if out is not None:
        if memory_format is not None:
            raise RuntimeError("'memory_format' argument is incompatible with 'out' tensor argument")
        if dtype is not None and dtypes.as_dtype(dtype) is not out._dtype:
            raise RuntimeError(f"empty: dtype {dtypes.as_dtype(dtype).name} does not match dtype of out parameter "
                               f"({out._dtype.name})")
        out.resize_(shape)  # PyTorch's empty_out then fills all of `out` under deterministic algorithms
        return fill_uninitialized(out) if _settings._deterministic and _settings._fill_uninitialized else out
    order = _memory_order(memory_format, len(shape))
    if order is not None:
        strides, acc = [0] * len(shape), 1
        for d in reversed(order):  # the sizes as they are, a 0 included (PyTorch's channels_last strides)
            strides[d] = acc
            acc *= shape[d]
        return empty_strided(shape, tuple(strides), dtype=dtype, device=device, requires_grad=requires_grad,
                             pin_memory=pin_memory)
    dev = as_device(device)
    perm = None if memory_format is None else memfmt.dim_order(None, memory_format, "empty", shape)
    if perm is not None:
        t = memfmt.restride(new_empty(memfmt.permuted_shape(shape, perm), _dtype_or_default(dtype), dev), perm)
    else:
        t = new_empty(shape, _dtype_or_default(dtype), dev)
    if _settings._deterministic and _settings._fill_uninitialized:
        fill_uninitialized(t)
    if pin_memory:
        t = t.pin_memory()
    if requires_grad:
        require_grad(t)
    return t


def fill_uninitialized(t: Tensor) -> Tensor:
    """PyTorch's fill of new memory under deterministic algorithms: NaN for floating and complex dtypes, the
    largest value for integers, True for bool; a shell dtype has no such fill."""
    dt = t._dtype
    if dt._category == dtypes._SHELL:
        raise NotImplementedError(f"\"fill_empty_deterministic_\" not implemented for '{dtypes.TORCH_NAMES[dt.name]}'")
    if dt.is_floating_point or dt.is_complex:
        value = float("nan")
    elif dt is dtypes.bool:
        value = True
    else:
        value = int(np.iinfo(dt.np).max)
    return t.fill_(value)


def _memory_order(memory_format, ndim: int) -> tuple[int, ...] | None:
    """The dims of `memory_format`'s layout, outermost first (None: row-major), or PyTorch's error."""
    name = getattr(memory_format, "name", None)
    if memory_format is None or name == "contiguous_format":
        return None
    if name in ("channels_last", "channels_last_3d"):
        rank = 4 if name == "channels_last" else 5
        if ndim != rank:
            raise RuntimeError(f"required rank {rank} tensor to use {name} format")
        return (0, 2, 3, 1) if rank == 4 else (0, 2, 3, 4, 1)
    if name == "preserve_format":
        raise RuntimeError("unsupported memory format Preserve")
    raise TypeError(f"empty(): argument 'memory_format' must be torch.memory_format, not "
                    f"{type(memory_format).__name__}")


@_dispatch.composite("empty_strided")
def empty_strided(size, stride, *, dtype=None, device=None, requires_grad: bool = False,
                  pin_memory: bool = False) -> Tensor:
    dt = _dtype_or_default(dtype)
    # NOTE [ The geometry gate ]: the geometry is checked before the storage it needs is allocated
    shape, strides, _ = check_geometry(INT64_MAX, dt.itemsize, _shape_arg((size,)), stride, 0, op="empty_strided")
    n = 1 + sum((a - 1) * b for a, b in zip(shape, strides)) if all(shape) else 0
    base = empty(n, dtype=dt, device=device, pin_memory=pin_memory)
    t = make_tensor(base._storage, 0, shape, strides, dt, op="empty_strided")
    return require_grad(t) if requires_grad else t


@_dispatch.composite("full")
def full(size, fill_value=NO_FILL, *, out=None, dtype=None, layout=None, device=None,
         requires_grad: bool = False) -> Tensor:
    """A tensor of `size` filled with `fill_value` (dtype inferred from the value, as PyTorch)."""
    if (_dispatch.bare and fill_value.__class__ is float and dtype is None and out is None and layout is None
            and _plain_device(device) and isinstance(size, _SEQ)
            and (t := _numpy_filled(size, None, fill_value)) is not None):
        return require_grad(t) if requires_grad else t
    if fill_value is NO_FILL:
        raise TypeError('full() missing 1 required positional arguments: "fill_value"')
    if not isinstance(size, tuple | list):  # unlike zeros(3), full(3, v) is refused: its size is one argument
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not {_type_name(size)}")
    dtype_arg(dtype, "full")
    if layout is not None and _sparse_layout(layout, "full"):
        raise RuntimeError("full(...) is not implemented for sparse layout")
    if isinstance(fill_value, Tensor) and not fill_value.ndim:
        fill_value = fill_value.item()
    elif not isinstance(fill_value, numbers.Number | np.bool_):
        raise TypeError(f"full(): argument 'fill_value' (position 2) must be Number, not {_type_name(fill_value)}")
    if dtype is None:
        if isinstance(fill_value, bool):
            dtype = dtypes.bool
        elif isinstance(fill_value, numbers.Integral):
            dtype = dtypes.int64
        elif isinstance(fill_value, complex):  # PyTorch's full: complex64 unless the default is float64
            dtype = dtypes.complex128 if dtypes.get_default_dtype() is dtypes.float64 else dtypes.complex64
        else:
            dtype = dtypes.get_default_dtype()
    if not (type(size) is tuple and all(type(s) is int for s in size)) and (err := size_error("full", (size,), None)):
        raise err
    t = new_empty(_shape_arg((size,)), dtypes.as_dtype(dtype), as_device(device))
    t.fill_(fill_value)
    t._storage.version = 0  # a new tensor starts at version 0, as in PyTorch, however it was filled
    if out is not None:
        return out.resize_(t.shape).copy_(t)
    return require_grad(t) if requires_grad else t


@_dispatch.composite("zeros")
def zeros(*args, size=None, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    if not args and size is None:
        _no_size("zeros")
    if (_dispatch.bare and size is None and out is None and layout is None and _plain_device(device)
            and (t := _numpy_filled(_flat_sizes(args, None), dtype, 0)) is not None):
        return require_grad(t) if requires_grad else t
    dtype_arg(dtype, "zeros")
    if layout is not None and _sparse_layout(layout, "zeros"):
        return _sparse_zeros(_size_of(args, size, "zeros"), dtype, device, requires_grad)
    sizes = _flat_sizes(args, size)
    if out is None and not all(type(s) is int and s >= 0 for s in sizes) and as_device(device).type != "meta" and any(
            isinstance(s, numbers.Integral) and s < 0 for s in sizes):
        raise RuntimeError("zeros: Dimension size must be non-negative.")  # PyTorch's zeros checks its sizes itself
    if out is None and (dtype is dtypes.float8_e8m0fnu or getattr(dtype, "_category", None) == dtypes._SHELL):
        # PyTorch's zeros is zero_ (a fill of 0 would overflow e8m0fnu; the shell dtypes have no fill)
        return empty(_size_of(args, size, "zeros"), dtype=dtype, device=device, requires_grad=requires_grad).zero_()
    return full(_size_of(args, size, "zeros"), 0, out=out, dtype=_dtype_or_default(dtype), device=device,
                requires_grad=requires_grad)


@_dispatch.composite("ones")
def ones(*args, size=None, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    if not args and size is None:
        _no_size("ones")
    if (_dispatch.bare and size is None and out is None and layout is None and _plain_device(device)
            and (t := _numpy_filled(_flat_sizes(args, None), dtype, 1)) is not None):
        return require_grad(t) if requires_grad else t
    dtype_arg(dtype, "ones")
    return full(_size_of(args, size, "ones"), 1, out=out, dtype=_dtype_or_default(dtype), layout=layout, device=device,
                requires_grad=requires_grad)


@_dispatch.composite("scalar_tensor")
def scalar_tensor(s, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return full((), s, dtype=_dtype_or_default(dtype), device=device, requires_grad=requires_grad)


def _like(x: Tensor, dtype, device, op: str):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    dtype_arg(dtype, op)
    return (x._shape, x._dtype if dtype is None else dtypes.as_dtype(dtype), x.device if device is None else device)


@_dispatch.composite("empty_like")
@made_like
def empty_like(input: Tensor, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
               memory_format=None) -> Tensor:
    if (_dispatch.bare and layout is None and _plain_device(device) and memory_format is None
            and (t := _numpy_filled_like(input, dtype, None)) is not None):
        if _settings._deterministic and _settings._fill_uninitialized:
            fill_uninitialized(t)
        return require_grad(t) if requires_grad else t
    shape, dt, dev = _like(input, dtype, device, "empty_like")
    layout = _input_layout(input, layout)
    if layout is not None and _sparse_layout(layout, "empty_like"):  # PyTorch's sparse empty has no elements
        return _sparse_zeros(shape, dt, dev, requires_grad)
    if layout is not None:
        _dense_only(layout, "empty_like", "aten::empty_strided")
    perm = memfmt.dim_order(input, memory_format, "empty_like")
    if perm is None:
        return empty(shape, dtype=dt, device=dev, requires_grad=requires_grad)
    t = empty(memfmt.permuted_shape(shape, perm), dtype=dt, device=dev)
    return memfmt.laid_out(t, perm, requires_grad, memory_format, input)


@_dispatch.composite("zeros_like")
@made_like
def zeros_like(input: Tensor, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
               memory_format=None) -> Tensor:
    if (_dispatch.bare and layout is None and _plain_device(device) and memory_format is None
            and (t := _numpy_filled_like(input, dtype, 0)) is not None):
        return require_grad(t) if requires_grad else t
    shape, dt, dev = _like(input, dtype, device, "zeros_like")
    layout = _input_layout(input, layout)
    if layout is not None and _sparse_layout(layout, "zeros_like"):
        return _sparse_zeros(shape, dt, dev, requires_grad)
    perm = memfmt.dim_order(input, memory_format, "zeros_like")
    if perm is None:
        return zeros(shape, dtype=dt, device=dev, requires_grad=requires_grad)
    t = zeros(memfmt.permuted_shape(shape, perm), dtype=dt, device=dev)
    return memfmt.laid_out(t, perm, requires_grad, memory_format, input)


@_dispatch.composite("ones_like")
@made_like
def ones_like(input: Tensor, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
              memory_format=None) -> Tensor:
    if (_dispatch.bare and layout is None and _plain_device(device) and memory_format is None
            and (t := _numpy_filled_like(input, dtype, 1)) is not None):
        return require_grad(t) if requires_grad else t
    shape, dt, dev = _like(input, dtype, device, "ones_like")
    _refuse_sparse_fill(input, layout)
    if layout is not None and _sparse_layout(layout, "ones_like"):
        raise RuntimeError("full(...) is not implemented for sparse layout")
    perm = memfmt.dim_order(input, memory_format, "ones_like")
    if perm is None:
        return ones(shape, dtype=dt, device=dev, requires_grad=requires_grad)
    t = ones(memfmt.permuted_shape(shape, perm), dtype=dt, device=dev)
    return memfmt.laid_out(t, perm, requires_grad, memory_format, input)


@_dispatch.composite("full_like")
@made_like
def full_like(input: Tensor, fill_value, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
              memory_format=None) -> Tensor:
    shape, dt, dev = _like(input, dtype, device, "full_like")
    _refuse_sparse_fill(input, layout)
    if layout is not None and _sparse_layout(layout, "full_like"):
        raise RuntimeError("full(...) is not implemented for sparse layout")
    perm = memfmt.dim_order(input, memory_format, "full_like")
    if perm is None:
        return full(shape, fill_value, dtype=dt, device=dev, requires_grad=requires_grad)
    t = full(memfmt.permuted_shape(shape, perm), fill_value, dtype=dt, device=dev)
    return memfmt.laid_out(t, perm, requires_grad, memory_format, input)


def _num(x):
    return x.item() if isinstance(x, Tensor) else x


def _allocating(fn):
    """Creation functions that build numpy arrays directly: numpy's allocation failures become
    PyTorch's RuntimeError (`storage.allocation_error`)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (MemoryError, ValueError) as e:
            err = allocation_error(e)
            if err is None:
                raise
            raise err from None
    return wrapper


def _meta(device, shape: tuple, dtype, requires_grad: bool) -> Tensor | None:
    """On the meta device, a value-computing factory's result without its values (NOTE [ The meta device ]);
    else None."""
    dev = as_device(device)
    if dev.type != "meta":
        return None
    return empty(shape, dtype=dtype, device=dev, requires_grad=requires_grad)


def _count(n: float) -> int:
    """The number of values of arange/range, or PyTorch's error for one that no tensor can hold."""
    if n > INT64_MAX or n == np.inf:
        raise RuntimeError("invalid size, possible overflow?")
    return int(n)


class _StepOne:
    """arange's default step: 1, told apart from a 1 the caller gave (PyTorch's parser lists that one)."""

    def __repr__(self) -> str:
        return "1"


_STEP_ONE = _StepOne()


@_dispatch.composite("arange")
@_allocating
def arange(start, end=None, step=_STEP_ONE, *, out=None, dtype=None, layout=None, device=None,
           requires_grad: bool = False) -> Tensor:
    """Values from `start` up to (not including) `end`, every `step`; a Tensor bound only 0-dim (PyTorch's Number)."""
    given_step = step is not _STEP_ONE  # PyTorch's parser lists a step given, even 1, in its refusal
    step = 1 if step is _STEP_ONE else step
    not_number = any(isinstance(v, Tensor) and v.ndim for v in (start, end, step))
    if not_number and end is None and dtype is None:  # the one overload a lone argument can mean
        raise TypeError("arange(): argument 'end' (position 1) must be Number, not Tensor")
    if not_number or not _good_dtype(dtype):
        from ember.core.random import _FACTORY_KW

        given = (start,) if end is None else (start, end, step) if given_step else (start, end)
        no_out = _FACTORY_KW.removeprefix("Tensor out = None, ")  # PyTorch's (start, end) overload has no out=
        raise overloads_error("arange", given, dtype, ("Number end", f"Number start, Number end, *, {no_out}",
                                                       "Number start, Number end, Number step = 1"))
    if layout is not None:
        _dense_only(layout, "arange", "aten::arange.start_out")
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    if any(isinstance(v, int) and not -INT64_MAX - 1 <= v <= INT64_MAX for v in (start, end, step)):
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    if not all(np.isfinite((start, end))):  # printed as C++ prints a double (`0 -> inf`)
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    if not (step > 0 or step < 0):  # zero or NaN
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        all_int = all(isinstance(v, numbers.Integral) for v in (start, end, step))
        dtype = dtypes.int64 if all_int else dtypes.get_default_dtype()
    dtype = computable_dtype(dtypes.as_dtype(dtype), "arange_cpu")
    n = _count(np.ceil((end - start) / step))
    if not (dtype.is_floating_point or dtype.is_complex):
        start, end, step = int(start), int(end), int(step)  # PyTorch's integer kernels truncate the three to int64
        if dtype is dtypes.int64:  # whose count is then the integers' ceiling division
            if step == 0:  # PyTorch raises a ValueError for a step that truncates to zero
                raise ValueError("step must be nonzero")
            n = _count(abs(end - start + step - (1 if step > 0 else -1)) // abs(step))
    t = _meta(device, (n,), dtype, requires_grad)
    if t is None:
        if dtype.is_floating_point:
            a = _arange_floating(start, step, n, np.dtype(dtype.np))
        else:
            a = (start + np.arange(n, dtype=np.int64) * step).astype(dtype.np)
        t = _finish(Tensor._wrap(a), requires_grad, as_device(device))
    return out.resize_(t.shape).copy_(t) if out is not None else t


def _fma(a, b, c):
    """`a * b + c` rounded once, as a fused multiply-add (float64 arrays; Dekker's exact product, then the sum of its
    parts, which rounds as the FMA does but for double roundings of a low part)."""
    with np.errstate(all="ignore"):
        p = a * b
        big = 134217729.0  # 2**27 + 1 splits a double into two 26-bit halves
        ah, bh = a * big - (a * big - a), b * big - (b * big - b)
        err = ((ah * bh - p) + ah * (b - bh) + (a - ah) * bh) + (a - ah) * (b - bh)
        h = p + c
        back = h - p
        return np.where(np.isfinite(h), h + (((p - (h - back)) + (c - back)) + err), h)


_GRAIN = 32768  # PyTorch's internal::GRAIN_SIZE: the fewest elements a parallel kernel gives a thread
_VEC_BYTES = 32  # the width of the vectors PyTorch's CPU range kernels fill (four doubles), measured on AVX512 too


def _arange_floating(start, step, n: int, npdt: np.dtype) -> np.ndarray:
    """PyTorch's floating arange to the bit: in its accumulate type (double; float for the half types), its kernel
    fills pairs of vectors, each from its first element `start + step * i` (fused, then rounded to the dtype) plus
    `step * lane`, and the tail element by element; past 32768 values each of its threads fills its own chunk."""
    acc = np.float32 if npdt.itemsize == 2 else np.float64
    i = np.arange(n, dtype=np.float64)
    steps, starts = np.full(n, float(acc(step))), np.full(n, float(acc(start)))
    chunk = n
    if n > _GRAIN:  # at::parallel_for's split: min(threads, n / grain) chunks of equal size, the last shorter
        from ember.core.parallel import get_num_threads

        chunk = -(-n // min(get_num_threads(), -(-n // _GRAIN)))
    local = np.arange(n) % chunk
    length = np.minimum(chunk, n - (np.arange(n) - local))
    lanes = _VEC_BYTES // npdt.itemsize
    lane = (local % lanes).astype(np.float64)
    vectorized = local < length // (2 * lanes) * (2 * lanes)
    with np.errstate(over="ignore"):  # past the dtype's range, inf as PyTorch's casts give
        base = _fma(steps, i - lane, starts).astype(acc).astype(npdt).astype(np.float64)
        # bfloat16's vectors add a rounded float product; the others' a fused one
        lanes_on = base + (steps * lane).astype(acc) if npdt == dtypes.bfloat16.np else _fma(steps, lane, base)
        return np.where(vectorized, lanes_on, _fma(steps, i, starts)).astype(acc).astype(npdt)


def computable_dtype(dtype, kernel: str):
    """`dtype`, unless PyTorch's CPU kernel has no instance for it: none for complex32 and the wide unsigned
    types, none for bool in the ranges, none for complex in arange/range."""
    refused = dtype in (dtypes.complex32, dtypes.uint16, dtypes.uint32, dtypes.uint64) or (
        kernel != "eye" and dtype is dtypes.bool) or (kernel in ("arange_cpu", "range_cpu") and dtype.is_complex)
    if refused:
        from ember.core.ops.numeric import DtypeNotImplemented

        raise DtypeNotImplemented(f"\"{kernel}\" not implemented for '{dtypes.TORCH_NAMES[dtype.name]}'")
    return dtype


@_allocating
def range(start, end, step=1, *, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    """Deprecated PyTorch `range`: like `arange` but including `end`."""
    if layout is not None:
        _dense_only(layout, "range", "aten::range.out")
    n = _count(np.floor((end - start) / step)) + 1
    dtype = computable_dtype(_dtype_or_default(dtype), "range_cpu")
    if (t := _meta(device, (n,), dtype, requires_grad)) is not None:
        return t
    a = (start + np.arange(n, dtype=np.float64) * step).astype(dtype.np)
    return _finish(Tensor._wrap(a), requires_grad, as_device(device))


def _linspace_floating(start, end, steps: int, npdt) -> np.ndarray:
    """PyTorch's linspace values to the bit: `start + step * i` up to the halfway point, `end - step * (steps - 1 - i)`
    after it, with the float32/float64 kernels' fused multiply-add and the half types' rounding after each operation
    (grids built from it, as affine_grid's, then land on the same side of a pixel's rounding boundary)."""
    if steps <= 1:
        return np.full(steps, start, npdt)
    i, npdt = np.arange(steps), np.dtype(npdt).type
    if npdt in (np.float32, np.float64):
        s, e = npdt(start), npdt(end)
        step = npdt((e - s) / npdt(steps - 1))
        wide = np.longdouble  # 64-bit mantissa: (nearly always) one rounding of the exact value, as an FMA
        lo = wide(s) + wide(step) * i.astype(wide)
        hi = wide(e) - wide(step) * (steps - 1 - i).astype(wide)
    else:
        def rnd(x):
            return np.asarray(x, np.float32).astype(npdt).astype(np.float32)

        with np.errstate(over="ignore", invalid="ignore"):
            s, e = rnd(start), rnd(end)
            if not (np.isfinite(s) and np.isfinite(e)) and np.isfinite([start, end]).all():
                name = "Half" if npdt == np.float16 else "BFloat16"
                raise RuntimeError(f"value cannot be converted to type c10::{name} without overflow")
            step = rnd(rnd(e - s) / rnd(steps - 1))
            lo = rnd(s + rnd(step * rnd(i)))
            hi = rnd(e - rnd(step * rnd(steps - 1 - i)))
    return np.where(i < steps // 2, lo, hi).astype(npdt)


def _linspace_integral(start, end, steps: int, dtype) -> np.ndarray:
    """PyTorch's integer linspace: the ends truncated to the dtype, a double step between them, and each value
    `start + step * i` up to the halfway point, `end - step * (steps - 1 - i)` after it, fused, then truncated."""
    if steps <= 1:  # PyTorch fills one value with `start` (and checks the ends only when it steps between them)
        return np.full(steps, int(scalar_as(dtype, start)) if steps else 0, dtype.np)
    s, e = (int(scalar_as(dtype, v)) for v in (start, end))
    step = (float(e) - float(s)) / (steps - 1)
    i = np.arange(steps, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        v = np.where(i < steps // 2, _fma(np.full(steps, step), i, np.full(steps, float(s))),
                     _fma(np.full(steps, -step), steps - 1 - i, np.full(steps, float(e))))
    return np.trunc(v).astype(np.int64).astype(dtype.np)


_NO_STEPS = object()  # `steps` left out: PyTorch's parser lists the overloads rather than Python's missing argument


def _space_args(op: str, start, end, steps, base, dtype) -> None:
    """linspace/logspace's arguments as PyTorch's parser checks them: `steps` an int, `dtype` a torch.dtype; else
    its TypeError listing the four overloads (Tensor or Number ends); then a Tensor end must be 0-dim."""
    from ember.core.random import _int_arg

    if not (_int_arg(steps) and _good_dtype(dtype)):
        extra = ", float base = 10.0" if base else ""
        raise overloads_error(op, (start, end) if steps is _NO_STEPS else (start, end, steps), dtype,
                              tuple(f"{a} start, {b} end, int steps{extra}" for b in ("Tensor", "Number")
                                    for a in ("Tensor", "Number")))
    shaped = [f"{name} with {t.ndim} dimension(s)" for name, t in (("start", start), ("end", end))
              if isinstance(t, Tensor) and t.ndim]
    if shaped:  # a tensor end must be 0-dim (ember's scalar conversion would take any one-element tensor)
        raise RuntimeError(f"{op} only supports 0-dimensional start and end tensors, but got {' and '.join(shaped)}.")


@_dispatch.composite("linspace")
@_allocating
def linspace(start, end, steps: int = _NO_STEPS, *, out=None, dtype=None, layout=None, device=None,
             requires_grad: bool = False) -> Tensor:
    _space_args("linspace", start, end, steps, False, dtype)
    steps = int(steps)  # an int, or what PyTorch's parser takes for one (a 0-d integer tensor, a numpy int)
    if layout is not None:
        _dense_only(layout, "linspace", "aten::linspace.out")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start, end = _num(start), _num(end)
    if dtype is None and (isinstance(start, complex) or isinstance(end, complex)):
        dtype = dtypes.get_default_complex_dtype()  # complex ends give the default complex dtype, as PyTorch
    dtype = computable_dtype(_dtype_or_default(dtype), "linspace_cpu")
    t = _meta(device, (steps,), dtype, requires_grad)
    if t is not None:
        return out.resize_(t.shape) if out is not None else t
    if dtype.is_floating_point:
        a = _linspace_floating(start, end, steps, dtype.np)
    elif not dtype.is_complex:
        a = _linspace_integral(start, end, steps, dtype)
    else:
        work = np.complex128 if dtype.is_complex else np.float64
        a = np.linspace(start, end, steps, dtype=work).astype(dtype.np)
    t = _finish(Tensor._wrap(a), requires_grad, as_device(device))
    return out.resize_(t.shape).copy_(t) if out is not None else t


@_dispatch.composite("logspace")
@_allocating
def logspace(start, end, steps: int = _NO_STEPS, base: float = 10.0, *, dtype=None, layout=None, device=None,
             requires_grad: bool = False) -> Tensor:
    _space_args("logspace", start, end, steps, True, dtype)
    if layout is not None:
        _dense_only(layout, "logspace", "aten::logspace.out")
    dtype = computable_dtype(_dtype_or_default(dtype), "logspace_cpu")
    if (t := _meta(device, (steps,), dtype, requires_grad)) is not None:
        return t
    if dtype.is_complex:
        a = np.logspace(_num(start), _num(end), steps, base=base, dtype=np.float64).astype(dtype.np)
    elif steps == 0:
        a = np.empty(0, dtype.np)
    elif steps == 1:
        with np.errstate(all="ignore"):
            value = float(np.float64(base) ** float(_num(start)))
        return full((1,), value, dtype=dtype, device=device, requires_grad=requires_grad)
    else:
        a = _logspace_real(_num(start), _num(end), steps, float(base), dtype)
    return _finish(Tensor._wrap(a), requires_grad, as_device(device))


def _logspace_real(start, end, steps: int, base: float, dtype) -> np.ndarray:
    """PyTorch's real logspace: the ends converted to the dtype (integers truncated), their difference taken in it,
    a double step, and `base ** (start + step * i)` up to the halfway point, `base ** (end - step * (steps - 1 - i))`
    after it, in double, stored as the dtype stores a double."""
    via = np.float32 if dtype.is_floating_point and dtype.itemsize == 2 else np.float64  # halves: through float
    if dtype.is_floating_point:
        s, e = (np.asarray(float(v)).astype(via).astype(dtype.np) for v in (start, end))
        diff, s, e = float(e - s), float(s), float(e)
    else:
        s, e = (int(scalar_as(dtype, v)) for v in (start, end))
        diff = float(e - s)
    step = diff / (steps - 1)
    i = np.arange(steps, dtype=np.float64)
    with np.errstate(all="ignore"):
        exponent = np.where(i < steps // 2, s + step * i, e - step * (steps - 1 - i))
        # numpy's scalar power is the C library's pow, as PyTorch's; its array loop (SIMD) can differ by an ulp
        powers = [np.float64(base) ** x for x in exponent.tolist()]
        return np.array(powers, np.float64).astype(via).astype(dtype.np)


@_dispatch.composite("eye")
@_allocating
def eye(n: int, m: int | None = None, *, out=None, dtype=None, layout=None, device=None,
        requires_grad: bool = False) -> Tensor:
    if not _good_dtype(dtype):
        raise overloads_error("eye", (n,) if m is None else (n, m), dtype, ("int n", "int n, int m"))
    if layout is not None:
        _dense_only(layout, "eye", "aten::eye.m_out")
    for i, (name, v) in enumerate((("n", n), ("m", m))):
        if v is None:
            continue
        if not (isinstance(v, numbers.Integral) or isinstance(v, Tensor) and _int_like(v, False)) or \
                isinstance(v, bool):
            raise TypeError(f"eye(): argument '{name}' (position {i + 1}) must be int, not {_type_name(v)}")
        if v < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {int(v)}")
    dtype = computable_dtype(_dtype_or_default(dtype), "eye")
    if (t := _meta(device, (n, n if m is None else m), dtype, requires_grad)) is not None:
        return out.resize_(t.shape) if out is not None else t
    t = _finish(Tensor._wrap(np.eye(n, n if m is None else m, dtype=dtype.np)), requires_grad, as_device(device))
    return out.resize_(t.shape).copy_(t) if out is not None else t

