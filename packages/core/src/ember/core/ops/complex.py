"""Complex tensors: `.real`/`.imag` and `view_as_real`/`view_as_complex` as views, `complex`,
`polar`, `angle`, `sgn`, `conj` and the elementwise ops' complex rules (what they refuse).

NOTE [ Complex storage and conj ]
A complex64 (complex128) element is two float32 (float64) values, real then imaginary, as numpy
stores it. So `.real`, `.imag` and `view_as_real` are float views of the same storage: offset
and strides doubled (plus one for `.imag`), and writes through them reach the complex tensor.

`conj()` is PyTorch's lazy conjugate: a view of the same storage whose conjugate bit
(`Tensor._conj`) says its values are the conjugates of what the storage holds. The bit is a class
attribute, False, set in the instance's `__dict__` of conjugate views only, so ordinary tensors
pay nothing; the few places that turn a tensor into values honour it:
- reads: `Tensor._np()`, where every CPU kernel gets its numpy array, returns the conjugated copy
  for a conjugate view (uncached; the fast cached path is untouched, a conjugate view never fills
  the cache). `_host_array` does the same for other devices (printing, `tolist`, `item`), and the
  CUDA complex gate (`ember.core.cuda.launch_complex`) resolves conjugate operands before the
  kernels, which read storage directly; `scatter_cpu.flat_storage` (gather's read of the whole
  storage) conjugates too. `numpy()` refuses, as PyTorch's (it would share memory).
- writes: `Op.redispatch` sends an op that writes (`out=`, `mutates`) a conjugate view to
  `write_through_conj`, PyTorch's conjugate fallback: the kernel writes a resolved copy, whose
  conjugate then goes into the shared storage (`y = x.conj(); y.add_(1j)` subtracts 1j from x).
  Only the tensor the flags name as written is handled so: a conjugate view among an `out=` tuple
  (sort's values) or the other tensors an optimizer step `mutates` is not written.
- views: after an op declared `view=True` of a conjugate view, `redispatch` calls `conj_of_view`,
  which gives a complex result of the same storage the bit (`t()`, slicing, `expand` ...). The
  float views read the storage as it is: `.real` of a conjugate view is `.real` of its base.
- negative views: `.imag` of a CPU conjugate view is PyTorch's lazily negated view,
  `_neg_view(imag(conj(x)))` (so autograd records NegViewBackward0), with the negative bit
  (`Tensor._neg`, the same scheme): `_np()` reads negated, `write_through_conj` writes back negated,
  `conj_of_view` gives views of it the bit, `resolve_neg()` clones, `numpy()` and `view(dtype)`
  raise. On CUDA it is computed (its kernels read storage as they are).
`resolve_conj()` is a `clone()` (which reads through `_np()`); `conj_physical()` always computes;
`view_as_real` and `view(dtype)` of a conjugate view raise, as PyTorch's. Aliases made outside the
dispatcher keep the bit (`detach()`, `.data`, autograd's saved outputs, device transfers,
checkpoints: PyTorch's `{"conj": True}` tensor metadata); autograd's CopySlices conjugates the
region of an in-place op on a conjugate view; `ember.jit` does not capture conjugate views (a
graph break: its replay calls kernels and makes views without the dispatcher).
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import composite, declare, node_name
from ember.core.methods import attach, inplace, method
from ember.core.ops import memfmt
from ember.core.ops._util import named_as
from ember.core.tensor import Tensor, describe

__all__ = ["real", "imag", "view_as_real", "view_as_complex", "complex", "polar", "angle", "sgn", "conj",
           "conj_physical", "conj_physical_", "resolve_conj", "resolve_neg", "is_conj", "is_neg", "is_complex",
           "isreal", "view_as_real_copy", "view_as_complex_copy", "resolved", "physical", "_neg_view",
           "write_through_conj", "conj_of_view"]



@named_as("NotImplementedError")
class ComplexNotSupported(NotImplementedError, TypeError):
    """An op that has no complex kernel: NotImplementedError (a RuntimeError) as PyTorch raises,
    TypeError by ember's dtype rule."""


@named_as("RuntimeError")
class ComplexNotSupportedRuntime(RuntimeError, TypeError):
    """The ops for which PyTorch raises a plain RuntimeError on complex input (maximum, argmax)."""


def _not_implemented(kernel: str, dt: dtypes.dtype) -> ComplexNotSupported:
    return ComplexNotSupported(f"\"{kernel}_cpu\" not implemented for '{dtypes.TORCH_NAMES[dt.name]}'")


# unary ops that refuse complex input (in their kernels' complex paths), with PyTorch's message
_UNARY_REFUSED = {
    "sign": "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead.",
    "floor": "floor is not supported for complex inputs", "ceil": "ceil is not supported for complex inputs",
    "trunc": "trunc is not supported for complex inputs",
    "relu": "clamp is not supported for complex types", "signbit": "signbit is not implemented for complex tensors.",
}
_UNARY_KERNEL_NAMES = {"erf": "erf_vml", "erfinv": "erfinv_vml", "frac": "frac", "round": "round_vml"}


