"""The public shape and layout API: view/reshape/permute/..., basic indexing, `to`, `fill_`."""

from __future__ import annotations

import builtins
import math
import numbers
import operator

import numpy as np

from ember.core import dtypes, settings
from ember.core.device import as_device, device
from ember.core.device_backends import backend
from ember.core.dispatch import composite, declare, node_name
from ember.core.methods import attach, method
from ember.core.ops import memfmt
from ember.core.ops import shape as S
from ember.core.ops._util import (NO_FILL, _C_INT_NAMES, broadcast_shapes, int_value, internally, legacy_type_name,
                                  real_value, tp_name, warn_at_caller, warn_complex_to_real, warn_once)
from ember.core.ops.complex import conj as _conj
from ember.core.ops.parser_errors import invalid_arguments, overloads, sizes_function, sizes_method
from ember.core.ops.restricted_dtypes import float8_fill_value
from ember.core.settings import contiguous_format, preserve_format
from ember.core.tensor import _CSTRIDES, Tensor, _contiguous_strides_cached, made_like, value_read_guard

__all__ = [
    "view", "view_as", "reshape", "reshape_as", "contiguous", "clone", "permute", "transpose", "swapaxes", "swapdims",
    "t", "adjoint", "movedim", "moveaxis", "expand", "expand_as", "broadcast_to", "broadcast_tensors", "squeeze",
    "unsqueeze", "flatten", "unflatten", "ravel", "narrow", "select", "unfold", "as_strided", "diagonal", "unbind",
    "copy_", "resize_", "set_", "resize_as_", "fill_", "zero_", "to", "type", "type_as", "cpu", "cuda", "new_tensor",
    "new_empty", "new_full", "dim_order",
]


_SEQ = (tuple, list)  # isinstance against named tuples: an inline `tuple | list` builds a Union per call
_SHAPE_ARG = (int, tuple, list)
_SHAPE_OR_DTYPE = (*_SHAPE_ARG, dtypes.dtype, builtins.type)  # `view`'s two overloads


def _all_ints(seq) -> bool:
    for s in seq:  # a loop, not all() over a generator: this runs for every view and reshape
        if s.__class__ is not int:
            return False
    return True


def _sizes(args, keyword=None, op: str | None = None, name: str = "size") -> tuple:
    """`f(2, 3)`, `f((2, 3))` or `f(size=(2, 3))` (PyTorch's varargs-or-sequence convention); with `op`,
    elements that are not ints raise PyTorch's argument-parser TypeError."""
    if keyword is None:  # the common call: ints, or one tuple or list of ints (every view and reshape)
        given = args[0] if len(args) == 1 and isinstance(args[0], _SEQ) else args
        for s in given:
            if s.__class__ is not int:
                break
        else:
            return given if given.__class__ is tuple else tuple(given)
    if op is not None:
        given = keyword if keyword is not None else args[0] if len(args) == 1 and isinstance(args[0], _SEQ) else args
        if not (isinstance(given, _SEQ) and _all_ints(given)):
            from ember.core.creation import size_error

            if (err := size_error(op, () if keyword is not None else args, keyword, name)) is not None:
                raise err
    if keyword is not None:
        return tuple(keyword) if isinstance(keyword, _SEQ) else (keyword,)
    if len(args) == 1 and isinstance(args[0], _SEQ):
        return tuple(args[0])
    return tuple(args)


