"""dtypes and PyTorch's type-promotion rules."""

from __future__ import annotations

import importlib

import numpy as np

__all__ = [
    "dtype", "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
    "bfloat16", "half", "float", "double", "short", "int", "long", "result_type", "promote_types",
    "get_default_dtype", "set_default_dtype", "can_cast", "as_dtype", "from_numpy_dtype",
    "complex64", "complex128", "cfloat", "cdouble", "get_default_complex_dtype", "complex32", "chalf",
]
__all__ += ["uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
            "float8_e8m0fnu"]

_builtin_bool, _builtin_int, _builtin_float = bool, int, float

# NOTE [ The namespace reprs name ]
# dtypes, `Size`, layouts and memory formats print under this prefix (`ember.float32`). ember.torch's
# runner (`install()`, under which a program's `import torch` is ember) sets "torch", so an unmodified
# PyTorch program prints, and compares, `torch.float32` and `torch.Size([2])` as under PyTorch.
_repr_namespace = "ember"


def set_repr_namespace(name: str) -> str:
    """Make dtypes, `Size`, layouts and memory formats print as `{name}.float32`; returns the previous name
    (NOTE [ The namespace reprs name ])."""
    global _repr_namespace
    previous, _repr_namespace = _repr_namespace, name
    return previous


def no_attribute(obj, name: str) -> AttributeError:
    """Python's error for a missing attribute, naming the class as PyTorch's C types print (`'torch.dtype' object
    has no attribute 'x'`) under the namespace reprs name."""
    return AttributeError(f"'{_repr_namespace}.{type(obj).__name__}' object has no attribute '{name}'")

# promotion categories: bool < integer < floating
_BOOL, _INT, _FLOAT = 0, 1, 2
_COMPLEX = 3  # above floating: complex64 ranks with float32, complex128 with float64


class dtype:
    """An element type of tensors; `ember.core.float32` and friends are its only instances."""

    __slots__ = ("name", "np", "itemsize", "is_floating_point", "is_signed", "_category", "_rank",
                 "is_complex")  # a plain attribute, not a property: autograd's hot paths read it

    def __init__(self, name: str, np_dtype, category: int, rank: int) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        self.is_floating_point = category == _FLOAT
        self.is_signed = name not in ("bool", "uint8")
        self._category = category
        self._rank = rank
        self.is_complex = category == _COMPLEX

    def to_real(self) -> dtype:
        """The real dtype of a complex one (complex64 -> float32); any other dtype itself."""
        return _TO_REAL.get(self.name, self)

    def to_complex(self) -> dtype:
        """The complex dtype of a floating one (float64 -> complex128, float32 and below -> complex64)."""
        if self._category == _COMPLEX:
            return self
        if self._category != _FLOAT or self in FLOAT8:
            raise RuntimeError(f"Unknown Complex ScalarType for {TORCH_NAMES.get(self.name, self.name)}")
        if self is float16:
            return complex32
        return complex128 if self._rank >= 3 else complex64

    @property
    def abbr(self) -> str:
        """PyTorch's short name: kind and bits (`f32`, `bf16`, `i64`, `u8`, `b8`, `c64`, `f8e4m3fn`)."""
        n = self.name
        if n == "bool":
            return "b8"
        if n == "bfloat16":
            return "bf16"
        if n.startswith("float8_"):
            return "f8" + n[len("float8_"):]
        kind = next(k for k in ("uint", "int", "float", "complex") if n.startswith(k))
        return {"uint": "u", "int": "i", "float": "f", "complex": "c"}[kind] + n[len(kind):]

    def __repr__(self) -> str:
        return f"{_repr_namespace}.{self.name}"

    def __reduce__(self):
        return (as_dtype, (self.name,))

    def __getattr__(self, name: str):
        raise no_attribute(self, name)


