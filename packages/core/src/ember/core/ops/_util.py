"""Shared helpers for CPU kernels: numpy views of arguments, `out=` handling, shape errors."""

from __future__ import annotations

import functools
import operator
import sys
import warnings

import numpy as np

from ember.core import dtypes
from ember.core.ops.parser_errors import int_like, int_tuple_error
from ember.core.tensor import Tensor, describe

__all__ = ["arr", "wrap", "write_out", "prepare_out", "broadcast_shapes", "normalize_dims", "shape_error", "silenced",
           "named_as", "BroadcastError", "legacy_type_name", "tp_name", "warn_at_caller", "warn_complex_to_real",
           "real_value", "cast_error", "require_grad"]


def warn_at_caller(message: str, category: type[Warning] = UserWarning) -> None:
    """Warn at the first frame outside ember, whatever the depth of the call path (method, autograd's
    recording, dispatch), so the warning names the user's line, as PyTorch's do."""
    frame, level = sys._getframe(1), 2  # stacklevel 2 is the frame that called this function
    while frame is not None and frame.f_globals.get("__name__", "").startswith(("ember.", "torch.")):  # (ember's too)
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


_warned_once: set[str] = set()
warn_always = [False]  # `set_warn_always`


def warn_once(message: str, category: type[Warning] = UserWarning, site: str | None = None) -> None:
    """PyTorch's TORCH_WARN_ONCE: `message` the first time in the process (every time after `set_warn_always(True)`),
    at the user's line. `site` names the warning's one place where its message varies (once for all messages)."""
    key = message if site is None else site
    if warn_always[0] or key not in _warned_once:
        _warned_once.add(key)
        warn_at_caller(message, category)


def internally(message: str, where: str) -> str:
    """A warning PyTorch raises from C++ as it prints: its source location appended ("aten/src/ATen/native/
    Cross.cpp:63": the file and line of PyTorch 2.13's own build)."""
    return f"{message} (Triggered internally at /__w/pytorch/pytorch/{where}.)"


# PyTorch's TORCH_WARN_ONCE when it first makes a nested tensor of the strided layout (NestedTensorImpl's constructor)
NESTED_PROTOTYPE = internally(
    "The PyTorch API of nested tensors is in prototype stage and will change in the near future. We recommend "
    "specifying layout=torch.jagged when constructing a nested tensor, as this layout receives active development, "
    "has better operator coverage, and works with torch.compile.", "aten/src/ATen/NestedTensorImpl.cpp:177")

_complex_to_real_warned = False


def warn_complex_to_real(src: dtypes.dtype, dst: dtypes.dtype) -> None:
    """PyTorch's UserWarning for a copy or cast that drops imaginary parts (into any real dtype but bool),
    given once per process as its TORCH_WARN_ONCE does: the first such `copy_`, `.to(float)`, `.real`-less
    cast warns, the rest are silent."""
    global _complex_to_real_warned
    if not _complex_to_real_warned and src.is_complex and not dst.is_complex and dst is not dtypes.bool:
        _complex_to_real_warned = True
        warn_at_caller(internally("Casting complex values to real discards the imaginary part",
                                  "aten/src/ATen/native/Copy.cpp:307"))


def real_value(input: Tensor, value):
    """A Python complex number written into a real tensor, as PyTorch converts it: whether it is nonzero
    into bool, else its real part, which must be all of it (PyTorch's error for an imaginary part)."""
    if not isinstance(value, complex) or input._dtype.is_complex:
        return value
    if input._dtype is dtypes.bool:
        return bool(value)
    if value.imag:
        name = input._dtype.name
        c = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16"}.get(
            name) or _C_INT_NAMES.get(name, name)
        raise RuntimeError(f"value cannot be converted to type {c} without overflow")
    return value.real


_C_INT_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
                "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t"}