@method
def view(input, *shape, size=None, dtype=None) -> Tensor:
    """A view with `shape` (one dim may be -1), or `view(dtype)` reinterpreting the bytes as `dtype`."""
    if dtype is None and len(shape) == 1 and not isinstance(shape[0], _SHAPE_OR_DTYPE):
        if isinstance(shape[0], np.bool_) or not hasattr(shape[0], "__index__"):
            got = tp_name(shape[0])
            raise TypeError(f"view() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                            f" * (torch.dtype dtype)\n      didn't match because some of the arguments have invalid "
                            f"types: (!{got}!)\n * (tuple of ints size)\n      didn't match because some of the "
                            f"arguments have invalid types: (!{got}!)\n")
        return S.view(input, _sizes(shape, size))  # a numpy integer or a 0-d integer tensor is a size
    if dtype is not None or (len(shape) == 1 and not isinstance(shape[0], _SHAPE_ARG)):
        if dtype is not None and (shape or size is not None):
            raise TypeError("view() received an invalid combination of arguments: a dtype and a size")
        dtype = shape[0] if dtype is None else dtype
        if isinstance(dtype, str):  # a dtype object or a Python type, as PyTorch's parser takes
            raise TypeError(f"view(): argument 'dtype' must be torch.dtype, not {builtins.type(dtype).__name__}")
        return S.view_dtype(input, dtype)
    if not shape and size is None:  # PyTorch's parser: neither overload matches no argument
        raise TypeError("view() received an invalid combination of arguments - got (), but expected one of:\n"
                        " * (torch.dtype dtype)\n * (tuple of ints size)\n")
    if len(shape) > 1 and not _all_ints(shape) and any(s.__class__ is bool for s in shape):  # view(True, 6)
        got = ", ".join(map(tp_name, shape))
        raise TypeError(f"view() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        " * (torch.dtype dtype)\n * (tuple of ints size)\n")
    return S.view(input, _sizes(shape, size, "view"))


@method
def view_as(input, other) -> Tensor:
    return S.view(input, other._shape)


@method(function_form=sizes_function("reshape", "shape"), method_form=sizes_method("reshape", "shape"))
def reshape(input, *args, shape=None) -> Tensor:
    """`input` with `shape`: a view when the strides allow, else a copy."""
    if not args and shape is None:
        raise TypeError('reshape() missing 1 required positional arguments: "shape"')
    old = input._shape
    n = 1
    for s in old:  # input.numel(), inlined
        n *= s
    shape = S.infer_shape(_sizes(args, shape, "reshape", "shape"), n, "reshape")
    if (_CSTRIDES.get(old) or _contiguous_strides_cached(old)) == input._strides:  # dense row-major: a view
        return S.view(input, shape)
    if S.view_strides(old, input._strides, shape) is not None:
        if input.is_contiguous():
            return S.view(input, shape)
        # PyTorch's reshape views a non-contiguous tensor through `_reshape_alias`, naming its node so
        return node_name(S.view(input, shape), "ViewBackward0", "ReshapeAliasBackward0")
    return S._unsafe_view(S.clone(input), shape)  # PyTorch's copy: a new tensor, no view of the clone


@method
def reshape_as(input, other) -> Tensor:
    return reshape(input, other._shape)


@method
def contiguous(input, memory_format=None) -> Tensor:
    """`input` if it is dense in `memory_format`'s order (row-major by default), else a copy that is."""
    if memory_format is None or memory_format is contiguous_format:
        return input if input.is_contiguous() else S.clone(input)
    if memory_format is preserve_format:
        if input.is_contiguous():
            return input
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    if input.is_contiguous(memory_format):
        return input
    return S.clone(input, memory_format=memory_format)


@method
def clone(input, *, memory_format=None) -> Tensor:
    """A copy; `preserve_format` (the default) keeps a permuted layout of `input`, as PyTorch's."""
    if not input._dense_like and input.__class__.clone is not clone:  # a sparse tensor's own (torch.clone(s))
        return input.clone(memory_format=memory_format)
    if memfmt.dim_order(input, memory_format, "clone") is None:
        return S.clone(input)
    return S.clone(input, memory_format=memory_format or preserve_format)


@method(function_form=sizes_function("permute", "dims"), method_form=sizes_method("permute", "dims"))
def permute(input, *args, dims=None) -> Tensor:
    if not input._dense_like and input.__class__.permute is not permute:  # a sparse tensor's own (PyTorch's kernel)
        return input.permute(_sizes(args, dims, "permute", "dims"))
    return S.permute(input, _sizes(args, dims, "permute", "dims"))


@method
def transpose(input, dim0: int, dim1: int) -> Tensor:
    if not input._dense_like and input.__class__.transpose is not transpose:  # a sparse tensor's own
        return input.transpose(dim0, dim1)
    if input.ndim == 0:  # its dims are -1 and 0 only
        input._wrap_dim(dim0), input._wrap_dim(dim1)
    return S.transpose(input, dim0, dim1)


swapaxes = swapdims = transpose
attach("swapaxes", transpose)
attach("swapdims", transpose)


@method
def t(input) -> Tensor:
    """Transpose a tensor of at most 2 dims."""
    if not input._dense_like and input.__class__.t is not t:  # a sparse tensor's own (PyTorch's kernel)
        return input.t()
    ndim = len(input._shape)
    if ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    r = S.transpose(input, 0, 1) if ndim == 2 else S.view(input, input._shape)
    return node_name(r, "TransposeBackward0" if ndim == 2 else "ViewBackward0", "TBackward0", twin=True)


@method
def adjoint(input) -> Tensor:
    """The conjugate transpose of the last two dims (the transpose of a real tensor)."""
    if not input._dense_like and input.__class__.adjoint is not adjoint:  # a sparse tensor's own
        return input.adjoint()
    return _conj(S.transpose(input, -2, -1) if _matrices(input, "adjoint()") else input)


def _reversed_dims(self: Tensor) -> Tensor:
    """`x.T`: x with its dims reversed; PyTorch's deprecation warning once for other than 2-D."""
    if self.ndim == 0:
        warn_once(internally("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
                             "aten/src/ATen/native/TensorShape.cpp:4321"))
    elif self.ndim != 2:
        warn_once(internally("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
                             "deprecated and it will throw an error in a future release. Consider `x.mT` to transpose "
                             "batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
                             "dimensions of a tensor.", "aten/src/ATen/native/TensorShape.cpp:4314"))
    return S.permute(self, tuple(range(self.ndim - 1, -1, -1)))


attach("T", property(_reversed_dims))


# PyTorch's TORCH_WARN_ONCE where a 0-D tensor passes: mT is then the identity, mH and adjoint() conjugate
_ZERO_DIM_WARNINGS = {
    "mT": ("Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.", 4373),
    "mH": ("Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().", 4382),
    "adjoint()": ("adjoint() is deprecated on 0-D tensors. Consider using x.conj().", 4390),
}


def _matrices(x, name: str) -> bool:
    """Whether `x` is a (batch of) matrices to transpose: False for 0-D, with PyTorch's deprecation warning;
    PyTorch's RuntimeError for 1-D."""
    if x.ndim == 0:
        message, line = _ZERO_DIM_WARNINGS[name]
        warn_once(internally(message, f"aten/src/ATen/native/TensorShape.cpp:{line}"))
        return False
    if x.ndim < 2:
        raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of matrices. Got {x.ndim}-D "
                           "tensor.")
    return True


attach("mT", property(lambda self: S.transpose(self, -2, -1) if _matrices(self, "mT") else self))