class _LibraryDtype(dtype):
    """A dtype whose numpy type lives in a library imported on first use: `ml_dtypes` (bfloat16)
    takes about a second to import, which `import ember.core` must not pay."""

    __slots__ = ("_np", "_where")

    def __init__(self, name: str, where: tuple[str, str], itemsize: int, category: int, rank: int) -> None:
        self.name, self._where, self._np = name, where, None
        self.itemsize = itemsize
        self.is_floating_point = category == _FLOAT
        self.is_signed = True
        self._category, self._rank = category, rank
        self.is_complex = False

    @property
    def np(self) -> np.dtype:
        if self._np is None:
            module, attr = self._where
            self._np = np.dtype(getattr(importlib.import_module(module), attr))
            _BY_NP[self._np] = self
        return self._np


bool = dtype("bool", np.bool_, _BOOL, 0)  # noqa: A001 - PyTorch's public name
uint8 = dtype("uint8", np.uint8, _INT, 1)
int8 = dtype("int8", np.int8, _INT, 1)
int16 = dtype("int16", np.int16, _INT, 2)
int32 = dtype("int32", np.int32, _INT, 3)
int64 = dtype("int64", np.int64, _INT, 4)
float16 = dtype("float16", np.float16, _FLOAT, 1)
float32 = dtype("float32", np.float32, _FLOAT, 2)
float64 = dtype("float64", np.float64, _FLOAT, 3)
# bfloat16 (8 exponent bits, 7 mantissa bits) is numpy's through ml_dtypes; its rank ties with
# float16's, and `promote_types` sends the pair to float32 as PyTorch does
bfloat16 = _LibraryDtype("bfloat16", ("ml_dtypes", "bfloat16"), 2, _FLOAT, 1)
# NOTE [ Restricted dtypes ]: numpy's uint16/32/64 and ml_dtypes' float8 formats, which PyTorch 2.13 stores,
# casts and views but computes with in a few ops only, and never promotes with another dtype (a float
# and an unsigned type give the float). The first use of one installs `ember.core.ops.restricted_dtypes`'s
# dispatch hook, which refuses the other ops with PyTorch's NotImplementedError; until then it costs nothing.
uint16 = dtype("uint16", np.uint16, _INT, 5)
uint32 = dtype("uint32", np.uint32, _INT, 6)
uint64 = dtype("uint64", np.uint64, _INT, 7)
uint16.is_signed = uint32.is_signed = uint64.is_signed = False


class _Float8Dtype(_LibraryDtype):
    """An ml_dtypes float8 format; making its numpy type is its first use (see NOTE [ Restricted dtypes ])."""

    __slots__ = ()

    @property
    def np(self) -> np.dtype:
        if self._np is None:
            _restricted(self)
        return _LibraryDtype.np.fget(self)


float8_e4m3fn = _Float8Dtype("float8_e4m3fn", ("ml_dtypes", "float8_e4m3fn"), 1, _FLOAT, 0)
float8_e5m2 = _Float8Dtype("float8_e5m2", ("ml_dtypes", "float8_e5m2"), 1, _FLOAT, 0)
float8_e4m3fnuz = _Float8Dtype("float8_e4m3fnuz", ("ml_dtypes", "float8_e4m3fnuz"), 1, _FLOAT, 0)
float8_e5m2fnuz = _Float8Dtype("float8_e5m2fnuz", ("ml_dtypes", "float8_e5m2fnuz"), 1, _FLOAT, 0)
float8_e8m0fnu = _Float8Dtype("float8_e8m0fnu", ("ml_dtypes", "float8_e8m0fnu"), 1, _FLOAT, 0)
float8_e8m0fnu.is_signed = False
UNSIGNED_WIDE = (uint16, uint32, uint64)
FLOAT8 = (float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu)
RESTRICTED = frozenset(UNSIGNED_WIDE + FLOAT8)
# PyTorch's ScalarType names, which its error messages print ("not implemented for 'UInt16'")
TORCH_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
               "float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
               "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64", "float8_e4m3fn": "Float8_e4m3fn",
               "float8_e5m2": "Float8_e5m2", "float8_e4m3fnuz": "Float8_e4m3fnuz",
               "float8_e5m2fnuz": "Float8_e5m2fnuz", "float8_e8m0fnu": "Float8_e8m0fnu",
               "complex64": "ComplexFloat", "complex128": "ComplexDouble", "complex32": "ComplexHalf"}