# the demangled C++ type names some PyTorch messages print (`clamp_`'s cast refusal, `cauchy_` of an integer tensor)
_CPP_TYPE_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
                   "int32": "int", "int64": "long int", "uint16": "short unsigned int", "uint32": "unsigned int",
                   "uint64": "long unsigned int"}
_FLOAT_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def cpp_type_name(dt) -> str:
    """A dtype as PyTorch's messages name it by its C++ type (`float`, `long int`, `c10::complex<double>`)."""
    return _FLOAT_CPP_NAMES.get(dt.name) or _CPP_TYPE_NAMES.get(dt.name, dt.name)


def check_out_dtype(out, want) -> None:
    """A structured kernel's `out=` (gather, scatter, index_add, max's values ...) must have the result's dtype
    already, not one the result casts to: PyTorch names the C++ types."""
    if out is not None and out._dtype is not want:
        raise RuntimeError(f"Expected out tensor to have dtype {cpp_type_name(want)}, but got "
                           f"{cpp_type_name(out._dtype)} instead")


def int_value(input: Tensor, value):
    """A Python int written into an integer tensor, as PyTorch's checked conversion takes it: in the
    dtype's range, or (unsigned) down to minus its maximum, wrapping as two's complement (`fill_(-2)`
    of uint8 is 254); else PyTorch's "value cannot be converted ... without overflow"."""
    return scalar_as(input._dtype, value)


_INF = float("inf")
INT_SCALAR_LOW, INT_SCALAR_HIGH = -(1 << 63), 1 << 64  # the Python ints a PyTorch Scalar holds: int64 or uint64


def int_scalar_overflow(value: int) -> OverflowError:
    """PyTorch's error for a Python int outside [INT_SCALAR_LOW, INT_SCALAR_HIGH): its argument parser refuses it."""
    return OverflowError("int too big to convert" if value > 0 else "can't convert negative int to unsigned")

# the narrow floating dtypes' largest finite values and C++ names: a finite float beyond one does not convert
_FLOAT_LIMITS = {"float32": (float(np.finfo(np.float32).max), "float"), "float16": (65504.0, "c10::Half"),
                 "bfloat16": (3.3895313892515355e38, "c10::BFloat16")}


def scalar_as(dtype: dtypes.dtype, value):
    """`int_value` for a dtype: a Python number checked (and wrapped) as PyTorch's `Scalar.to<dtype>()`
    (a finite float beyond a float dtype's range overflows too, as `full((2,), 1e300)` does in PyTorch)."""
    name = dtype.name
    if type(value) is int and not INT_SCALAR_LOW <= value < INT_SCALAR_HIGH:
        raise int_scalar_overflow(value)
    if isinstance(value, np.integer) and name in _C_INT_NAMES:  # a numpy int is a Python int to PyTorch
        value = int(value)
    if type(value) is float and (limit := _FLOAT_LIMITS.get(name)) is not None and limit[0] < abs(value) < _INF:
        raise RuntimeError(f"value cannot be converted to type {limit[1]} without overflow")
    if type(value) is float and name in _C_INT_NAMES:  # a float must fit the dtype's range (NaN never does)
        info = np.iinfo(name)
        if not int(info.min) <= value <= int(info.max):
            raise RuntimeError(f"value cannot be converted to type {_C_INT_NAMES[name]} without overflow")
        return value
    if type(value) is not int or name not in _C_INT_NAMES:
        return value
    info = np.iinfo(name)
    low = -int(info.max) if info.min == 0 else int(info.min)
    if not low <= value <= int(info.max):
        raise RuntimeError(f"value cannot be converted to type {_C_INT_NAMES[name]} without overflow")
    return value % (int(info.max) + 1) if value < 0 and info.min == 0 else value


_NAMED: dict[str, type] = {}  # the classes `named_as` renamed, by their real "module:qualname"


def _rebuild_named(key: str, args: tuple):
    """Unpickle an exception of a `named_as` class (its printed name no longer finds it)."""
    import importlib

    importlib.import_module(key.partition(":")[0])
    return _NAMED[key](*args)