def _adjoint_2d(x):
    """`x.H`: the conjugate transpose of a matrix (a 0-dim tensor conjugated, with PyTorch's deprecation warning);
    PyTorch refuses other ranks."""
    if x.ndim == 1 or x.ndim > 2:
        hint = ". For batches of matrices, consider using tensor.mH" if x.ndim > 2 else "."
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {x.ndim}-D tensor{hint}")
    if x.ndim == 0:
        warn_once(internally("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().",
                             "aten/src/ATen/native/TensorShape.cpp:4335"))
    return _conj(S.transpose(x, 0, 1) if x.ndim == 2 else x)


attach("H", property(_adjoint_2d))
attach("mH", property(lambda self: _conj(S.transpose(self, -2, -1) if _matrices(self, "mH") else self)))


@method
def movedim(input, source, destination) -> Tensor:
    src = [_movedim_dim(s, input.ndim) for s in (source if isinstance(source, _SEQ) else (source,))]
    dst = [_movedim_dim(d, input.ndim) for d in (destination if isinstance(destination, _SEQ) else (destination,))]
    if input.ndim == 0:
        return S.view(input, ())
    for name, dims in (("source", src), ("destination", dst)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({dims})")
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
                           f"contain the same number of dims as destination ({list(dst)} dims)")
    order = [None] * input.ndim
    for s, d in zip(src, dst, strict=True):
        order[d] = s
    rest = iter(i for i in range(input.ndim) if i not in src)
    order = [o if o is not None else next(rest) for o in order]
    return S.permute(input, tuple(order))


def _movedim_dim(d: int, ndim: int) -> int:
    d = operator.index(d)  # a numpy integer or a 0-d integer tensor, as PyTorch's int parser takes
    n = max(ndim, 1)
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
    return d % n


moveaxis = movedim
attach("moveaxis", movedim)


@method
def expand(input, *args, size=None) -> Tensor:
    return S.expand(input, _sizes(args, size, "expand"))


@method
def expand_as(input, other) -> Tensor:
    return S.expand(input, other._shape)


@method
def broadcast_to(input, *size) -> Tensor:
    """`input` expanded to `size`, a sequence or (as PyTorch's method takes it) the sizes as arguments."""
    return S.expand(input, tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else size)


def broadcast_tensors(*tensors) -> tuple[Tensor, ...]:
    """`tensors` expanded to their common shape; shapes that do not broadcast raise PyTorch's message. A tensor
    already of that shape comes back itself, as PyTorch's (so `Normal(loc, scale).loc is loc`)."""
    shape = broadcast_shapes(*(t._shape for t in tensors))
    return tuple(t if tuple(t._shape) == tuple(shape) else S.expand(t, shape) for t in tensors)


_SQUEEZE_METHOD = ["()", "(int dim)", "(tuple of ints dim)"]
_SQUEEZE_FUNCTION = ["(Tensor input)", "(Tensor input, int dim)", "(Tensor input, tuple of ints dim)"]


_EVERY_DIM = object()  # squeeze's default: PyTorch's overloads refuse an explicit None


def _squeeze_invalid(args: tuple, kwargs: dict) -> bool:
    """Whether a given dim matches none of PyTorch's squeeze overloads: not an int, a Tensor, or a sequence that
    starts with an int (a later bad element fails to unpack instead, in `normalize_dims`); None is no dim."""
    dim = args[1] if len(args) > 1 else kwargs.get("dim", _EVERY_DIM)
    if dim is _EVERY_DIM or isinstance(dim, numbers.Integral | Tensor):
        return False
    if isinstance(dim, tuple | list):
        return bool(dim) and not isinstance(dim[0], numbers.Integral)
    return True


@method(function_form=overloads("squeeze", _SQUEEZE_FUNCTION, _squeeze_invalid))
def squeeze(input, dim=_EVERY_DIM) -> Tensor:
    if dim.__class__ is not int and dim is not _EVERY_DIM and _squeeze_invalid((input, dim), {}):  # the method form
        raise invalid_arguments("squeeze", (dim,), {}, _SQUEEZE_METHOD)  # (no wrapper frame on its hot path)
    if dim is _EVERY_DIM:
        return S.squeeze(input, None)
    r = S.squeeze(input, dim)  # PyTorch's overloads: squeeze(), squeeze(dim), squeeze(dims)
    return node_name(r, "SqueezeBackward0", "SqueezeBackward2" if isinstance(dim, tuple | list) else "SqueezeBackward1")


@method
def unsqueeze(input, dim: int) -> Tensor:
    if not input._dense_like and input.__class__.unsqueeze is not unsqueeze:  # a sparse tensor's own (PyTorch's kernel)
        return input.unsqueeze(dim)
    return S.unsqueeze(input, dim)