def complex_unary(name: str, fn, x: Tensor, out: Tensor | None, layout=None):
    """The CPU kernel of the elementwise unary op `name` on a complex tensor: numpy's complex
    ufunc, `abs` to the real dtype, or the op's complex refusal (`Op.refuse_complex`). `layout`: the strides
    an `out=` it resizes takes (`write_out`'s), as the real kernels give it."""
    from ember.core.ops._util import silenced, wrap, write_out

    from ember.core.dispatch import get_op

    dt = x._dtype
    refusal = get_op(name).complex_refusal(dt)
    if refusal is not None:
        raise refusal
    a = x._np()
    if name == "abs":
        r = np.hypot(a.real, a.imag)  # libm's hypot, as PyTorch's std::abs; numpy's complex abs is off by an ulp
    elif name == "log1p":
        r = silenced(_log1p)(a).astype(dt.np, copy=False)
    elif name in ("isnan", "isinf", "isfinite", "logical_not"):
        r = fn(a)
    else:
        r = silenced(fn)(a, dtype=dt.np)
    if out is None:
        return wrap(r)
    return write_out(out, r, name, None if name == "abs" else layout)  # PyTorch's complex abs resizes it row-major


def _log1p(a: np.ndarray) -> np.ndarray:
    """numpy's complex log1p is log(1 + z), which loses a small z's digits; log|1 + z| = log1p(2x + x^2 + y^2) / 2
    keeps them for |z| < 1/2 (the CUDA path's formula; PyTorch's values)."""
    x, y = a.real, a.imag
    small = np.log1p(x * (x + 2) + y * y) * 0.5 + 1j * np.arctan2(y, x + 1)
    return np.where(np.abs(a) < 0.5, small, np.log1p(a))  # (squares of a large z would overflow)


# binary ops that refuse complex input: PyTorch's message, or the kernel name its message names
_BINARY_REFUSED = {
    name: f"{name} not implemented for complex tensors." for name in ("maximum", "minimum", "fmax", "fmin")
}
_BINARY_KERNEL_NAMES = {"lt": "lt", "le": "le", "gt": "gt", "ge": "ge", "remainder": "remainder", "fmod": "fmod",
                        "atan2": "atan2", "hypot": "hypot", "copysign": "copysign", "xlogy": "xlogy",
                        "floor_divide": "div_floor", "trunc_divide": "div_trunc", "bitwise_and": "bitwise_and",
                        "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor"}
BINARY_REFUSING = frozenset(_BINARY_REFUSED) | frozenset(_BINARY_KERNEL_NAMES)


def refuse_complex(name: str, dt: dtypes.dtype) -> None:
    """Raise PyTorch's error for the binary op `name`, which has no complex kernel."""
    if name in _BINARY_REFUSED:
        raise ComplexNotSupportedRuntime(_BINARY_REFUSED[name])
    raise _not_implemented(_BINARY_KERNEL_NAMES[name], dt)


# --- views -----------------------------------------------------------------------------------
def _float_view(x: Tensor, offset: int, shape: tuple, strides: tuple) -> Tensor:
    return Tensor._make(x._storage, offset, shape, strides, x._dtype.to_real())


_real = declare("real", view=True)


@_real.register("any")
def _real_any(x):
    return _float_view(x, 2 * x._offset, x._shape, tuple([2 * s for s in x._strides]))


_imag = declare("imag", view=True)


@_imag.register("any")
def _imag_any(x):
    return _float_view(x, 2 * x._offset + 1, x._shape, tuple([2 * s for s in x._strides]))


_view_as_real = declare("view_as_real", view=True)


@_view_as_real.register("any")
def _view_as_real_any(x):
    if not x._dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if x._conj:
        raise RuntimeError("view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate "
                           "tensor so you can view it as real, use self.resolve_conj(); however, be warned that the "
                           "resulting tensor will NOT alias the original.")
    return _float_view(x, 2 * x._offset, x._shape + (2,), tuple([2 * s for s in x._strides]) + (1,))


_view_as_complex = declare("view_as_complex", view=True)


@_view_as_complex.register("any")
def _view_as_complex_any(x):
    dt = x._dtype
    if dt is not dtypes.float32 and dt is not dtypes.float64 and dt is not dtypes.float16:
        raise RuntimeError("view_as_complex is only supported for half, float and double tensors, but got a "
                           f"tensor of scalar type: {dtypes.TORCH_NAMES.get(dt.name, dt.name)}")
    if not x._shape:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if x._shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if x._strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in x._strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if x._offset % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return Tensor._make(x._storage, x._offset // 2, x._shape[:-1], tuple([s // 2 for s in x._strides[:-1]]),
                        dt.to_complex())


