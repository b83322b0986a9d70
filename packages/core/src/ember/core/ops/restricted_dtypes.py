"""The ops PyTorch 2.13 has for uint16/32/64 and the float8 formats, and their casts (NOTE [ Restricted
dtypes ] in dtypes.py).

`install()` (run by the first use of such a dtype) adds a dispatch hook that lets an op through when
none of its tensor operands has a restricted dtype or when PyTorch's CPU build has a kernel for that
op and dtype family, and otherwise raises PyTorch's `NotImplementedError` ("\"add_stub\" not implemented
for 'UInt16'"). Casting into float8 follows PyTorch, not ml_dtypes: float8_e4m3fn saturates to +-448
(ml_dtypes gives NaN) and float8_e8m0fnu keeps only the exponent of |x|.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import register_dispatch_hook
from ember.core.tensor import Tensor

__all__ = ["install", "uninstall", "cast_array", "float8_fill_value", "nan_bits_as_pytorch", "casts_nan_bits",
           "flip_moves_whole_rows"]

# views, copies and casts: every restricted dtype has them
_STORAGE_OPS = frozenset({
    "view", "_unsafe_view", "view_dtype", "as_strided", "permute", "transpose", "expand", "squeeze", "unsqueeze",
    "select", "slice", "narrow", "unfold", "diagonal", "index", "clone", "copy_", "to_dtype", "cat", "fill_", "where",
    "eq", "ne", "isnan", "resize_", "mul"})
# PyTorch's CPU kernels for uint16/32/64 beyond those: reductions it can accumulate, bitwise logic, sort, and
# the float math that computes in a float dtype
_UNSIGNED_OPS = _STORAGE_OPS | frozenset({
    "div", "sum", "nansum", "prod", "cumsum", "cumprod", "sort", "unique", "unique_consecutive", "isclose", "any",
    "all", "bitwise_and", "bitwise_or", "bitwise_xor",
    "floor", "ceil", "trunc", "round", "isinf", "isfinite", "exp", "exp2", "expm1", "log", "log1p", "log2", "log10",
    "sqrt", "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
    "sigmoid", "erf", "erfinv", "reciprocal", "einsum", "random_", "exponential_"})  # random_: a bounded draw
# (`randint`; the full-range one is refused by `random_` itself); exponential_: its kernel's own refusal of integers
# float8: storage, abs and matrix products (float32 accumulation, one rounding on store)
_FLOAT8_OPS = _STORAGE_OPS | frozenset({"abs", "mm", "bmm", "dot"})
# the binary elementwise ops, which promote their operands (filled by `install`)
_PROMOTING: set[str] = set()
# PyTorch's kernel names where they are not "<op>_cpu"
_KERNEL_NAMES = {"add": "add_stub", "sub": "add_stub", "max": "max_all", "min": "min_all", "amax": "max_values_cpu",
                 "amin": "min_values_cpu", "max_dim": "max_cpu", "min_dim": "min_cpu", "histc": "aminmax_cpu",
                 "pow": "pow", "square": "pow", "index_put_": "index_put", "index_select": "index_select",
                 "gather": "scatter_gather_tensor_cpu", "mm": "addmm_impl_cpu_", "dot": "dot", "flip": "flip_cpu",
                 "sort": "sort", "put": "take_put_cpu", "masked_fill": "masked_fill",
                 "masked_scatter": "masked_scatter", "masked_select": "masked_select", "tril": "tril", "triu": "triu",
                 "nonzero": "nonzero_count_cpu", "scatter_add": "scatter_gather_tensor_cpu", "index_add": "index_add_",
                 "count_nonzero": "nonzero_count_cpu", "searchsorted": "searchsorted_out_cpu",
                 "isin": "isin_default_cpu", "floor_divide": "div_floor_cpu", "trunc_divide": "div_trunc_cpu",
                 "uniform_": "check_uniform_bounds", "normal_": "normal_kernel_cpu", "exponential_": "exponential_cpu",
                 "random_": "random_update_from_to"}
# reductions PyTorch refuses to accumulate into uint16/32/64 (`sum(dtype=torch.uint16)`, `cumprod(out=u16)`)
_ACCUMULATING = {"sum": "sum_cpu", "prod": "prod_out_cpu", "cumsum": "cumsum_out_cpu", "cumprod": "cumprod_out_cpu"}


def _kernel_of(op, args) -> str:
    """PyTorch's kernel name for `op` called with `args`, where it depends on them (a number or a tensor
    argument, the reduction)."""
    name = op.name
    if name == "lerp":
        return "lerp_kernel_tensor" if isinstance(args[2], Tensor) else "lerp_kernel_scalar"
    if name == "clamp":
        lo, hi = args[1], args[2]
        if isinstance(lo, Tensor) or isinstance(hi, Tensor):
            return "clamp_cpu"
        return "clamp_min_scalar_cpu" if hi is None else "clamp_max_scalar_cpu" if lo is None else "clamp_scalar_cpu"
    if name == "scatter":
        return "scatter_gather_tensor_cpu" if isinstance(args[3], Tensor) else "scatter_gather_scalar_cpu"
    if name == "scatter_reduce":
        reduce = args[4]
        return "scatter_gather_tensor_cpu" + ("" if reduce in ("sum", "prod") else f"_reduce_{reduce}")
    return _KERNEL_NAMES.get(name, name + "_cpu")


def flip_moves_whole_rows(x: Tensor, dims) -> bool:
    """Whether `flip(x, dims)` leaves the innermost dim in memory (the smallest stride among sizes > 1) as it is:
    PyTorch then moves whole elements, a copy every dtype has, and needs no flip kernel of `x`'s dtype."""
    sized = [d for d in range(x.ndim) if x._shape[d] > 1]
    if not sized:
        return True
    inner = min(reversed(sized), key=lambda d: abs(x._strides[d]))
    return all(d % x.ndim != inner for d in dims)