def named_as(name: str, module: str = "builtins"):
    """Class decorator: an ember exception class prints as the built-in PyTorch raises (`type(e).__name__`,
    `repr(e)` and tracebacks say `RuntimeError`; `module` for one outside builtins, as `_pickle`), while `except`
    of each of its bases still catches it and pickling keeps the class."""

    def apply(cls):
        key = f"{cls.__module__}:{cls.__qualname__}"
        _NAMED[key] = cls
        cls.__name__ = cls.__qualname__ = name
        cls.__module__ = module
        cls.__reduce__ = lambda self: (_rebuild_named, (key, self.args), self.__dict__ or None)
        return cls

    return apply


@named_as("RuntimeError")
class BroadcastError(RuntimeError, ValueError):
    """Shapes that do not broadcast: PyTorch raises `RuntimeError`, Python users expect `ValueError`."""

# numpy's error state lives in a context variable; setting it directly costs ~0.3 µs per call where
# `np.errstate` costs ~1 µs. The fallback keeps working if numpy moves its private variable.
try:
    from numpy._core._ufunc_config import _extobj_contextvar as _ERRSTATE

    with np.errstate(all="ignore"):
        _IGNORE_ALL = _ERRSTATE.get()
except (ImportError, AttributeError):  # pragma: no cover - other numpy versions
    _ERRSTATE = None


class _SeterrState:  # pragma: no cover - other numpy versions
    """`set`/`reset` like the context variable, through the slower `np.seterr`."""

    @staticmethod
    def set(_):
        return np.seterr(all="ignore")

    @staticmethod
    def reset(old) -> None:
        np.seterr(**old)


# `token = ERRSTATE.set(IGNORE_ALL)` ... `ERRSTATE.reset(token)`: warnings off, inlined in hot kernels
ERRSTATE = _ERRSTATE if _ERRSTATE is not None else _SeterrState()
IGNORE_ALL = _IGNORE_ALL if _ERRSTATE is not None else None


def silenced(fn):
    """`fn` with numpy's floating-point warnings off: PyTorch makes inf and nan silently."""
    if _ERRSTATE is None:  # pragma: no cover
        def quiet(*args, **kwargs):
            with np.errstate(all="ignore"):
                return fn(*args, **kwargs)
        return quiet

    def quiet(*args, **kwargs):
        token = _ERRSTATE.set(_IGNORE_ALL)
        try:
            return fn(*args, **kwargs)
        finally:
            _ERRSTATE.reset(token)
    return quiet


def arr(x):
    """The numpy view of a CPU tensor; Python scalars pass through."""
    return x._np() if isinstance(x, Tensor) else x


wrap = Tensor._wrap


def _mismatch(shapes) -> str:
    """PyTorch's words for the first pair of sizes that do not broadcast (its `infer_size`, folded
    left over the operands)."""
    acc: tuple = ()
    for shape in shapes:
        n = max(len(acc), len(shape))
        a, b = (1,) * (n - len(acc)) + tuple(acc), (1,) * (n - len(shape)) + tuple(shape)
        for i in range(n - 1, -1, -1):
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                return (f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at non-singleton "
                        f"dimension {i}")
        acc = tuple(max(x, y) if min(x, y) != 0 else 0 for x, y in zip(a, b))
    return "shapes are not broadcastable"


def shape_error(op: str, *xs) -> BroadcastError:
    """PyTorch's message for operands of `op` whose shapes do not broadcast (programs print it)."""
    return BroadcastError(_mismatch([getattr(x, "shape", ()) for x in xs]))