@method
def flatten(input, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dims `start_dim`..`end_dim` into one (a view when possible)."""
    s, e = input._wrap_dim(start_dim), input._wrap_dim(end_dim)
    if input.ndim == 0:
        return reshape(input, (1,))
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    n = 1
    for d in input._shape[s:e + 1]:
        n *= d
    return reshape(input, input._shape[:s] + (n,) + input._shape[e + 1:])


@method
def unflatten(input, dim: int, sizes) -> Tensor:
    sizes = tuple(sizes)
    if not sizes:  # checked before the dim, as PyTorch's
        raise RuntimeError("unflatten: sizes must be non-empty")
    d = input._wrap_dim(dim)
    n, known = input._shape[d], math.prod(s for s in sizes if s != -1)
    if sizes.count(-1) <= 1 and (known != n if -1 not in sizes else known == 0 or n % known):
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {d} "
                           f"({n}) in the input tensor")
    sizes = S.infer_shape(sizes, input._shape[d], "unflatten")
    return S.view(input, input._shape[:d] + sizes + input._shape[d + 1:]) \
        if S.view_strides(input._shape, input._strides, input._shape[:d] + sizes + input._shape[d + 1:]) \
        else reshape(input, input._shape[:d] + sizes + input._shape[d + 1:])


@method
def ravel(input) -> Tensor:
    return reshape(input, (-1,))


_NARROW_METHOD = ["(int dim, Tensor start, int length)", "(int dim, int start, int length)"]
_NARROW_FUNCTION = ["(Tensor input, " + o[1:] for o in _NARROW_METHOD]


def _narrow_invalid(args: tuple, kwargs: dict) -> bool:
    """Whether (dim, start, length), given by position or keyword, match neither PyTorch narrow overload."""
    given = list(args[1:4]) + [kwargs.get(k) for k in ("dim", "start", "length")[max(len(args) - 1, 0):]]
    dim, start, length = given
    return not (isinstance(dim, numbers.Integral) and isinstance(start, numbers.Integral | Tensor)
                and isinstance(length, numbers.Integral))


@method(function_form=overloads("narrow", _NARROW_FUNCTION, _narrow_invalid))
def narrow(input, dim: int, start, length: int) -> Tensor:
    if (start.__class__ is not int or dim.__class__ is not int or length.__class__ is not int) and \
            _narrow_invalid((input, dim, start, length), {}):  # the method form (no wrapper frame on its hot path)
        raise invalid_arguments("narrow", (dim, start, length), {}, _NARROW_METHOD)
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if isinstance(start, Tensor) and (start.ndim != 0 or start._dtype._category != dtypes._INT):
        raise RuntimeError("start must be an 0-dim integral Tensor.")
    return node_name(S.narrow(input, dim, int(start), length), "NarrowBackward0", "SliceBackward0")


@method
def select(input, dim: int, index: int) -> Tensor:
    if not input._dense_like and input.__class__.select is not select:  # a sparse tensor's own (PyTorch's kernel)
        return input.select(dim, index)
    return S.select(input, dim, int(index))


@method
def unfold(input, dimension: int, size: int, step: int) -> Tensor:
    """Windows of `size` every `step` along `dimension` as a new last dim (a view); an integer tensor or numpy int
    counts as its int, so the shape holds ints (floats and bools are refused before, by `arguments.INT_ARGS`)."""
    dimension, size, step = operator.index(dimension), operator.index(size), operator.index(step)
    input._wrap_dim(dimension)  # the dim first, as PyTorch (a 0-dim tensor has -1 and 0)
    return S.unfold(input, dimension, size, step)


@method
def as_strided(input, size, stride, storage_offset: int | None = None) -> Tensor:
    return S.as_strided(input, size, stride, storage_offset)


@method
def diagonal(input, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    return S.diagonal(input, offset, dim1, dim2)


@method
def unbind(input, dim: int = 0) -> tuple[Tensor, ...]:
    """The views of `input` indexed along `dim`, made in one pass (one UnbindBackward0 node for them all)."""
    return S.unbind(input, dim)


@method
def copy_(input, src, non_blocking: bool = False) -> Tensor:
    """Copy `src` (broadcast, cast, possibly from another device) into `input`; `src` is a tensor or a number,
    as PyTorch's parser takes it (a None, list or ndarray is a TypeError, not a NaN or element-wise fill)."""
    if not isinstance(src, Tensor | numbers.Number):
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not {tp_name(src)}")
    return S.copy_(input, src, non_blocking)


@method
def resize_(input, *sizes, memory_format=None) -> Tensor:
    """Give `input` the shape `sizes`, dense in `memory_format`'s order (row-major by default), growing its
    storage when it is too small. As PyTorch's: a tensor that requires grad is refused in any grad mode, and the
    same sizes only restride it, which writes nothing (no version bump)."""
    if input._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    shape = S._resize_shape(sizes)
    if shape == input._shape and all(n.__class__ is int for n in shape):
        if memory_format is not None:
            input._set_meta(input._storage, input._offset, shape, S.resize_strides(shape, memory_format))
        return input
    return S.resize_(input, *sizes, memory_format=memory_format)


@method
def set_(input, source=None, storage_offset: int = 0, size=None, stride=None) -> Tensor:
    """Make `input` a view of `source`: a tensor, or a `Storage` read at `storage_offset` with
    `size` and `stride` (defaults: the whole storage, contiguous); no source empties it.

    Raises:
        RuntimeError: the geometry reaches outside the storage (it is never grown), is negative
            or overflows; the dtypes or devices differ.
        TypeError: a source that is neither a tensor nor a storage, or non-integer sizes.

    Example:
        >>> from ember.core import arange
        >>> x = arange(2.0)
        >>> x.set_(arange(6.0).untyped_storage(), 2, (2, 2), (1, 2)).tolist()
        [[2.0, 4.0], [3.0, 5.0]]
    """
    return S.set_(input, source, storage_offset, size, stride)


@method
def resize_as_(input, other, memory_format=None) -> Tensor:
    """`resize_` to `other`'s sizes; preserve_format takes the format `other`'s strides suggest."""
    if memory_format is preserve_format:
        memory_format = getattr(settings, memfmt.suggested_format(other))
    return resize_(input, other._shape, memory_format=memory_format)


# --- filling -------------------------------------------------------------------------------
_fill = declare("fill_", mutates=(0,), overlap=0)


@_fill.register("cpu")
def _fill_cpu(self, value):
    if self._dtype is dtypes.complex32:  # a record of two float16s (ops/complex_half.py)
        from ember.core.ops.complex_half import from_array

        value = from_array(value)
    self._np()[...] = value
    return self


@method
def fill_(input, value) -> Tensor:
    """Set every element to `value` (a number or a 0-dim tensor)."""
    if isinstance(value, Tensor):
        if value_read_guard[0] is not None:  # vmap refuses a mapped value filled into an unmapped tensor
            value_read_guard[0](value, "fill_", input)
        if value.ndim != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} "
                               "dimensions.")
        if value._dtype.is_complex and not input._dtype.is_complex:  # copied as a tensor: its real part
            warn_complex_to_real(value._dtype, input._dtype)
            value = value.item()
            return _fill(input, bool(value) if input._dtype is dtypes.bool else value.real)
        value = value.item()
        if isinstance(value, int) and input._dtype.name in _C_INT_NAMES:  # a tensor's int wraps, copied as PyTorch
            return _fill(input, int(np.array(value).astype(input._dtype.np)))
        if input._dtype in dtypes.FLOAT8:  # copied as a tensor: converted, unchecked
            return _fill(input, _float8_value(input, value, False))
    value = int_value(input, real_value(input, value))
    if input._dtype in dtypes.FLOAT8:  # PyTorch checks the value unless the tensor has one element
        value = _float8_value(input, value, input.numel() != 1)
    return _fill(input, value)