def _pow_without_kernel(args) -> bool:
    """`pow` calls PyTorch answers for uint16/32/64 without their kernel: a number exponent of 0 or 1 (a fill with
    ones, a copy) or a float one (computed in the float result dtype), and a base of 1 (ones)."""
    base, exponent = args[0], args[1]
    if not isinstance(base, Tensor):
        return base == 1 and not isinstance(base, bool)
    if isinstance(exponent, Tensor):
        return False
    return isinstance(exponent, float) or exponent in (0, 1)


def _unsigned_accumulator(op, args, kwargs) -> dtypes.dtype | None:
    """The uint16/32/64 a reduction is asked to accumulate into (its `dtype=` or `out=`), if any."""
    if op.name not in _ACCUMULATING:
        return None
    out = kwargs.get("out")
    for v in (*args, kwargs.get("dtype"), out._dtype if isinstance(out, Tensor) else None):
        if isinstance(v, dtypes.dtype) and v in dtypes.UNSIGNED_WIDE:
            return v
    return None


def _refused(op, dt: dtypes.dtype, args: tuple) -> Exception:
    from ember.core.ops._util import INT_SCALAR_HIGH, INT_SCALAR_LOW, int_scalar_overflow
    from ember.core.ops.numeric import DtypeNotImplemented

    for a in args:  # PyTorch's argument parser refuses a number no Scalar holds before any kernel is looked up
        if type(a) is int and not INT_SCALAR_LOW <= a < INT_SCALAR_HIGH:
            return int_scalar_overflow(a)
    if op.name == "mean":
        return RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a floating point or "
                            f"complex dtype. Got: {dtypes.TORCH_NAMES[dt.name]}")
    if op.name in ("var", "std"):
        return RuntimeError("std and var only support floating point and complex dtypes")
    if op.name == "pow" and isinstance(args[1], int) and args[1] < 0:  # checked before the kernel is looked up
        return RuntimeError("Integers to negative integer powers are not allowed.")
    if op.name == "bernoulli_":  # PyTorch's kernel for a probability tensor, or for a number
        name = "bernoulli_tensor_cpu_self_" if isinstance(args[1], Tensor) else "bernoulli_scalar_cpu_"
    else:
        name = _kernel_of(op, args)
    return DtypeNotImplemented(f"\"{name}\" not implemented for '{dtypes.TORCH_NAMES[dt.name]}'")