def broadcast_shapes(*shapes) -> tuple[int, ...]:
    """The broadcast of `shapes`, raising with every shape named when they do not broadcast."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise BroadcastError(_mismatch(shapes)) from None


def _resize_out(out: Tensor, shape: tuple, layout) -> None:
    """Resize `out` to `shape` as PyTorch does: a warning when it held elements, then the layout the result
    would have had without `out=` (`layout(shape)`: its strides, None for row-major), so
    `add(channels_last, b, out=empty(0))` is channels_last."""
    if out.numel() != 0:
        warn_at_caller(internally(
            f"An output with one or more elements was resized since it had shape {list(out._shape)}, which does not "
            f"match the required output shape {list(shape)}. This behavior is deprecated, and in a future PyTorch "
            "release outputs will not be resized unless they have zero elements. You can explicitly reuse an out "
            "tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
            "aten/src/ATen/native/Resize.cpp:30"))
    from ember.core.ops.shape import resize_

    resize_(out, shape)
    strides = layout(shape) if layout is not None else None
    if strides is not None:  # dense strides: resize_ gave the storage room for every element
        out._set_meta(out._storage, out._offset, shape, strides)


# the dtypes whose tensors have a legacy class (torch.FloatTensor); the others print as CPUBoolType
_LEGACY = {"uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long", "float16": "Half",
           "float32": "Float", "float64": "Double"}


@functools.cache
def _c_class_names() -> dict:
    """ember's classes whose PyTorch counterparts are C types, with those types' `tp_name`."""
    from ember.core.device import device
    from ember.core.dtypes import dtype
    from ember.core.random import Generator
    from ember.core.settings import finfo, iinfo, memory_format
    from ember.core.tensor import Size

    return {Size: "torch.Size", dtype: "torch.dtype", device: "torch.device", finfo: "torch.finfo",
            iinfo: "torch.iinfo", Generator: "torch._C.Generator", memory_format: "torch.memory_format"}


def tp_name(value) -> str:
    """The name of `value`'s type as PyTorch's C++ messages print it (Python's `tp_name`): "list",
    "numpy.ndarray", "torch.Size", but a class defined in Python by its bare name ("Fraction")."""
    t = type(value)
    name = _c_class_names().get(t)
    if name is not None:
        return name
    if t.__flags__ & (1 << 9) or t.__module__ == "builtins":  # Py_TPFLAGS_HEAPTYPE: tp_name is the bare name
        return t.__name__
    return f"{t.__module__}.{t.__qualname__}"


def legacy_type_name(t) -> str:
    """A tensor's type as ATen's messages name it: `torch.FloatTensor`, `torch.cuda.LongTensor`, or `CPUBoolType` /
    `CUDAComplexFloatType` for dtypes without a legacy class."""
    cuda = t.device.type == "cuda"
    if t.dtype.name in _LEGACY:
        return f"torch.{'cuda.' if cuda else ''}{_LEGACY[t.dtype.name]}Tensor"
    return f"{'CUDA' if cuda else 'CPU'}{dtypes.TORCH_NAMES.get(t.dtype.name, t.dtype.name)}Type"


def cast_error(result: dtypes.dtype, out: dtypes.dtype) -> RuntimeError:
    """PyTorch's error for an `out=` (or in-place) result of a dtype that may not be cast to `out`'s."""
    names = dtypes.TORCH_NAMES
    return RuntimeError(f"result type {names.get(result.name, result.name)} can't be cast to the desired output "
                        f"type {names.get(out.name, out.name)}")


def write_out(out: Tensor, result, op: str, layout=None) -> Tensor:
    """Copy `result` (a numpy array or scalar) into `out`, resizing `out` as PyTorch does (`_resize_out`;
    `layout(shape)`: the strides a resized `out` takes, None for row-major)."""
    result = np.asarray(result)
    if tuple(out._shape) != result.shape:
        _resize_out(out, result.shape, layout)
    rt = dtypes.from_numpy_dtype(result.dtype)
    if not dtypes.can_cast(rt, out._dtype):
        raise cast_error(rt, out._dtype)
    if out._storage.device.type == "cpu":
        np.copyto(out._np(), result, casting="unsafe")
    else:
        out.copy_(wrap(result))
    return out


def prepare_out(out: Tensor | None, shape: tuple[int, ...], dt: dtypes.dtype, dev, op: str, layout=None) -> Tensor:
    """The tensor a device kernel or a composite writes: `out` (checked, resized like PyTorch, `layout` as
    `write_out`'s) or a new one on `dev` (`write_out` is its twin for numpy results)."""
    if out is None:
        from ember.core.creation import new_empty

        return new_empty(tuple(shape), dt, dev)
    if out.device != dev:
        raise RuntimeError(f"{op}: Expected all tensors to be on the same device; got {describe(out)} as out= "
                           f"for a result on {dev}")
    if not dtypes.can_cast(dt, out._dtype):
        raise cast_error(dt, out._dtype)
    if out._shape != tuple(shape):
        _resize_out(out, tuple(shape), layout)
    return out


def index_arg(v, op: str, name: str) -> int:
    """An int argument as PyTorch's parser takes it (anything with __index__): a float or a tuple is its
    TypeError, not a silent truncation."""
    try:
        return operator.index(v)
    except TypeError:
        if name == "dim" and (e := str_dim_error(op, v)) is not None:
            raise e from None
        raise TypeError(f"{op}(): argument '{name}' must be int, not {type(v).__name__}") from None


_INTEGERS = (int, np.integer)  # for isinstance: an inline `int | np.integer` builds a Union object per call


def int_param(v, op: str, name: str, position: int, symint: bool = False) -> int:
    """An int parameter as PyTorch's parser takes it from a method call (a numpy int or an integer 0-dim tensor too,
    any one-element integer tensor for a `symint` one; a float or a bool is its TypeError, `topk(): argument 'k'
    (position 1) must be int, not float`, not a silent truncation)."""
    if v.__class__ is int:
        return v
    if isinstance(v, Tensor) and (v.ndim == 0 or symint and v.numel() == 1) and not (
            v.dtype.is_floating_point or v.dtype.is_complex or v.dtype is dtypes.bool):
        return int(v.item())  # an integer tensor of one element is an int to PyTorch's parser
    if isinstance(v, bool) or not isinstance(v, _INTEGERS):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be int, not {type(v).__name__}")
    return int(v)


def int_tuple_param(v, op: str, name: str, position: int) -> tuple[int, ...]:
    """A tuple-of-ints parameter given by position (one int, or a one-element integer tensor, stands for a tuple of
    one), refused in PyTorch's parser's words (`parser_errors.int_tuple_error`)."""
    if isinstance(v, _INTEGERS) and not isinstance(v, bool):
        return (int(v),)
    if not isinstance(v, tuple | list) and int_like(v):
        return (operator.index(v),)
    if (err := int_tuple_error(op, name, f" (position {position})", v)) is not None:
        raise err
    return tuple(operator.index(e) for e in v)




NO_FILL = object()  # `full`'s and `new_full`'s `fill_value` left out: PyTorch's parser words the missing argument


_NO_STR = "\n      didn't match because some of the arguments have invalid types: (!str!)"
_DTYPE_OVERLOADS = " * (*, torch.dtype dtype = None)\n * ({} dim, bool keepdim = False, *, torch.dtype dtype = None)"
_VAR_OVERLOADS = (" * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n"
                  " * (tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n"
                  f" * (bool unbiased = True){_NO_STR}")
_ALL_OVERLOADS = (f" * (){_NO_STR}\n * (tuple of ints dim = None, bool keepdim = False)\n"
                  " * (int dim, bool keepdim = False)")
# PyTorch's parser on a string `dim` given to a reduction method (`x.sum("batch")`): the overloads it lists, or
# (a one-overload method) the argument it names
_STR_DIM = {
    "sum": _DTYPE_OVERLOADS.format("tuple of ints"), "mean": _DTYPE_OVERLOADS.format("tuple of ints"),
    "prod": _DTYPE_OVERLOADS.format("int"), "std": _VAR_OVERLOADS, "var": _VAR_OVERLOADS,
    "max": f" * (){_NO_STR}\n * (Tensor other){_NO_STR}\n * (int dim, bool keepdim = False)",
    "all": _ALL_OVERLOADS, "any": _ALL_OVERLOADS,
    "count_nonzero": f" * (int dim = None){_NO_STR}\n * (tuple of ints dim){_NO_STR}",
}
_STR_DIM["min"] = _STR_DIM["max"]
_STR_DIM_TUPLE = frozenset({"nansum", "nanmean", "amax", "amin", "logsumexp"})  # "must be tuple of ints"
_STR_DIM_INT = frozenset({"argmax", "argmin"})  # "must be int"


def str_dim_error(op: str, dim) -> TypeError | None:
    """PyTorch's TypeError for a string `dim` (a named dim, which ember does not have) of the reduction `op`,
    as its parser words it for a method call; None for another op or another type."""
    if dim.__class__ is not str:
        return None
    if op in _STR_DIM:
        return TypeError(f"{op}() received an invalid combination of arguments - got (str), but expected one of:\n"
                         f"{_STR_DIM[op]}\n")
    if op in _STR_DIM_TUPLE or op in _STR_DIM_INT:
        kind = "int" if op in _STR_DIM_INT else "tuple of ints"
        return TypeError(f"{op}(): argument 'dim' (position 1) must be {kind}, not str")
    return None


def check_dtype_arg(op: str, dim, dtype) -> None:
    """PyTorch's TypeError for a reduction's `dtype=` that is not a torch.dtype (a name such as "float64"): the
    overloads listed where no dim picked one (`x.sum(dtype="float64")`), else the argument named."""
    if dtype is None or isinstance(dtype, dtypes.dtype) or any(dtype is t for t in (float, int, bool, complex)):
        return  # (Python's types PyTorch takes too; identity: a numpy dtype compares equal to them)
    kind = type(dtype).__name__
    if dim is None and op in ("sum", "mean", "prod"):
        raise TypeError(f"{op}() received an invalid combination of arguments - got (dtype={kind}, ), but expected "
                        f"one of:\n{_STR_DIM[op]}\n")
    raise TypeError(f"{op}(): argument 'dtype' must be torch.dtype, not {kind}")


def normalize_dims(dim, ndim: int, op: str) -> tuple[int, ...] | None:
    """`dim` (None, an int or a sequence of ints) as a sorted tuple of non-negative dims."""
    if dim is None:
        return None
    if dim.__class__ is int and -(n := ndim or 1) <= dim < n:  # one plain dim in range: nothing to convert
        return (dim % n,) if ndim else ()
    if isinstance(dim, _INTEGERS):
        dim = (int(dim),)
    elif not hasattr(dim, "__iter__") or (isinstance(dim, Tensor) and dim.ndim == 0):  # a float is refused
        dim = (index_arg(dim, op, "dim"),)
    n = max(ndim, 1)
    out = []
    for d in dim:
        try:
            d = operator.index(d)
        except TypeError:  # PyTorch's parser: a bad first element matches no overload, a later one fails to unpack
            if not out:
                if (e := str_dim_error(op, dim)) is not None:
                    raise e from None
                raise TypeError(f"{op}() received an invalid combination of arguments - got (dim="
                                f"{type(dim).__name__}, ), but expected one of:") from None
            raise TypeError(f"{op}(): argument 'dim' failed to unpack the object at pos {len(out) + 1} with error "
                            f"\"type must be tuple of ints,but got {type(d).__name__}\"") from None
        if not -n <= d < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
        d = d % n
        if d in out:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        out.append(d)
    return tuple(sorted(out)) if ndim else ()


def require_grad(t: Tensor) -> Tensor:
    """A factory's `requires_grad=True`: refuses integer and bool dtypes in PyTorch's words (its factories say
    "Only ... and complex dtype", `requires_grad_` says otherwise)."""
    if not (t._dtype.is_floating_point or t._dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return t.requires_grad_(True)