def _real_prop(self: Tensor) -> Tensor:
    # PyTorch's real is a select of view_as_real: its node is SelectBackward0
    return node_name(_real(self), "RealBackward0", "SelectBackward0") if self._dtype.is_complex else self


def _imag_prop(self: Tensor) -> Tensor:
    if not self._dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    if self._conj:  # PyTorch's negative view of the base's imaginary part (a graph of conj, imag, _neg_view)
        if self._storage.device.type != "cpu":  # CUDA kernels read storage as it is: computed
            from ember.core.ops import elementwise as ew

            return ew.neg(_imag(_conj(self)))
        return _neg_view(_imag(_conj(self)))
    return node_name(_imag(self), "ImagBackward0", "SelectBackward0")


def _set_part(getter):
    def setter(self: Tensor, value) -> None:
        if getter is _imag_prop and self._conj and self._storage.device.type != "cpu":  # (not a negative view)
            from ember.core.ops import elementwise as ew

            _imag(self).copy_(ew.neg(value) if isinstance(value, Tensor) else -value)
            return
        getter(self).copy_(value)
    return setter


def real(input: Tensor) -> Tensor:  # `Tensor.real` is the property below
    """The real part: a float view of a complex tensor (writes go through); a real tensor itself.

    >>> from ember.core import tensor
    >>> real(tensor([1 + 2j, 3 - 4j]))
    tensor([1., 3.])
    """
    return _real_prop(input)


def imag(input: Tensor) -> Tensor:  # `Tensor.imag` is the property below
    """The imaginary part of a complex tensor, as a float view.

    Raises:
        RuntimeError: `input` is not complex (as PyTorch).
    """
    return _imag_prop(input)


attach("real", property(_real_prop, _set_part(_real_prop)))
attach("imag", property(_imag_prop, _set_part(_imag_prop)))


def _cast_to(dt: dtypes.dtype):
    def conv(self: Tensor, memory_format=None) -> Tensor:
        return self.to(dt)
    conv.__doc__ = f"`self.to({dt.name})`."
    return conv


attach("cfloat", _cast_to(dtypes.complex64))
attach("chalf", _cast_to(dtypes.complex32))
attach("cdouble", _cast_to(dtypes.complex128))


@method
def view_as_real(input: Tensor) -> Tensor:
    """A complex tensor of shape `S` as a float view of shape `(*S, 2)` (real, imaginary)."""
    return _view_as_real(input)


@method
def view_as_complex(input: Tensor) -> Tensor:
    """A float32/float64 tensor of shape `(*S, 2)` as a complex view of shape `S`.

    Raises:
        RuntimeError: the last dim is not of size 2 and stride 1, or another stride or the offset is odd.
    """
    return _view_as_complex(input)


# --- construction ----------------------------------------------------------------------------
def _check_parts(re: Tensor, im: Tensor) -> None:
    """PyTorch's refusals of complex()/polar() parts: both Half, Float or Double, and of one dtype."""
    floats = (dtypes.float16, dtypes.float32, dtypes.float64)
    names = dtypes.TORCH_NAMES
    if re._dtype not in floats or im._dtype not in floats:
        raise RuntimeError("Expected both inputs to be Half, Float or Double tensors but got "
                           f"{names.get(re._dtype.name, re._dtype.name)} and "
                           f"{names.get(im._dtype.name, im._dtype.name)}")
    if re._dtype is not im._dtype:
        raise RuntimeError(f"Expected object of scalar type {names[re._dtype.name]} but got scalar type "
                           f"{names[im._dtype.name]} for second argument")


_complex = declare("complex", argnames=("real", "imag"))


@_complex.register("any")
def _complex_any(re, im, *, out=None):
    from ember.core.creation import new_empty
    from ember.core.ops._util import broadcast_shapes

    for t in (re, im):
        if not isinstance(t, Tensor):
            raise TypeError(f"complex(): argument 'real' and 'imag' must be Tensor, not {type(t).__name__}")
    _check_parts(re, im)
    if re._storage.device != im._storage.device:
        raise RuntimeError(f"complex(): expected both inputs on the same device; got {describe(re)} and {describe(im)}")
    shape = broadcast_shapes(re._shape, im._shape)
    dt = re._dtype.to_complex()
    strides = memfmt.elementwise_strides(shape, (re, im))  # laid out as an elementwise result, as PyTorch's
    if strides is None:
        r = new_empty(shape, dt, re._storage.device)
    else:
        base = new_empty((math.prod(shape),), dt, re._storage.device)
        r = Tensor._make(base._storage, 0, shape, strides, dt)
    pair = _view_as_real_any(r)
    pair[..., 0].copy_(re)
    pair[..., 1].copy_(im)
    if out is not None:
        return out.copy_(r)
    return r