def _guard(op, args, kwargs, call_next):
    into = _unsigned_accumulator(op, args, kwargs)
    if into is not None:
        from ember.core.ops.numeric import DtypeNotImplemented

        raise DtypeNotImplemented(f"\"{_ACCUMULATING[op.name]}\" not implemented for '{dtypes.TORCH_NAMES[into.name]}'")
    found = None
    for a in args:
        if type(a) is Tensor or isinstance(a, Tensor):
            d = a._dtype
        elif isinstance(a, list | tuple) and a and isinstance(a[0], Tensor):
            d = a[0]._dtype
        else:
            continue
        if found is not None and d is not found and (d in dtypes.RESTRICTED or found in dtypes.RESTRICTED) \
                and op.name in _PROMOTING:
            dtypes.result_type(args[0], a)  # PyTorch refuses the promotion (0-dim operands aside) before the kernel
        found = d if found is None or d in dtypes.RESTRICTED else found
    if found in dtypes.RESTRICTED and op.name not in (_FLOAT8_OPS if found in dtypes.FLOAT8 else _UNSIGNED_OPS) \
            and not (op.name == "flip" and flip_moves_whole_rows(args[0], args[1])) \
            and not (op.name == "pow" and found in dtypes.UNSIGNED_WIDE and _pow_without_kernel(args)):
        raise _refused(op, found, args)
    return call_next(op, args, kwargs)


# a factory's fresh tensor is filled (`fill_`) or drawn into (float dtypes only: `random._fresh`), both of which the
# guard lets through for every restricted dtype, and a join of plain tensors (`cat`) too: the fast paths stay open
# (`dispatch.bare`) once a restricted dtype is used
_guard.ignores_fresh = True
# a call on float32/float64 tensors only passes straight down (`dispatch.untracked`)
_guard.ignores_untracked = True

_installed = False


def install() -> None:
    """Install the hook (once)."""
    global _installed
    if not _installed:
        _installed = True
        from ember.core.ops.elementwise import BINARY

        _PROMOTING.update(row[0] for row in BINARY)
        register_dispatch_hook(_guard)


def uninstall() -> None:
    """Remove the hook (tests that measure the op path use it); the next use of a restricted dtype reinstalls it."""
    global _installed
    from ember.core.dispatch import remove_dispatch_hook

    if _installed:
        remove_dispatch_hook(_guard)
        _installed = False
        dtypes._guard_installed = False


def cast_array(a: np.ndarray, dt: dtypes.dtype) -> np.ndarray:
    """`a` cast to `dt`'s numpy type with PyTorch's conversion rules for float8 and complex32 (plain astype
    otherwise)."""
    if dt is dtypes.complex32 or (a.dtype.kind == "V" and a.dtype == dtypes.complex32.np):
        from ember.core.ops.complex_half import from_array, to_complex64

        if dt is dtypes.complex32:
            return from_array(a)
        a = to_complex64(a)
        if dt is dtypes.complex64:
            return a
    if a.dtype.kind == "c" and not dt.is_complex:  # the real part (numpy's cast would warn), or nonzero-ness
        a = a != 0 if dt is dtypes.bool else a.real
    if dt is dtypes.float8_e4m3fn and a.dtype.kind in "fV" and a.dtype != dt.np:
        hi = 448.0  # e4m3fn has no infinity: PyTorch saturates, where ml_dtypes would give NaN
        a = np.clip(np.asarray(a, dtype=np.float32), -hi, hi)
    elif dt is dtypes.float8_e8m0fnu and a.dtype != dt.np:
        a = np.abs(np.asarray(a, dtype=np.float32))  # PyTorch keeps the exponent of |x|; 0 is the smallest, 2^-127
        a = np.where(a == 0, np.float32(2.0 ** -127), a)
    return a.astype(dt.np)


# per float8 format, what c10's checked conversion of a fill value knows of it: (lowest, max, has infinity) and the
# bits of the NaN its conversion writes (ml_dtypes' NaN differs for e5m2)
_FLOAT8_LIMITS = {"float8_e4m3fn": (-448.0, 448.0, False, 0x7F), "float8_e5m2": (-57344.0, 57344.0, True, 0x7F),
                  "float8_e4m3fnuz": (-240.0, 240.0, False, 0x80), "float8_e5m2fnuz": (-57344.0, 57344.0, False, 0x80),
                  "float8_e8m0fnu": (2.0 ** -127, 2.0 ** 127, False, 0xFF)}