_guard_installed = False


def _restricted(d: dtype) -> dtype:
    """`d`, after installing the hook that limits the ops of restricted dtypes (once)."""
    global _guard_installed
    if not _guard_installed:
        _guard_installed = True
        importlib.import_module("ember.core.ops.restricted_dtypes").install()
    return d


_shell_installed = False


def _shell(d: dtype) -> dtype:
    """`d`, after installing the hook that refuses the ops PyTorch has no kernel for (NOTE [ Shell dtypes ])."""
    global _shell_installed
    if not _shell_installed:
        _shell_installed = True
        importlib.import_module("ember.core.ops.shell_dtypes").install()
    return d


def _promote_restricted(a: dtype, b: dtype) -> dtype:
    """PyTorch's rule for a pair with a restricted dtype: an unsigned one gives way to a float, nothing else."""
    for u, o in ((a, b), (b, a)):
        if u in UNSIGNED_WIDE and o not in RESTRICTED and o._category == _FLOAT:
            return o
    if a in FLOAT8 or b in FLOAT8:
        raise RuntimeError(f"Promotion for Float8 Types is not supported, attempted to promote "
                           f"{TORCH_NAMES[a.name]} and {TORCH_NAMES[b.name]}")
    raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
                       f"{TORCH_NAMES[a.name]} and {TORCH_NAMES[b.name]}")


# NOTE [ Shell dtypes ]
# PyTorch 2.13's sub-byte and bits types (int1..int7, uint1..uint7, bits*, float4_e2m1fn_x2) and its quantized
# types are dtypes with no arithmetic: a tensor of one holds raw bytes (one per element; bits16 two), which
# views, reshapes, `empty`, `cat` and (for bits and float4) copies move, and nearly every other op refuses with
# PyTorch's NotImplementedError (`ember.core.ops.shell_dtypes`). ember stores them as uint8/uint16 arrays
# that `_BY_NP` does not map back, so a kernel result never silently becomes one.
_SHELL = -1


class _ShellDtype(dtype):
    """A dtype PyTorch declares but computes nothing with (NOTE [ Shell dtypes ]); `kind` is "int", "uint",
    "bits", "float4" or "quant"."""

    __slots__ = ("kind",)

    def __init__(self, name: str, kind: str, itemsize: _builtin_int = 1) -> None:
        self.name, self.kind = name, kind
        self.np = np.dtype(np.uint16 if itemsize == 2 else np.uint8)
        self.itemsize = itemsize
        self.is_floating_point = kind == "float4"
        self.is_complex = False
        self._category, self._rank = _SHELL, 0

    @property
    def is_signed(self) -> _builtin_bool:
        if self.kind == "bits":
            raise RuntimeError("Bits types are undefined")
        if self.kind == "quant":
            raise RuntimeError("isSignedType not supported for quantized types")
        return self.kind != "uint"

    def to_complex(self) -> dtype:
        raise RuntimeError(f"Unknown Complex ScalarType for {TORCH_NAMES[self.name]}")


_shell_table = [(f"int{n}", "int", 1, f"Int{n}") for n in range(1, 8)]
_shell_table += [(f"uint{n}", "uint", 1, f"UInt{n}") for n in range(1, 8)]
_shell_table += [(n, "bits", 2 if n == "bits16" else 1, n.capitalize())
                 for n in ("bits1x8", "bits2x4", "bits4x2", "bits8", "bits16")]
_shell_table += [("float4_e2m1fn_x2", "float4", 1, "Float4_e2m1fn_x2")]
_shell_table += [("qint8", "quant", 1, "QInt8"), ("quint8", "quant", 1, "QUInt8"), ("qint32", "quant", 4, "QInt32"),
                 ("quint4x2", "quant", 1, "QUInt4x2"), ("quint2x4", "quant", 1, "QUInt2x4")]