def complex(real: Tensor, imag: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A001 - PyTorch's name
    """The complex tensor `real + i imag` (both float32 or both float64; broadcast).

    >>> from ember.core import tensor
    >>> complex(tensor([1.0, 2.0]), tensor([3.0, -4.0]))
    tensor([1.+3.j, 2.-4.j])
    """
    if isinstance(real, Tensor) and real._dtype is dtypes.float16:  # a complex32 result: PyTorch's first-use warning
        dtypes._use_complex32()
    return _complex(real, imag, out=out) if out is not None else _complex(real, imag)


_polar = declare("polar", argnames=("abs", "angle"))


@_polar.register("any")
def _polar_any(abs, angle):  # noqa: A002
    from ember.core.ops import elementwise as ew

    return _complex(ew.mul(abs, ew.cos(angle)), ew.mul(abs, ew.sin(angle)))


@composite("polar")
def polar(abs: Tensor, angle: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """The complex tensor `abs * (cos(angle) + i sin(angle))`; one op, so its gradient is PyTorch's, read from
    the result (0 for `abs` where the result is 0)."""
    from ember.core.ops import elementwise as ew

    if isinstance(abs, Tensor) and abs._dtype is dtypes.float16:  # PyTorch has no complex32 kernel for it
        from ember.core.ops.numeric import DtypeNotImplemented

        raise DtypeNotImplemented("\"polar_cpu\" not implemented for 'Half'")
    if isinstance(abs, Tensor) and isinstance(angle, Tensor):
        _check_parts(abs, angle)
        if out is None:
            return _polar(abs, angle)
    return complex(ew.mul(abs, ew.cos(angle)), ew.mul(abs, ew.sin(angle)), out=out)


# --- elementwise -----------------------------------------------------------------------------
def _write(out: Tensor, r: Tensor, op: str, x: Tensor | None) -> Tensor:
    """`r` copied into `out`, resized as the elementwise kernels resize it: in `x`'s layout (row-major when
    `x` is None), with PyTorch's warning for a non-empty `out` of another shape."""
    from ember.core.ops._util import prepare_out
    from ember.core.ops.elementwise import layout_of

    prepare_out(out, r._shape, r._dtype, r.device, op, None if x is None else layout_of((x,)))
    return out.copy_(r)


_angle = declare("angle", argnames=("input",))


@_angle.register("any")
def _angle_any(x, *, out=None):
    from ember.core.ops import elementwise as ew

    if x._dtype.is_complex:
        im = _imag_any(x)
        r = ew.atan2(ew.neg(im) if x._conj else im, _real_any(x))
        if out is None and not r.is_contiguous():  # PyTorch writes the complex angle into a fresh row-major out
            r = r.contiguous()
    else:  # pi for negative numbers, 0 otherwise, nan kept
        xf = x if x._dtype.is_floating_point else x.to(dtypes.get_default_dtype())
        r = ew.where(ew.lt(xf, 0), math.pi, ew.where(ew.isnan(xf), xf, 0.0))
    # PyTorch's complex angle writes a resized out= row-major, its real angle in the input's layout
    return _write(out, r, "angle", None if x._dtype.is_complex else x) if out is not None else r


@method
def angle(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The argument (phase) of each element in radians, a real tensor; pi for negative reals, else 0.

    >>> from ember.core import tensor
    >>> angle(tensor([1j, -1.0 + 0j]))
    tensor([1.5708, 3.1416])
    """
    return _angle(input, out=out) if out is not None else _angle(input)


_conj_physical = declare("conj_physical", np.conjugate, argnames=("input",))


@_conj_physical.register("any")
def _conj_physical_any(x, *, out=None):
    if not x._dtype.is_complex:
        return _write(out, x, "conj_physical", x) if out is not None else x.clone()
    r = x.clone() if out is None else _write(out, x, "conj_physical", x)
    im = _imag_any(r)
    im.neg_()
    return r


@method
def conj_physical(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The complex conjugate, computed into a new tensor (a copy of a real tensor)."""
    if out is input and not input._dtype.is_complex:  # `x.conj_physical_()` of a real x: nothing to write
        return input
    if out is not None and out._dtype is not input._dtype:
        raise RuntimeError(f"Found dtype {dtypes.TORCH_NAMES[out._dtype.name]} but expected "
                           f"{dtypes.TORCH_NAMES[input._dtype.name]}")
    return _conj_physical(input, out=out) if out is not None else _conj_physical(input)


conj_physical_ = inplace(conj_physical)


def view_as_real_copy(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """`view_as_real`'s result in new memory (or written into `out`)."""
    r = view_as_real(input)
    return r.clone() if out is None else out.copy_(r)


def view_as_complex_copy(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """`view_as_complex`'s result in new memory (or written into `out`)."""
    r = view_as_complex(input)
    return r.clone() if out is None else out.copy_(r)


_conj = declare("conj", view=True, argnames=("input",))


@_conj.register("any")
def _conj_any(x):
    t = Tensor._make(x._storage, x._offset, x._shape, x._strides, x._dtype)
    if not x._conj:  # the conjugate of a conjugate view is a plain view of the storage
        t._conj = True
    if x._neg:
        t._neg = True
    return t


@method
def conj(input: Tensor) -> Tensor:
    """The complex conjugate as a lazy view of the same storage (`is_conj()` True); a real tensor
    itself. See NOTE [ Complex storage and conj ].

    >>> from ember.core import tensor
    >>> x = tensor([1 + 2j])
    >>> y = conj(x)
    >>> y, y.is_conj()
    (tensor([1.-2.j]), True)
    """
    if not input._dtype.is_complex:
        return input
    if not input._dense_like:  # PyTorch's sparse conj computes (a view of its values' storage would lose the layout)
        return input.conj()
    return _conj(input)


@method
def resolve_conj(input: Tensor) -> Tensor:
    """A conjugate view's values in new memory (`is_conj()` False); any other tensor itself."""
    return input.clone() if input._conj else input


@method
def is_conj(input: Tensor) -> bool:
    """Whether `input` is a lazy conjugate view (NOTE [ Complex storage and conj ])."""
    return input._conj


def resolved(t: Tensor) -> Tensor:
    """The values of the conjugate view `t` in a new tensor without the bit, for kernels: nothing is recorded (on
    other devices than the CPU, the ops it runs take a plain alias, which requires no grad)."""
    if t._storage.device.type == "cpu":
        return Tensor._wrap(t._np())
    return _conj_physical_any(physical(t))


def physical(t: Tensor) -> Tensor:
    """A view of `t`'s elements as its storage holds them, without the conjugate or negative bit."""
    return Tensor._make(t._storage, t._offset, t._shape, t._strides, t._dtype)


_neg_view_op = declare("_neg_view", view=True, argnames=("input",))


@_neg_view_op.register("any")
def _neg_view_any(x):
    if x._storage.device.type != "cpu":  # other devices' kernels read storage as it is
        raise NotImplementedError(f"_neg_view: negative views are CPU tensors in ember; got {describe(x)}")
    r = physical(x)
    if x._conj:
        r._conj = True
    if not x._neg:
        r._neg = True
    return r


def _neg_view(input: Tensor) -> Tensor:
    """PyTorch's `torch._neg_view`: a view of `input`'s CPU storage whose negative bit flips (reads and writes
    negated; NOTE [ Complex storage and conj ])."""
    return _neg_view_op(input)


def write_through_conj(kernel, args: tuple, kwargs: dict, written: Tensor):
    """Run `kernel`, which writes the conjugate (or negative) view `written` (`out=` or in place), as PyTorch's
    conjugate and negative fallbacks do: on a resolved copy, whose conjugate (negation) then goes into the shared
    storage."""
    from ember.core.dispatch import get_op

    tmp = resolved(written)
    args = tuple([tmp if a is written else a for a in args])
    if kwargs:
        kwargs = {k: (tmp if v is written else v) for k, v in kwargs.items()}
    result = kernel(*args, **kwargs) if kwargs else kernel(*args)
    phys = physical(written)
    if phys._storage.device.type == "cpu":  # (negative views are CPU views)
        from ember.core.tensor import _conjugated

        v = np.negative(tmp._np()) if written._neg else tmp._np()
        phys._np()[...] = _conjugated(v) if written._conj else v
    else:
        get_op("copy_").redispatch((phys, _conj_physical_any(tmp)), {})
    if result is tmp:
        return written
    if type(result) is tuple:
        return tuple([written if r is tmp else r for r in result])
    return result


_DTYPE_VIEW_OF_CONJ = ("torch.Tensor.view is not supported for conjugate view tensors when converting to a different "
                       "dtype.")


_DTYPE_VIEW_OF_NEG = ("torch.Tensor.view is not supported for tensors with negative bit set when converting to a "
                      "different dtype.")


def conj_of_view(op, x: Tensor, result) -> None:
    """Give the conjugate bit to the complex results of the view op `op` of the conjugate view `x` that view
    its storage, the negative bit to those of a negative view and to `.imag` of a CPU conjugate view
    (NOTE [ Complex storage and conj ])."""
    name = op.name
    if name == "conj" or name == "_neg_view":  # (their kernels set the bits)
        return
    if name == "view_dtype":
        raise RuntimeError(_DTYPE_VIEW_OF_NEG if x._neg else _DTYPE_VIEW_OF_CONJ)
    conj, neg = x._conj, x._neg
    if name == "imag" and conj:  # the storage holds the negated imaginary part
        if not neg and result._storage.device.type == "cpu":
            result._neg = True
            result._npc = None
        return
    for r in (result if isinstance(result, tuple | list) else (result,)):
        if isinstance(r, Tensor) and r._storage is x._storage and r is not x:
            if conj and r._dtype.is_complex:
                r._conj = True
                r._npc = None
            if neg:
                r._neg = True
                r._npc = None


@method
def resolve_neg(input: Tensor) -> Tensor:
    """A negative view's values in new memory (`is_neg()` False); any other tensor itself."""
    return input.clone() if input._neg else input


@method
def is_neg(input: Tensor) -> bool:
    """Whether `input` is a lazily negated view (`.imag` of a conjugate view: NOTE [ Complex storage and conj ]).

    >>> from ember.core import tensor
    >>> tensor([1 + 2j]).conj().imag.is_neg()
    True
    """
    return input._neg


def is_complex(input: Tensor) -> bool:
    """Whether `input`'s dtype is complex64 or complex128."""
    return input._dtype.is_complex


@method
def sgn(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """`z / |z|` for complex elements (0 at 0); `sign` for real tensors."""
    from ember.core.ops import elementwise as ew

    if not input._dtype.is_complex:  # PyTorch's own node all the same: SgnBackward0
        return ew.sign(input, out=out) if out is not None else node_name(ew.sign(input), "SignBackward0",
                                                                          "SgnBackward0")
    if input._dtype is dtypes.complex32:  # PyTorch divides in float and rounds once
        r = sgn(input.to(dtypes.complex64)).to(dtypes.complex32)
        return _write(out, r, "sgn", input) if out is not None else r
    # PyTorch's z / complex(|z|, 0): ((x + y*0) + (y - x*0)i) / |z|, which keeps the signs of zero parts
    # (sgn(-2j) is -0-1j; a complex product by 1/|z| gave +0); 0 at 0
    a = ew.abs(input)
    zero = ew.eq(a, 0)
    den = ew.where(zero, 1.0, a)
    x, y = real(input), imag(input)
    re = ew.div(ew.add(x, ew.mul(y, 0.0)), den)
    im = ew.div(ew.sub(y, ew.mul(x, 0.0)), den)
    r = node_name(complex(ew.where(zero, 0.0, re), ew.where(zero, 0.0, im)), "ComplexBackward0", "SgnBackward0")
    return _write(out, r, "sgn", input) if out is not None else r


inplace(sgn)


@method
def isreal(input: Tensor) -> Tensor:
    """True where the element has no imaginary part (everywhere for a real tensor)."""
    from ember.core.ops import elementwise as ew

    if not input._dtype.is_complex:
        from ember.core.creation import ones

        return ones(input._shape, dtype=dtypes.bool, device=input.device)
    return ew.eq(_imag_any(input), 0)



# --- ops that refuse complex input, on every device, before their kernels -----------------------
def _kernel(name: str) -> tuple[type, str]:
    """PyTorch's refusal naming the CPU kernel with no complex instance (NotImplementedError)."""
    return ComplexNotSupported, f"\"{name}\" not implemented for '{{}}'"


# op name -> (exception type, PyTorch's message; `{}` is the dtype's PyTorch name). PyTorch orders no
# complex numbers (numpy orders them lexicographically), and has no complex kernel for the others.
_ORDERING_ERRORS = {
    "amax": _kernel("max_values_cpu"),
    "amin": _kernel("min_values_cpu"),
    "max_dim": (ComplexNotSupportedRuntime, "max(): does not support complex input"),
    "min_dim": (ComplexNotSupportedRuntime, "min(): does not support complex input"),
    "argmax": (ComplexNotSupportedRuntime, "argmax(): does not support complex input"),
    "argmin": (ComplexNotSupportedRuntime, "argmin(): does not support complex input"),
    "sort": (ComplexNotSupportedRuntime, " Sort does not support complex dtypes on CPU"),  # PyTorch's leading space
    "topk": (ComplexNotSupportedRuntime, " topk does not support complex dtypes on CPU"),
    "kthvalue": _kernel("kthvalue_cpu"),
    "median": _kernel("median_cpu"),
    "median_dim": _kernel("median_out"),
    "nanmedian": _kernel("median_cpu"),
    "nanmedian_dim": _kernel("median_out"),
    "mode": _kernel("mode_cpu"),
    "cummax": _kernel("cummax_cpu"),
    "cummin": _kernel("cummin_cpu"),
    "searchsorted": _kernel("searchsorted_out_cpu"),
    "unique": _kernel("unique"),
    "unique_consecutive": _kernel("unique"),
    "isin": (ComplexNotSupportedRuntime, "Unsupported input type encountered for isin(): {}"),
    "clamp": (ComplexNotSupported, "clamp is not supported for complex types"),
    "nansum": (ComplexNotSupportedRuntime, "nansum on CPU does not support complex inputs"),
    "nanmean": (ComplexNotSupportedRuntime, "nansum on CPU does not support complex inputs"),
}


def _install_ordering_checks() -> None:
    """Flag each op of the table as refusing complex operands (`Op.refuse_complex`): its meta step
    raises PyTorch's error on every device, before the op's own checks."""
    from ember.core.dispatch import get_op

    for name, (exc, message) in _ORDERING_ERRORS.items():
        get_op(name).refuse_complex(exc, message)
    # the elementwise rows refuse in their kernels' complex paths (CPU: complex_unary, refuse_complex; CUDA:
    # the complex gate), so that the real path costs no check
    for name, message in _UNARY_REFUSED.items():
        get_op(name).refuse_complex(ComplexNotSupported, message, in_meta=False)
    for name, kernel in _UNARY_KERNEL_NAMES.items():
        get_op(name).refuse_complex(*_kernel(kernel + "_cpu"), in_meta=False)
    for name, message in _BINARY_REFUSED.items():
        get_op(name).refuse_complex(ComplexNotSupportedRuntime, message, in_meta=False)
    for name, kernel in _BINARY_KERNEL_NAMES.items():
        get_op(name).refuse_complex(*_kernel(kernel + "_cpu"), in_meta=False)


# --- complex arithmetic on float views: any device whose float kernels exist ----------------------
# ember's CUDA kernels compute in float and integer types only; these composites run complex ops
# there as float ops on the (real, imaginary) views (NOTE [ Complex on CUDA ] in cuda/launch_complex).
def _parts(v, dt: dtypes.dtype):
    """(real, imaginary) of an operand: float views of a complex tensor; a real tensor (cast to the real
    dtype of the result `dt`) and a tensor of zeros (not the number 0: the kernels take a number only as
    the second operand, so `0.0 * b` would fail); the two floats of a number."""
    if isinstance(v, Tensor):
        if v._dtype.is_complex:
            return _real_any(v), _imag_any(v)
        from ember.core.creation import full

        re = v if v._dtype is dt.to_real() else v.to(dt.to_real())
        return re, full(re._shape, 0.0, dtype=re._dtype, device=re.device)
    c = builtins.complex(v)
    return c.real, c.imag


def _joined(re, im, out):
    """The complex tensor of two parts, one of which may be a number (a real operand's 0)."""
    from ember.core.creation import full

    if not isinstance(re, Tensor):
        re = full(im._shape, re, dtype=im._dtype, device=im.device)
    if not isinstance(im, Tensor):
        im = full(re._shape, im, dtype=re._dtype, device=re.device)
    return _complex_any(re, im, out=out)


def _binary_via_real(name: str, a, b, out=None):
    from ember.core.ops import elementwise as ew

    dt = dtypes.result_type(a, b)
    (ar, ai), (br, bi) = _parts(a, dt), _parts(b, dt)
    if name in ("add", "sub"):
        f = ew.add if name == "add" else ew.sub
        return _joined(f(ar, br), f(ai, bi), out)
    if name == "mul":
        return _joined(ew.sub(ew.mul(ar, br), ew.mul(ai, bi)), ew.add(ew.mul(ar, bi), ew.mul(ai, br)), out)
    if name == "div":  # numbers become 0-dim tensors: the kernels take a number only as the second operand
        from ember.core.creation import full

        like = next(v for v in (ar, ai, br, bi) if isinstance(v, Tensor))
        ar, ai, br, bi = (v if isinstance(v, Tensor) else full((), v, dtype=like._dtype, device=like.device)
                          for v in (ar, ai, br, bi))
        den = ew.add(ew.mul(br, br), ew.mul(bi, bi))
        return _joined(ew.div(ew.add(ew.mul(ar, br), ew.mul(ai, bi)), den),
                       ew.div(ew.sub(ew.mul(ai, br), ew.mul(ar, bi)), den), out)
    same = ew.logical_and(ew.eq(ar, br), ew.eq(ai, bi))  # eq, ne
    r = same if name == "eq" else ew.logical_not(same)
    return out.copy_(r) if out is not None else r


def _unary_via_real(name: str, x, out=None):
    from ember.core.ops import elementwise as ew

    re, im = _real_any(x), _imag_any(x)
    if name == "neg":
        return _joined(ew.neg(re), ew.neg(im), out)
    if name == "square":
        return _binary_via_real("mul", x, x, out)
    if name == "abs":
        r = ew.hypot(re, im)
    elif name == "exp":
        e = ew.exp(re)
        return _joined(ew.mul(e, ew.cos(im)), ew.mul(e, ew.sin(im)), out)
    elif name == "log":
        return _joined(ew.log(ew.hypot(re, im)), ew.atan2(im, re), out)
    elif name == "log1p":  # log|1 + z| = log1p(2x + x^2 + y^2) / 2 keeps the digits of a small z
        mod = ew.add(ew.mul(re, ew.add(re, 2.0)), ew.mul(im, im))
        return _joined(ew.mul(ew.log1p(mod), 0.5), ew.atan2(im, ew.add(re, 1.0)), out)
    elif name == "sqrt":
        r, half = ew.sqrt(ew.hypot(re, im)), ew.mul(ew.atan2(im, re), 0.5)
        return _joined(ew.mul(r, ew.cos(half)), ew.mul(r, ew.sin(half)), out)
    elif name == "isnan":
        r = ew.logical_or(ew.isnan(re), ew.isnan(im))
    elif name == "isinf":
        r = ew.logical_or(ew.isinf(re), ew.isinf(im))
    else:  # isfinite
        r = ew.logical_and(ew.isfinite(re), ew.isfinite(im))
    return out.copy_(r) if out is not None else r


def _reduce_via_real(name: str, x, dims, keepdim=False, dtype=None, *, out=None):
    from ember.core.dispatch import get_op

    if dtype is not None and dtypes.as_dtype(dtype) is not x._dtype:
        x = x.to(dtypes.as_dtype(dtype))
    op = get_op(name)
    return _joined(op(_real_any(x), dims, keepdim), op(_imag_any(x), dims, keepdim), out)


def _structural_via_real(name: str, x, *args, out=None, **kwargs):
    """An op that moves or masks elements (tril, diag_embed, gather ...), on each part of the complex x."""
    from ember.core.dispatch import get_op

    op = get_op(name)
    return _joined(op(_real_any(x), *args, **kwargs), op(_imag_any(x), *args, **kwargs), out)


def _where_via_real(condition, a, b, *, out=None):
    from ember.core.ops import elementwise as ew

    dt = dtypes.result_type(a, b)
    (ar, ai), (br, bi) = _parts(a, dt), _parts(b, dt)
    return _joined(ew.where(condition, ar, br), ew.where(condition, ai, bi), out)


def _mm_via_real(name: str, a, b, *, out=None):
    from ember.core.dispatch import get_op
    from ember.core.ops import elementwise as ew

    dt = dtypes.result_type(a, b)
    (ar, ai), (br, bi) = _parts(a, dt), _parts(b, dt)
    op = get_op(name)

    def prod(x, y):
        return None if isinstance(x, float) or isinstance(y, float) else op(x, y)

    rr, ii, ri, ir = prod(ar, br), prod(ai, bi), prod(ar, bi), prod(ai, br)
    re = rr if ii is None else ew.sub(rr, ii)
    im = ri if ir is None else (ir if ri is None else ew.add(ri, ir))
    return _joined(re, im if im is not None else 0.0, out)


def _einsum_via_real(equation: str, *operands, out=None):
    """einsum of complex operands as a sum of real einsums: each complex operand contributes its real
    or imaginary part, and a term with k imaginary parts carries i^k (2^m einsums for m complex operands)."""
    from ember.core.dispatch import get_op
    from ember.core.ops import elementwise as ew

    dt = dtypes.result_type(*operands)
    parts = [_parts(o, dt) for o in operands]
    op = get_op("einsum")
    acc = [None, None]  # real, imaginary

    def add(which: int, term, sign: int) -> None:
        term = term if sign > 0 else ew.neg(term)
        acc[which] = term if acc[which] is None else ew.add(acc[which], term)

    def walk(i: int, chosen: list, k: int) -> None:
        if i == len(parts):
            add(k % 2, op(equation, *chosen), 1 if k % 4 < 2 else -1)
            return
        re, im = parts[i]
        walk(i + 1, chosen + [re], k)
        if isinstance(im, Tensor):
            walk(i + 1, chosen + [im], k + 1)

    walk(0, [], 0)
    return _joined(acc[0], acc[1] if acc[1] is not None else 0.0, out)


# op name -> f(*args, **kwargs) computing it on float views
VIA_REAL = {
    **{n: (lambda a, b, *, out=None, _n=n: _binary_via_real(_n, a, b, out)) for n in ("add", "sub", "mul", "div",
                                                                                      "eq", "ne")},
    **{n: (lambda x, *, out=None, _n=n: _unary_via_real(_n, x, out)) for n in ("neg", "square", "abs", "exp", "log",
                                                                              "log1p", "sqrt", "isnan", "isinf",
                                                                              "isfinite")},
    **{n: (lambda x, *args, out=None, _n=n, **kwargs: _structural_via_real(_n, x, *args, out=out, **kwargs))
       for n in ("tril", "triu", "diag_embed", "gather")},
    **{n: (lambda x, dims, keepdim=False, dtype=None, *, out=None, _n=n: _reduce_via_real(_n, x, dims, keepdim,
                                                                                            dtype, out=out))
       for n in ("sum", "mean")},
    **{n: (lambda a, b, *, out=None, _n=n: _mm_via_real(_n, a, b, out=out)) for n in ("mm", "bmm", "dot")},
    "where": _where_via_real,
    "einsum": _einsum_via_real,
}