def _float8_value(input: Tensor, value, checked: bool):
    """`float8_fill_value` for `input`: the format's numpy scalar on the CPU, its value as a float elsewhere."""
    v = float8_fill_value(input._dtype, value, checked)
    return v if input._storage.device.type == "cpu" else float(v)


@method
def zero_(input) -> Tensor:
    """Zero bits in every element, as PyTorch's memset (float8_e8m0fnu, which has no zero, gets its smallest)."""
    if input._dtype is dtypes.float8_e8m0fnu:
        return _fill(input, _float8_value(input, 0.0, False))
    if input._dtype._category == dtypes._SHELL:
        from ember.core.ops.shell_dtypes import zero_bytes

        return zero_bytes(input)
    return _fill(input, 0)


# --- conversion ----------------------------------------------------------------------------
def _is_to_dtype(a) -> bool:
    return isinstance(a, dtypes.dtype) or (isinstance(a, builtins.type) and a in (float, int, bool, complex))


def _parse_to(args, kwargs) -> tuple:
    """(device, dtype, non_blocking, copy) from PyTorch's three `to` signatures: (device, dtype, ...),
    (dtype, ...) and (tensor, ...), each followed by at most the bools non_blocking and copy."""
    dev = kwargs.get("device")
    dt = kwargs.get("dtype")
    if dt is not None and not _is_to_dtype(dt):  # a dtype's name or a numpy type: no signature takes it
        raise _to_refusal(args, kwargs)
    flags = [kwargs.get("non_blocking", False), kwargs.get("copy", False)]
    head = 0
    if args and isinstance(args[0], Tensor):
        dev, dt, head = args[0].device, args[0].dtype, 1
    elif args and _is_to_dtype(args[0]):
        dt, head = args[0], 1
    elif args and (args[0] is None or isinstance(args[0], str | device)
                   or (isinstance(args[0], int) and not isinstance(args[0], bool))):
        dev, head = args[0], 1
        if len(args) > 1 and (args[1] is None or _is_to_dtype(args[1])):
            dt, head = args[1], 2
    rest = args[head:]
    if len(rest) > 2 or not all(isinstance(a, bool) for a in rest):
        raise _to_refusal(args)
    flags[:len(rest)] = rest
    return dev, dt, flags[0], flags[1]


_TO_TAIL = "bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)"