SHELL = tuple(_ShellDtype(name, kind, size) for name, kind, size, _ in _shell_table)
TORCH_NAMES.update({name: torch_name for name, _, _, torch_name in _shell_table})
(int1, int2, int3, int4, int5, int6, int7, uint1, uint2, uint3, uint4, uint5, uint6, uint7, bits1x8, bits2x4, bits4x2,
 bits8, bits16, float4_e2m1fn_x2, qint8, quint8, qint32, quint4x2, quint2x4) = SHELL
bit = uint1
__all__ += [d.name for d in SHELL] + ["bit"]


def _promote_shell(a: dtype, b: dtype) -> dtype:
    """PyTorch's rule for a distinct pair with a shell dtype (NOTE [ Shell dtypes ]): bits and quantized types
    promote with nothing, an unsigned one gives way to a float, and the rest fail PyTorch's internal assert."""
    kinds = (getattr(a, "kind", None), getattr(b, "kind", None))
    if "quant" in kinds:
        raise RuntimeError("promoteTypes with quantized numbers is not handled yet; figure out what the correct "
                           f"rules should be, offending types: {TORCH_NAMES[a.name]} {TORCH_NAMES[b.name]}")
    if "bits" in kinds:
        raise RuntimeError(f"Promotion from {TORCH_NAMES[a.name]} and {TORCH_NAMES[b.name]} is unsupported.")
    if a in FLOAT8 or b in FLOAT8:
        return _promote_restricted(a, b)
    if "uint" in kinds or a in UNSIGNED_WIDE or b in UNSIGNED_WIDE:
        other = b if kinds[0] == "uint" or a in UNSIGNED_WIDE else a
        if other.is_floating_point:
            return other
        raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
                           f"{TORCH_NAMES[a.name]} and {TORCH_NAMES[b.name]}")
    side, line = ("a", 103) if a._category == _SHELL else ("b", 105)
    raise RuntimeError(f'ix_{side} != -1 INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/c10/core/ScalarType.cpp":'
                       f"{line}, please report a bug to PyTorch. ")


half, float, double = float16, float32, float64  # noqa: A001
short, int, long = int16, int32, int64  # noqa: A001
# complex: numpy's complex64/complex128 (interleaved real, imaginary)
complex64 = dtype("complex64", np.complex64, _COMPLEX, 2)
complex128 = dtype("complex128", np.complex128, _COMPLEX, 3)
cfloat, cdouble = complex64, complex128


class _Complex32Dtype(dtype):
    """complex32 (ComplexHalf): numpy has no such type, so an element is stored as a numpy record of two
    float16s, real then imaginary (PyTorch's layout). numpy computes nothing on records: the first use of
    the dtype installs `ember.core.ops.complex_half`'s hook, which runs the few ops PyTorch 2.13 has for
    it through complex64 and refuses the rest as PyTorch does (docs/complex.md)."""

    __slots__ = ("_np",)

    def __init__(self) -> None:
        self.name, self._np, self.itemsize = "complex32", None, 4
        self.is_floating_point, self.is_signed, self.is_complex = False, True, True
        self._category, self._rank = _COMPLEX, 1

    @property
    def np(self) -> np.dtype:
        if self._np is None:
            self._np = np.dtype([("real", "<f2"), ("imag", "<f2")])
            _BY_NP[self._np] = self
        if not _c32_installed:
            _use_complex32()
        return self._np


complex32 = chalf = _Complex32Dtype()
_c32_installed = False


_c32_warned = False


def _use_complex32() -> dtype:
    """complex32, after installing the hook that computes and refuses its ops (once), with PyTorch's
    warning at the first use in the process."""
    global _c32_installed, _c32_warned
    if not _c32_installed:
        _c32_installed = True
        importlib.import_module("ember.core.ops.complex_half").install()
    if not _c32_warned:
        _c32_warned = True
        from ember.core.ops._util import internally, warn_at_caller

        warn_at_caller(internally("ComplexHalf support is experimental and many operators don't support it yet.",
                                  "aten/src/ATen/EmptyTensor.cpp:54"))
    return complex32
_TO_REAL = {"complex64": float32, "complex128": float64, "complex32": float16}