def float8_fill_value(dt: dtypes.dtype, value, checked: bool):
    """A number as PyTorch's `fill_` writes it into a float8 tensor: converted by c10's rules (`cast_array`'s), a
    numpy scalar of the format; `checked` (every fill but that of a one-element tensor, which PyTorch converts
    unchecked) raises its overflow error for a value outside the format's range, or infinite where it has no
    infinity."""
    lowest, highest, has_inf, nan_bits = _FLOAT8_LIMITS[dt.name]
    v = float(value)
    if checked and not (math.isnan(v) or (has_inf and math.isinf(v))) and not lowest <= v <= highest:
        raise RuntimeError(f"value cannot be converted to type c10::{dtypes.TORCH_NAMES[dt.name]} without overflow")
    if math.isnan(v):
        return np.array([nan_bits], np.uint8).view(dt.np)[0]
    with np.errstate(over="ignore"):  # past float32's range: its infinity, the format's own answer to it
        return cast_array(np.array([v]), dt)[0]


_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)


def _f32_bits(a: np.ndarray) -> np.ndarray:
    """The float32 bits of NaNs `a` as PyTorch widens or narrows them to float32 (float64: the hardware's
    conversion, top payload bits kept, quieted; bfloat16: the bits shifted, a signaling NaN kept)."""
    if a.dtype.kind == "V":  # bfloat16
        return a.view(np.uint16).astype(np.uint32) << 16
    return a.astype(_F32).view(np.uint32)


def _to_half(a, r, m):
    b = _f32_bits(a[m])  # c10's float to half: sign | quiet NaN | the top 9 payload bits
    r.view(np.uint16)[m] = ((b >> 16) & 0x8000 | 0x7e00 | (b & 0x7fffff) >> 13).astype(np.uint16)


def _fill(bits: int):
    def fix(a, r, m):
        r.view(np.uint16)[m] = bits
    return fix


def _quiet(bit: int, uint):
    def fix(a, r, m):
        r.view(uint)[m] |= uint(bit)
    return fix


# (source, destination) -> how PyTorch 2.13's CPU conversion writes a NaN where numpy's (ml_dtypes') differs
_NAN_RULES = {(_F32, _F16): _to_half, (_F64, _F16): _to_half,
              (_F16, _F32): _quiet(0x00400000, np.uint32), (_F16, _F64): _quiet(0x0008000000000000, np.uint64)}


@cache
def _bfloat16_nan_rules() -> dict:
    """The bfloat16 pairs, built at the first bfloat16 cast (importing ember.core leaves ml_dtypes unloaded)."""
    bf = dtypes.bfloat16.np
    return {(_F32, bf): _fill(0xffff),  # its vectorized float-to-bfloat16, for the whole tensor (any length)
            (_F64, bf): _fill(0x7fc0), (_F16, bf): _fill(0x7fc0),  # c10's round_to_nearest_even: one NaN
            (bf, _F16): _to_half}


def _nan_rule(src: np.dtype, dst: np.dtype):
    if src.kind == "V" or dst.kind == "V":  # bfloat16 (or a float8 / complex32 record: no rule)
        return _bfloat16_nan_rules().get((src, dst))
    return _NAN_RULES.get((src, dst))


def casts_nan_bits(src: np.dtype, dst: np.dtype) -> bool:
    """Whether a cast from `src` to `dst` needs nan_bits_as_pytorch."""
    return _nan_rule(src, dst) is not None


def nan_bits_as_pytorch(a: np.ndarray, r: np.ndarray) -> np.ndarray:
    """`r` (`a` cast by numpy) with its NaNs' bits as PyTorch's CPU casts write them where float16 or
    bfloat16 is involved (sign, payload, quiet bit; docs/robustness.md lists the rules); `r` is changed in
    place and returned. Other casts, and arrays without a NaN, pass untouched."""
    rule = _nan_rule(a.dtype, r.dtype)
    if rule is None or r.size == 0:
        return r
    m = np.isnan(a if a.dtype.itemsize >= 4 else r)  # numpy's 16-bit isnan is emulated: 5x slower
    if m.any():
        rule(a, r, m)
    return r
