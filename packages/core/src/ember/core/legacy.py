"""PyTorch's legacy tensor types (`FloatTensor`, `LongTensor`, `cuda.FloatTensor` ...).

Each is a class whose metaclass makes it both a constructor (`FloatTensor(2, 3)` is an
uninitialised float32 tensor of that shape, `LongTensor([1, 2])` copies data) and an `isinstance`
target (`isinstance(t, FloatTensor)` holds for every float32 CPU tensor, parameters included).
No tensor is ever of these classes: ember has one `Tensor` type, as PyTorch has one C++ tensor.
"""

from __future__ import annotations

import builtins
import numbers

import numpy as np

from ember.core import dtypes
from ember.core.tensor import Size, Tensor, describe

__all__ = ["tensortype", "FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
           "CharTensor", "ByteTensor", "BoolTensor", "BFloat16Tensor", "CUDA_TYPES"]


def _options(dtype_name: str, dev) -> str:
    return (f"TensorOptions(dtype={dtype_name}, device={dev}, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))")


def options_error(dtype: dtypes.dtype, cuda: bool, src: Tensor) -> TypeError | None:
    """PyTorch's refusal to alias a CPU tensor of another dtype (`torch.LongTensor(float_tensor)`,
    `long_tensor.new(float_tensor)`), in its C++ names; None where ember does not know them."""
    from ember.core.ops._util import _CPP_TYPE_NAMES

    names = {**_CPP_TYPE_NAMES, "float32": "float", "float64": "double"}
    want, got = names.get(dtype.name), names.get(src._dtype.name)
    if want is None or got is None or cuda or src.is_cuda:
        return None
    return TypeError(f"expected {_options(want, 'cpu')} (got {_options(got, 'cpu')})")


class tensortype(type):
    """The metaclass of the legacy types: `isinstance` checks dtype and device type, calling constructs."""

    dtype: dtypes.dtype
    is_cuda: bool

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and obj._dtype is cls.dtype and obj.is_cuda == cls.is_cuda

    def __call__(cls, *args, size=None, device=None):
        from ember.core import creation

        dev = "cuda" if cls.is_cuda else (device if device is not None else "cpu")
        if size is not None:
            args = (*args, *size)
        if not args:
            return creation.empty(0, dtype=cls.dtype, device=dev)
        if builtins.all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args):
            return creation.empty(*(int(a) for a in args), dtype=cls.dtype, device=dev)
        if len(args) == 1 and isinstance(args[0], Size):
            return creation.empty(tuple(args[0]), dtype=cls.dtype, device=dev)
        if len(args) == 1 and isinstance(args[0], Tensor):
            src = args[0]
            if src._dtype is not cls.dtype:
                if (err := options_error(cls.dtype, cls.is_cuda, src)) is not None:
                    raise err
                raise TypeError(f"{cls.__module__}.{cls.__name__}: expected a {cls.dtype.name} tensor to alias; got "
                                f"{describe(src)}")
            from ember.core.ops.layout import alias_view

            return alias_view(src)
        if len(args) == 1 and (shared := creation.storage_view(args[0], cls.dtype,
                                                                " for argument 1 'storage'")) is not None:
            return shared
        if len(args) == 1 and isinstance(args[0], list | tuple | np.ndarray):
            return creation.tensor(args[0], dtype=cls.dtype, device=dev)
        err = creation.legacy_new_error(args)
        if err is not None:
            raise err
        raise TypeError(f"{cls.__module__}.{cls.__name__}(): expected sizes (ints), a sequence or a tensor; got "
                        + ", ".join(type(a).__name__ for a in args))

    def __repr__(cls) -> str:
        return f"<class '{cls.__module__}.{cls.__name__}'>"


def _make(name: str, dt: dtypes.dtype, cuda: bool) -> tensortype:
    doc = f"Legacy constructor and `isinstance` target for {dt.name} tensors on the {'GPU' if cuda else 'CPU'}."
    return tensortype(name, (), {"dtype": dt, "is_cuda": cuda, "is_sparse": False, "__doc__": doc,
                                 "__module__": "torch.cuda" if cuda else "torch", "__qualname__": name})


_NAMES = {"Float": dtypes.float32, "Double": dtypes.float64, "Half": dtypes.float16, "BFloat16": dtypes.bfloat16,
          "Long": dtypes.int64,
          "Int": dtypes.int32, "Short": dtypes.int16, "Char": dtypes.int8, "Byte": dtypes.uint8,
          "Bool": dtypes.bool}

_CPU_TYPES = {f"{k}Tensor": _make(f"{k}Tensor", dt, False) for k, dt in _NAMES.items()}
CUDA_TYPES = {f"{k}Tensor": _make(f"{k}Tensor", dt, True) for k, dt in _NAMES.items()}

FloatTensor = _CPU_TYPES["FloatTensor"]
DoubleTensor = _CPU_TYPES["DoubleTensor"]
HalfTensor = _CPU_TYPES["HalfTensor"]
LongTensor = _CPU_TYPES["LongTensor"]
IntTensor = _CPU_TYPES["IntTensor"]
ShortTensor = _CPU_TYPES["ShortTensor"]
CharTensor = _CPU_TYPES["CharTensor"]
ByteTensor = _CPU_TYPES["ByteTensor"]
BoolTensor = _CPU_TYPES["BoolTensor"]
BFloat16Tensor = _CPU_TYPES["BFloat16Tensor"]