ALL = (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)
ALL += (complex64, complex128, complex32)
_BY_NAME = {d.name: d for d in ALL} | {
    "half": float16, "float": float32, "double": float64, "short": int16, "int": int32, "long": int64,
}
_BY_NAME |= {"cfloat": complex64, "cdouble": complex128, "chalf": complex32}
_BY_NP = {d.np: d for d in ALL if type(d) is dtype}  # a library dtype or complex32 joins when its numpy type is made
_BY_NAME.update({d.name: d for d in RESTRICTED})
_BY_NAME.update({d.name: d for d in SHELL})  # not in _BY_NP: wrapping their arrays goes by from_numpy_dtype


def from_numpy_dtype(npdt) -> dtype | None:
    """The ember dtype of a numpy dtype, or None; a library dtype (bfloat16) is looked up even if
    ember has not needed its numpy type yet (the array's creator imported the library)."""
    found = _BY_NP.get(npdt)
    if found is None:
        lib = _BY_NAME.get(getattr(npdt, "name", None))
        if isinstance(lib, _LibraryDtype) and lib.np == npdt:
            found = lib
        elif lib in UNSIGNED_WIDE and lib.np == npdt:
            found = _restricted(lib)
    return found

_default_float = float32


def get_default_dtype() -> dtype:
    """The floating dtype that Python floats and integer division produce (float32 unless set)."""
    return _default_float


def get_default_complex_dtype() -> dtype:
    """The complex dtype Python complex numbers produce: the complex of the default float dtype."""
    return _default_float.to_complex()


def set_default_dtype(d: dtype) -> None:
    """Set the default floating dtype; only float16, float32 and float64 are allowed."""
    global _default_float
    if not isinstance(d, dtype):  # PyTorch takes no names or Python types here
        raise TypeError("invalid dtype object: only floating-point types are supported as the default type")
    d = as_dtype(d)
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default_float = d


def as_dtype(d) -> dtype:
    """Turn an ember dtype, a numpy dtype, a Python type or a name into an ember dtype."""
    if isinstance(d, dtype):
        if d is complex32 and not _c32_installed:
            return _use_complex32()
        if d._category == _SHELL:
            return _shell(d)
        return _restricted(d) if d in RESTRICTED else d
    if d is _builtin_float:  # PyTorch's parser maps Python's float to double whatever the default dtype
        return float64
    if d is _builtin_int:
        return int64
    if d is _builtin_bool:
        return bool
    if d is complex:
        return complex128
    if isinstance(d, str) and d in _BY_NAME:
        found = _BY_NAME[d]
        if found is complex32:
            return _use_complex32()
        if found._category == _SHELL:
            return _shell(found)
        return _restricted(found) if found in RESTRICTED else found
    try:
        found = from_numpy_dtype(np.dtype(d))
    except TypeError:
        found = None
    if found is None:
        raise TypeError(f"unsupported dtype: {d!r}; ember supports {', '.join(x.name for x in ALL)}")
    return found


def promote_types(a: dtype, b: dtype) -> dtype:
    """The smallest dtype both `a` and `b` convert to without losing range (PyTorch's table)."""
    for i, d in enumerate((a, b), 1):
        if not isinstance(d, dtype):
            raise TypeError(f"promote_types(): argument 'type{i}' (position {i}) must be torch.dtype, not "
                            f"{d.__class__.__name__}")
    if a is b:
        return a
    if a._category == _SHELL or b._category == _SHELL:
        return _promote_shell(a, b)
    if a in RESTRICTED or b in RESTRICTED:
        return _promote_restricted(a, b)
    if a._category != b._category:
        hi, lo = (a, b) if a._category > b._category else (b, a)
        if hi._category == _COMPLEX and lo._category == _FLOAT and (
                lo._rank > hi._rank or (lo is bfloat16 and hi is complex32)):
            return lo.to_complex()  # float64 with complex64, float32 with complex32: keep the float's precision
        return hi
    if a._rank == b._rank and a._category == _FLOAT:
        return float32  # float16 with bfloat16: neither holds the other
    if a._category == _INT:
        if uint8 in (a, b):
            other = b if a is uint8 else a
            return int16 if other is int8 else other
    return a if a._rank >= b._rank else b