def _parser_type_name(v) -> str:
    """How PyTorch's argument parser names a value's type (its C type name: `numpy.dtypes.Float32DType`)."""
    if isinstance(v, Tensor):
        return "Tensor"
    if isinstance(v, dtypes.dtype | device):
        return f"torch.{builtins.type(v).__name__}"
    t = builtins.type(v)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _to_refusal(args, kwargs=None) -> TypeError:
    """PyTorch's refusal of `to()` arguments that match none of its three signatures (keywords listed after the
    positional arguments, with the parser's trailing ", " when they stand alone)."""
    got = ", ".join(_parser_type_name(a) for a in args)
    if kwargs:
        named = ", ".join(f"{k}={_parser_type_name(v)}" for k, v in kwargs.items())
        got = f"{got}, {named}" if got else f"{named}, "
    return TypeError(f"to() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     f" * (torch.device device = None, torch.dtype dtype = None, {_TO_TAIL}\n"
                     f" * (torch.dtype dtype, {_TO_TAIL}\n * (Tensor tensor, {_TO_TAIL}\n")


@method
def to(input, *args, **kwargs) -> Tensor:
    """`to(dtype)`, `to(device)`, `to(device, dtype)` or `to(other)`, and `memory_format=`: self when nothing
    changes."""
    dev, dt, non_blocking, copy = _parse_to(args, kwargs)
    out = input
    if dt is not None:
        dt = dtypes.as_dtype(dt)
        if dt is not out._dtype:
            perm = memfmt.dim_order(out, kwargs.get("memory_format"), "to")
            if perm is None:
                out = S.to_dtype(out, dt)
            else:  # the converted copy keeps the layout asked for (preserve_format: the input's)
                inverse = tuple(sorted(range(len(perm)), key=perm.__getitem__))
                res = S.permute(S.to_dtype(S.permute(out, perm).contiguous(), dt), inverse)
                if res._strides != out._strides and out.is_contiguous() and kwargs.get("memory_format") in (
                        None, preserve_format):  # PyTorch keeps a row-major input's size-1 strides too
                    res = as_strided(res, out._shape, out._strides, res._offset)
                out = res
            copy = False
    if dev is not None:
        dev = as_device(dev)
        if dev != out.device:
            out = _moved(out, dev, non_blocking)
            copy = False
    fmt = kwargs.get("memory_format")
    if fmt is not None and fmt is not preserve_format:  # PyTorch: a copy unless the strides suggest the format
        name = getattr(fmt, "name", None)
        if memfmt.suggested_format(out) != ("contiguous_format" if name == "legacy_contiguous_format" else name):
            return clone(out, memory_format=fmt)
    if copy:
        out = clone(out)
    return out


def _moved(x: Tensor, dev, non_blocking: bool) -> Tensor:
    """`x` copied to `dev`, keeping a dense layout (a channels_last or transposed tensor stays so, as PyTorch's
    preserve_format): the copy moves the dims' dense order as one row-major block, then views it back."""
    if x._storage.device.type == "meta":  # NOTE [ The meta device ]: nothing to copy
        move = backend("meta").to_device
    else:
        move = backend(dev.type if dev.type != "cpu" else x.device.type).to_device
    perm = memfmt.dim_order(x, None) if memfmt.dense_strides(x._shape, x._strides) else None
    if perm is None:
        return move(x, dev, non_blocking)
    flat = Tensor._make(x._storage, x._offset, memfmt.permuted_shape(x._shape, perm),
                        memfmt.permuted_shape(x._strides, perm), x._dtype)
    return memfmt.restride(move(flat, dev, non_blocking), perm, like=x)


@method
def type(input, dtype=None, non_blocking: bool = False):  # noqa: A001 - PyTorch's method name
    """The type name (`"torch.FloatTensor"`, PyTorch's) without arguments, else a converted tensor."""
    if dtype is None:
        prefix = "torch.cuda." if input.is_cuda else "torch."
        return f"{prefix}{dtypes.TORCH_NAMES[input._dtype.name]}Tensor"
    dev = None
    if isinstance(getattr(dtype, "is_cuda", None), bool):  # a legacy type such as FloatTensor
        dev, dtype = ("cuda" if dtype.is_cuda else "cpu"), dtype.dtype
    elif isinstance(dtype, str):
        rev = {v: k for k, v in dtypes.TORCH_NAMES.items()}
        key = dtype.rsplit(".", 1)[-1].removesuffix("Tensor")
        if key not in rev:
            raise ValueError(f"invalid type: '{dtype}'")
        dev, dtype = ("cuda" if ".cuda." in dtype else "cpu"), rev[key]
    elif isinstance(dtype, builtins.type) and issubclass(dtype, Tensor):  # torch.Tensor: the default type
        dtype = dtypes.get_default_dtype()
    elif isinstance(dtype, builtins.type):  # Python's float, numpy's float32: not tensor types
        mod = "" if dtype.__module__ == "builtins" else f"{dtype.__module__}."
        raise ValueError(f"invalid type: '{mod}{dtype.__qualname__}'")
    elif not isinstance(dtype, dtypes.dtype):
        raise TypeError("dtype must be a type, str, or dtype object")
    out = to(input, dtypes.as_dtype(dtype))
    return out if dev is None or out.device.type == dev else to(out, dev, non_blocking=non_blocking)


@method
def type_as(input, other) -> Tensor:
    """`input` converted to `other`'s dtype (itself when they match)."""
    return to(input, other.dtype)


def _converter(name: str, dt):
    def conv(self, memory_format=None):
        return to(self, dt)
    conv.__name__, conv.__qualname__ = name, f"Tensor.{name}"  # `func.__name__` as `__torch_function__` sees it
    return conv


for _name, _dt in (("float", dtypes.float32), ("double", dtypes.float64), ("half", dtypes.float16),
                   ("bfloat16", dtypes.bfloat16), ("long", dtypes.int64), ("int", dtypes.int32),
                   ("short", dtypes.int16), ("char", dtypes.int8),
                   ("byte", dtypes.uint8), ("bool", dtypes.bool)):
    attach(_name, _converter(_name, _dt))


@method
def cpu(input, memory_format=None) -> Tensor:
    return to(input, "cpu")


@method
def cuda(input, device=None, non_blocking: bool = False, memory_format=None) -> Tensor:  # noqa: F811
    return to(input, "cuda" if device is None else as_device(device if not isinstance(device, int) else
                                                               f"cuda:{device}"), non_blocking=non_blocking)


# the `new_*` methods are composites: a TorchFunctionMode sees `x.new_zeros(3)` as `new_zeros`, not the factory
@method
@composite("new_tensor")
def new_tensor(input, data, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    from ember.core.creation import copy_construct_warning, copy_of, dtype_arg

    dtype_arg(dtype, "new_tensor")
    if isinstance(data, Tensor):
        warn_at_caller(copy_construct_warning("tensor.new_tensor"))
    return copy_of(data, dtype or input.dtype, device or input.device, requires_grad)


def _new_filled(input, size, fill, name, dtype, layout, device, requires_grad) -> Tensor:
    from ember.core.creation import dtype_arg, full

    dtype_arg(dtype, name)
    shape, dt, dev = _sizes(size, None, name), dtype or input.dtype, device or input.device
    if fill == 0 and dt is dtypes.float8_e8m0fnu:  # PyTorch's new_zeros is zero_ (a fill of 0 overflows e8m0fnu)
        from ember.core.creation import zeros

        return zeros(shape, dtype=dt, layout=layout, device=dev, requires_grad=requires_grad)
    return full(shape, fill, dtype=dt, layout=layout, device=dev, requires_grad=requires_grad)


@method
@composite("new_zeros")
@made_like
def new_zeros(input, *size, dtype=None, layout=None, device=None, requires_grad: bool = False,
              pin_memory: bool = False) -> Tensor:
    return _new_filled(input, size, 0, "new_zeros", dtype, layout, device, requires_grad)


@method
@composite("new_ones")
@made_like
def new_ones(input, *size, dtype=None, layout=None, device=None, requires_grad: bool = False,
             pin_memory: bool = False) -> Tensor:
    return _new_filled(input, size, 1, "new_ones", dtype, layout, device, requires_grad)


@method
@composite("new_empty")
@made_like
def new_empty(input, *size, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    from ember.core.creation import dtype_arg, empty

    dtype_arg(dtype, "new_empty")
    return empty(_sizes(size, None, "new_empty"), dtype=dtype or input.dtype, layout=layout,
                 device=device or input.device,
                 requires_grad=requires_grad)


@method
@composite("new_full")
@made_like
def new_full(input, size, fill_value=NO_FILL, *, dtype=None, layout=None, device=None,
             requires_grad: bool = False) -> Tensor:
    from ember.core.creation import dtype_arg, full

    if fill_value is NO_FILL:
        raise TypeError('new_full() missing 1 required positional arguments: "fill_value"')
    if isinstance(fill_value, Tensor) and fill_value.ndim:  # a Number: only a 0-dim tensor is one
        raise TypeError("new_full(): argument 'fill_value' (position 2) must be Number, not Tensor")
    if not isinstance(fill_value, numbers.Number | np.bool_ | Tensor):
        raise TypeError(f"new_full(): argument 'fill_value' (position 2) must be Number, not "
                        f"{fill_value.__class__.__name__}")
    dtype_arg(dtype, "new_full")
    if not isinstance(size, tuple | list):
        raise TypeError("new_full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{size.__class__.__name__}")
    return full(tuple(size), fill_value, dtype=dtype or input.dtype, layout=layout, device=device or input.device,
                requires_grad=requires_grad)


# --- basic indexing ------------------------------------------------------------------------
def _is_basic(key) -> bool:
    for k in key:  # plain ints and slices first: numbers.Integral is an ABC, slow to test against
        if not (k.__class__ is int or k.__class__ is slice or k is None or k is Ellipsis or isinstance(k, slice) or
                (isinstance(k, numbers.Integral) and not isinstance(k, bool))):
            return False
    return True


def basic_index(x: Tensor, key: tuple) -> Tensor:
    """x[key] for ints, slices (any positive step), None and Ellipsis: always a view.

    NOTE [ Several ellipses ]
    PyTorch 2.13 takes any number of ellipses in an index: each one moves the position on by the dims the
    other items leave, so a second one moves past the last dim (`x[..., 0, ...]` is `x[..., 0]`), where a
    full slice does nothing, an int finds a dim of size 0 and another slice a dim out of range (PyTorch reads the
    size past its array there: its words for an int far past the end vary, ember's stay these)."""
    consumed = 0
    for k in key:
        if k is not None and k is not Ellipsis:
            consumed += 1
    ndim = len(x._shape)
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    out = x
    dim = 0
    for i, k in enumerate(key):
        if k is Ellipsis:  # NOTE [ Several ellipses ]
            dim += ndim - consumed
        elif k is None:
            out = S.unsqueeze(out, dim)
            dim += 1
        elif k.__class__ is slice and k.step is None and k.start.__class__ in _PLAIN and k.stop.__class__ in _PLAIN:
            if not (k.start is None and k.stop is None):  # `a:b` of ints: slice_step's answer is 1, no call
                out = S.slice(out, dim, k.start, k.stop, 1)
            dim += 1
        elif isinstance(k, slice):
            step = slice_step(k)
            if not (k.start is None and k.stop is None and step == 1):
                out = S.slice(out, dim, _int_or_none(k.start), _int_or_none(k.stop), step)
            dim += 1
        else:
            size = out._shape[dim] if dim < out.ndim else 0  # past the last dim (NOTE [ Several ellipses ])
            if not -size <= k < size:  # PyTorch names the item's position in the key as its dimension
                raise IndexError(f"index {k} is out of bounds for dimension {i} with size {size}")
            out = S.select(out, dim, int(k))
    return out if out is not x else alias_view(x)  # x[...]


def alias_view(x: Tensor) -> Tensor:
    """A new view of all of `x` (its `_base` is x), recorded as PyTorch's AliasBackward0: `x[...]`, and the legacy
    constructors' `torch.Tensor(x)`/`x.new(x)`, which alias rather than return x itself."""
    return node_name(S.view(x, x._shape), "ViewBackward0", "AliasBackward0")


_PLAIN = (int, builtins.type(None))


def slice_step(k: slice) -> int:
    """The step of an index's slice, its parts checked as PyTorch's (Python's slice rules, then a positive step)."""
    if not (k.start.__class__ in _PLAIN and k.stop.__class__ in _PLAIN and k.step.__class__ in _PLAIN):
        k.indices(0)  # Python's TypeError for a part without __index__ ("slice indices must be integers ...")
    step = 1 if k.step is None else operator.index(k.step)
    if step <= 0:
        raise ValueError("slice step cannot be zero" if step == 0 else "step must be greater than zero")
    return step


def _int_or_none(v):
    return None if v is None else int(v)


_SEQUENCE_KEY = ("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in "
                 "pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor "
                 "index, x[torch.tensor(seq)], which will result either in an error or a different result")


def _normalize_key(key) -> tuple:
    """A tuple of index items; like PyTorch, a short list holding sequences, slices, None or ... is a tuple, with
    its deprecation warning (from the line of its check that the first such item meets)."""
    if isinstance(key, tuple):
        return key
    if isinstance(key, list) and len(key) < 32:
        for k in key:
            if isinstance(k, list | tuple | Tensor | slice | np.ndarray) or k is None or k is Ellipsis:
                line = 359 if k is None or k is Ellipsis else 349
                warn_at_caller(internally(_SEQUENCE_KEY, f"torch/csrc/autograd/python_variable_indexing.cpp:{line}"))
                return tuple(key)
    return (key,)


def _unwrap_0d_int(key: tuple) -> tuple:
    for k in key:
        if isinstance(k, Tensor):
            break
    else:  # no tensor in the key (`x[0, 1]`, `x[:, :2]`): as it is
        return key
    return tuple(int(k) if isinstance(k, Tensor) and k.ndim == 0 and not k._dtype.is_floating_point
                 and k._dtype is not dtypes.bool and k._dtype is not dtypes.uint8 else k for k in key)  # uint8: a mask


def _bare_int_on_0d(key: int) -> IndexError:
    """PyTorch's words for `x[i]` (not `x[i,]`) on a 0-dim tensor: 0 points at `.item()`, others are out of bounds."""
    if key == 0:
        return IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                          "C++ to convert a 0-dim tensor to a number")
    return IndexError(f"index {key} is out of bounds for dimension 0 with size 0")


def _bare_slice_on_0d() -> IndexError:
    """PyTorch's words for `x[a:b]` (not `x[a:b,]`, which has too many indices) on a 0-dim tensor."""
    return IndexError("slice() cannot be applied to a 0-dim tensor.")


def getitem(self, key):
    if key.__class__ is int:  # x[i], the most common index, without parsing a key (basic_index's checks)
        if not self._shape:
            raise _bare_int_on_0d(key)
        size = self._shape[0]
        if not -size <= key < size:
            raise IndexError(f"index {key} is out of bounds for dimension 0 with size {size}")
        return S.select(self, 0, key)
    if key.__class__ is slice and not self._shape:
        raise _bare_slice_on_0d()
    if key.__class__ is Tensor and key._shape:  # x[idx], x[mask]: a key with nothing to parse
        from ember.core.ops.indexing import advanced_index

        return advanced_index(self, (key,))
    key = _unwrap_0d_int(_normalize_key(key))
    if _is_basic(key):
        return basic_index(self, key)
    from ember.core.ops.indexing import advanced_index

    return advanced_index(self, key)


def _setitem_source(value: Tensor, shape: tuple) -> Tensor:
    """`value` as PyTorch's setitem copies it: leading size-1 dims dropped, then expanded to the destination's
    `shape` (so a mismatch raises expand's error)."""
    lead = 0
    while lead < value.ndim - len(shape) and value._shape[lead] == 1:
        lead += 1
    if lead:
        value = reshape(value, value._shape[lead:])
    if value.ndim > len(shape):
        raise RuntimeError(f"expand({legacy_type_name(value)}{{{list(value._shape)}}}, size={list(shape)}): the "
                           f"number of sizes provided ({len(shape)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({value.ndim})")
    return S.expand(value, shape)


def setitem(self, key, value) -> None:
    if not isinstance(value, Tensor | int | float | complex | np.integer):  # np.float64 is a float, np.bool_ no int
        raise TypeError(f"can't assign a {tp_name(value)} to a {type(self)}")  # PyTorch: a tensor or a number
    if isinstance(value, complex):  # `type` is the Tensor method here
        value = real_value(self, value)
    if value.__class__ is int and not -(1 << 63) <= value < 1 << 63:
        raise ValueError("Overflow when unpacking long long")  # PyTorch reads a Python int as a C long long
    if not isinstance(value, Tensor):
        value = int_value(self, value)  # checked (and wrapped, uint8's -1 is 255) as PyTorch converts the number
    if key.__class__ is bool:  # PyTorch: x[True] = v is x[None] = v (a copy, cast); x[False] = v writes nothing
        if not key:
            return
        key = None
    if key.__class__ is int and not self._shape:
        raise _bare_int_on_0d(key)
    if key.__class__ is slice and not self._shape:
        raise _bare_slice_on_0d()
    if key.__class__ is Tensor and key._shape:  # x[idx] = v, x[mask] = v: a key with nothing to parse
        from ember.core.ops.indexing import advanced_index_put_

        advanced_index_put_(self, (key,), value)
        return
    key = _unwrap_0d_int(_normalize_key(key))
    if _is_basic(key):
        dst = basic_index(self, key)
        if isinstance(value, Tensor) and value.ndim and value._shape != dst._shape:
            value = _setitem_source(value, dst._shape)
        S.copy_(dst, value)
        return
    from ember.core.ops.indexing import advanced_index_put_

    advanced_index_put_(self, key, value)


getitem.__name__, getitem.__qualname__ = "__getitem__", "Tensor.__getitem__"  # as `__torch_function__` sees it
attach("__getitem__", getitem)
attach("__setitem__", setitem)


@method
def dim_order(input) -> tuple[int, ...]:
    return tuple(sorted(range(input.ndim), key=lambda d: -input._strides[d]))