def _scalar_category(x) -> int:
    """A number's category as PyTorch's argument parser reads it: np.bool_ and np.complex64, which are
    neither Python bools nor complexes, are parsed as floats (np.complex128 subclasses complex)."""
    if isinstance(x, complex):
        return _COMPLEX
    if isinstance(x, _builtin_bool):
        return _BOOL
    if isinstance(x, _builtin_int | np.integer):
        return _INT
    return _FLOAT


def result_type(*operands) -> dtype:
    """The dtype of an op over `operands` (tensors and Python scalars), as PyTorch computes it.

    Tensors with dims win over 0-dim tensors, which win over Python scalars, unless a lower
    priority operand is of a higher category (bool < integer < floating).
    """
    if len(operands) == 2:
        a, b = operands
        da, db = getattr(a, "_dtype", None), getattr(b, "_dtype", None)
        if da is not None and da is db and a._shape and b._shape:
            return da
    if any(getattr(getattr(x, "dtype", x), "_category", None) == _SHELL for x in operands):
        return _shell_result_type(operands)
    dims = zero = None
    scalar_cat = -1
    for x in operands:
        d = getattr(x, "dtype", None)
        if isinstance(d, dtype) and hasattr(x, "_shape"):
            if x._shape:
                dims = d if dims is None else promote_types(dims, d)
            else:
                zero = d if zero is None else promote_types(zero, d)
        elif isinstance(x, dtype):
            dims = x if dims is None else promote_types(dims, x)
        else:
            scalar_cat = max(scalar_cat, _scalar_category(x))
    out = dims
    if zero is not None:
        out = zero if out is None or zero._category > out._category else out
        if zero._category == _COMPLEX and dims is not None and dims._category == _FLOAT:
            out = dims.to_complex()  # PyTorch keeps the dimensioned float's precision
    if scalar_cat >= 0:
        if out is None or scalar_cat > out._category:
            if scalar_cat == _COMPLEX and out is not None and out._category == _FLOAT:
                out = out.to_complex()
            else:
                out = (bool, int64, _default_float, _default_float.to_complex())[scalar_cat]
    if out is None:
        raise TypeError("result_type: no operands")
    return out


def _shell_result_type(operands) -> dtype:
    """`result_type` where a shell dtype takes part (NOTE [ Shell dtypes ]): PyTorch ranks the integer and bits
    kinds with the integers and float4 with the floats, and moves up a category through `promote_types` (whose
    errors it raises), except that a bits type moves nowhere."""
    def category(d: dtype) -> _builtin_int:
        return (_FLOAT if d.kind == "float4" else _INT) if d._category == _SHELL else d._category

    def join(a: dtype | None, b: dtype) -> dtype:
        if a is None or a is b:
            return b
        if "bits" in (getattr(a, "kind", None), getattr(b, "kind", None)):
            raise RuntimeError("unsupported scalarType")
        return promote_types(a, b)

    dims = zero = None
    scalar_cat = -1
    for x in operands:
        d = getattr(x, "dtype", None)
        if isinstance(d, dtype) and hasattr(x, "_shape"):
            if x._shape:
                dims = join(dims, d)
            else:
                zero = join(zero, d)
        elif isinstance(x, dtype):
            dims = join(dims, x)
        else:
            scalar_cat = max(scalar_cat, _scalar_category(x))
    out = dims
    if zero is not None and (out is None or category(zero) > category(out)):
        out = join(out, zero)
    if scalar_cat >= 0 and (out is None or scalar_cat > category(out)):
        if scalar_cat == _COMPLEX and out is not None and category(out) == _FLOAT:
            out = out.to_complex()
        else:
            wrapped = (bool, int64, _default_float, _default_float.to_complex())[scalar_cat]
            out = wrapped if out is None or scalar_cat == _COMPLEX else join(out, wrapped)
    return out


def can_cast(from_: dtype, to: dtype) -> _builtin_bool:
    """Whether an in-place op may write a `from_` result into a `to` tensor (no category downcast)."""
    return from_._category <= to._category
