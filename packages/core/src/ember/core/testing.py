"""Test helpers shared by every layer: `assert_close` (PyTorch's), `make_tensor`, finite differences, `watching`."""

from __future__ import annotations

import cmath
import contextlib
import gc
import math
import sys
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ember.core import dtypes
from ember.core.tensor import Tensor

__all__ = ["assert_close", "count_calls", "make_tensor", "numerical_jacobian", "to_numpy", "watching"]

# PyTorch's default tolerances by dtype: (rtol, atol)
_TOLERANCES = {
    dtypes.float16: (1e-3, 1e-5), dtypes.bfloat16: (1.6e-2, 1e-5),
    dtypes.float32: (1.3e-6, 1e-5), dtypes.float64: (1e-7, 1e-7),
    dtypes.complex64: (1.3e-6, 1e-5), dtypes.complex128: (1e-7, 1e-7),
}


@contextlib.contextmanager
def watching(seen: list | None = None):
    """A dispatch hook that sees every op call (appending its name to `seen`) and passes it down: while it is
    installed `dispatch.untracked` is off, so composites dispatch their ops (the reference for a direct path)."""
    from ember.core import dispatch

    def hook(op, args, kwargs, call_next):
        if seen is not None:
            seen.append(op.name)
        return call_next(op, args, kwargs)

    dispatch.register_dispatch_hook(hook)
    try:
        yield
    finally:
        dispatch.remove_dispatch_hook(hook)


def count_calls(fn) -> tuple[int, int]:
    """(Python calls, C-function calls) of one `fn()`, after two warm-up calls fill every cache: the measure of the
    call-budget tests, which count work instead of timing it, so a slower path fails whatever the machine's load."""
    fn()
    fn()
    calls = [0, 0]

    def prof(frame, event, arg):
        if event == "call":
            calls[0] += 1
        elif event == "c_call":
            calls[1] += 1

    # a garbage collection inside the counted call could run other objects' __del__ or weakref
    # callbacks, whose frames would count: collect first, and keep the collector off meanwhile
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
        if was_enabled:
            gc.enable()
    return calls[0], calls[1] - 1  # the c_call of setprofile(None) itself


def to_numpy(x) -> np.ndarray:
    """A host numpy array of a tensor (any device, with or without grad), array or number."""
    if isinstance(x, Tensor):
        return x._host_array()
    return np.asarray(x)


def assert_close(actual, expected, *, rtol: float | None = None, atol: float | None = None,
                 equal_nan: bool = False, check_dtype: bool = True, check_device: bool = True,
                 msg: str | Callable[[str], str] | None = None) -> None:
    """Raise AssertionError unless `actual` and `expected` (tensors, arrays, numbers, or sequences and mappings
    of them) match in shape, device, dtype and values (|a - e| <= atol + rtol * |e|), with PyTorch's messages."""
    try:
        _compare(actual, expected, rtol, atol, equal_nan, check_dtype, check_device)
    except _Mismatch as err:
        text, path = err.args
        if path:
            text += f"\n\nThe failure occurred for item {''.join(str([item]) for item in path)}"
        if isinstance(msg, str):
            text = msg
        elif callable(msg):
            text = msg(text)
        raise AssertionError(text) from None


class _Mismatch(Exception):
    """A failed comparison: (message, path of sequence indices and mapping keys)."""


def _compare(actual, expected, rtol, atol, equal_nan, check_dtype, check_device, path: tuple = ()) -> None:
    if actual is None or expected is None:  # PyTorch's NonePair
        if actual is not None or expected is not None:
            raise _Mismatch(f"None mismatch: {actual} is not {expected}", path)
        return
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        if set(actual) != set(expected):
            missing, extra = set(expected) - set(actual), set(actual) - set(expected)
            text = "The keys of the mappings do not match:\n"
            if missing:
                text += f"Missing keys in the actual mapping: {sorted(missing, key=repr)}\n"
            if extra:
                text += f"Additional keys in the actual mapping: {sorted(extra, key=repr)}"
            raise _Mismatch(text.strip(), path)
        for key in expected:
            _compare(actual[key], expected[key], rtol, atol, equal_nan, check_dtype, check_device, (*path, key))
        return
    if _is_sequence(actual):
        if len(actual) != len(expected):
            raise _Mismatch(f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", path)
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            _compare(a, e, rtol, atol, equal_nan, check_dtype, check_device, (*path, i))
        return
    if isinstance(actual, np.generic) and isinstance(expected, np.generic | int | float | complex):
        actual = actual.item()  # PyTorch's NumberPair takes numpy scalars as the Python numbers they hold
    if isinstance(expected, np.generic) and isinstance(actual, int | float | complex):
        expected = expected.item()
    if _is_number(actual) and _is_number(expected):
        _compare_numbers(actual, expected, rtol, atol, equal_nan, check_dtype, path)
        return
    if isinstance(actual, Tensor) and isinstance(expected, Tensor):
        for attr, a_val, e_val, on in (("shape", actual.shape, expected.shape, True),
                                       ("device", actual.device, expected.device, check_device),
                                       ("dtype", actual.dtype, expected.dtype, check_dtype)):
            if on and a_val != e_val:
                raise _Mismatch(f"The values for attribute '{attr}' do not match: {a_val} != {e_val}.", path)
    a, e = to_numpy(actual), to_numpy(expected)
    if a.shape != e.shape:
        raise _Mismatch(f"The values for attribute 'shape' do not match: {a.shape} != {e.shape}.", path)
    a_dt, e_dt = _dtype_of(actual, a), _dtype_of(expected, e)
    if check_dtype and a_dt is not e_dt and isinstance(actual, np.ndarray) and isinstance(expected, np.ndarray):
        # two arrays, as the tensors PyTorch turns them into (a tensor against a reference array is ember's use)
        raise _Mismatch(f"The values for attribute 'dtype' do not match: {a_dt} != {e_dt}.", path)
    tolerances = [_TOLERANCES.get(dt, (0.0, 0.0)) for dt in (a_dt, e_dt)]
    rtol = max(t[0] for t in tolerances) if rtol is None else rtol
    atol = max(t[1] for t in tolerances) if atol is None else atol
    if a_dt is not e_dt:  # compared in the promoted dtype, as PyTorch does without check_dtype
        common = dtypes.promote_types(a_dt, e_dt)
        if common.np.kind in "biufc":
            a, e = a.astype(common.np), e.astype(common.np)
    wide = np.complex128 if np.iscomplexobj(a) or np.iscomplexobj(e) else np.float64  # never drop imaginary parts
    matches = np.isclose(a.astype(wide), e.astype(wide), rtol=rtol, atol=atol, equal_nan=equal_nan)
    if matches.all():
        return
    if a.shape == ():
        raise _Mismatch(_scalar_message(a.item(), e.item(), rtol, atol), path)
    raise _Mismatch(_tensor_message(a, e, matches, rtol, atol), path)


def _is_sequence(x) -> bool:
    return isinstance(x, Sequence) and not isinstance(x, str | bytes | Tensor)


def _is_number(x) -> bool:
    return isinstance(x, int | float | complex) and not isinstance(x, np.ndarray)


def _dtype_of(x, arr: np.ndarray):
    return x.dtype if isinstance(x, Tensor) else (dtypes.from_numpy_dtype(arr.dtype) or dtypes.float64)


def _compare_numbers(actual, expected, rtol, atol, equal_nan, check_dtype, path) -> None:
    """PyTorch's BooleanPair and NumberPair: python numbers of one type, floats with float64's tolerances."""
    if isinstance(actual, bool) and isinstance(expected, bool):
        if actual is not expected:
            raise _Mismatch(f"Booleans mismatch: {actual} is not {expected}", path)
        return
    builtin = {bool, int, float, complex}
    if check_dtype and {type(actual), type(expected)} <= builtin and type(actual) is not type(expected):
        raise _Mismatch(f"The (d)types do not match: {type(actual)} != {type(expected)}.", path)
    exact = all(isinstance(x, int) for x in (actual, expected))
    rtol = (0.0 if exact else 1e-7) if rtol is None else rtol
    atol = (0.0 if exact else 1e-7) if atol is None else atol
    if equal_nan and cmath.isnan(actual) and cmath.isnan(expected):
        return
    diff = abs(actual - expected)
    if cmath.isfinite(diff) and diff <= atol + rtol * abs(expected):
        return
    raise _Mismatch(_scalar_message(actual, expected, rtol, atol), path)


def _mismatch_message(identifier: str, extra: str, diffs, rtol, atol) -> str:
    """PyTorch's `_make_mismatch_msg`: "not equal" when both tolerances are zero, else "not close"."""
    equality = rtol == 0 and atol == 0
    text = f"{identifier} are not {'equal' if equality else 'close'}!\n\n{extra.strip()}\n"
    for kind, diff, idx, tol in diffs:
        line = f"Greatest {kind} difference: {diff} at index {idx}" if idx is not None else \
            f"{kind.title()} difference: {diff}"
        text += line + ("" if equality else f" (up to {tol} allowed)") + "\n"
    return text.strip()


def _scalar_message(actual, expected, rtol, atol) -> str:
    diff = abs(actual - expected)
    rel = float("inf") if expected == 0 else diff / abs(expected)
    return _mismatch_message("Scalars", f"Expected {expected} but got {actual}.",
                             [("absolute", diff, None, atol), ("relative", rel, None, rtol)], rtol, atol)


def _tensor_message(a: np.ndarray, e: np.ndarray, matches: np.ndarray, rtol, atol) -> str:
    """Mismatch count and the greatest absolute and relative differences among mismatches, computed in the
    inputs' dtype (integers and bools in int64, their relative difference in float32) as PyTorch does."""
    total, bad = matches.size, int((~matches).sum())
    extra = f"Mismatched elements: {bad} / {total} ({bad / total:.1%})"
    af, ef, mf = a.reshape(-1), e.reshape(-1), matches.reshape(-1)
    if af.dtype == np.bool_ or np.issubdtype(af.dtype, np.integer):  # bfloat16/float8 stay floating
        af, ef = af.astype(np.int64), ef.astype(np.int64)
        rel_dtype = np.float32
    else:
        rel_dtype = None
    with np.errstate(all="ignore"):
        abs_diff = np.abs(af - ef)
        abs_diff[mf] = 0
        rel_diff = abs_diff / np.abs(ef)
        if rel_dtype is not None:
            rel_diff = rel_diff.astype(rel_dtype)
        rel_diff[mf] = 0
    diffs = []
    for kind, d, tol in (("absolute", abs_diff, atol), ("relative", rel_diff, rtol)):
        i = int(np.argmax(d))
        diffs.append((kind, d[i].item(), tuple(int(j) for j in np.unravel_index(i, a.shape)), tol))
    return _mismatch_message("Tensor-likes", extra, diffs, rtol, atol)


def make_tensor(*shape, dtype=dtypes.float32, device="cpu", low: float | None = None, high: float | None = None,
                requires_grad: bool = False, noncontiguous: bool = False, exclude_zero: bool = False,
                memory_format=None, seed: int | None = None) -> Tensor:
    """A random tensor of `shape` in [low, high) drawn as PyTorch's (`randint`, or `uniform_` of the real parts:
    the same numbers under the same seed), with its defaults and checks (floats in [-9, 9), integers in [-9, 10)
    clipped to the dtype); `noncontiguous` gives a strided view, `exclude_zero` replaces zeros by 1 (integers) or
    the dtype's smallest normal, `seed` (ember's) draws from a generator of that seed instead of the default one."""
    from ember.core.creation import empty
    from ember.core.ops.complex import view_as_real

    if len(shape) == 1 and isinstance(shape[0], Sequence):
        shape = shape[0]
    shape = tuple(int(d) for d in shape)
    dtype = dtypes.as_dtype(dtype)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous} and memory_format={memory_format}")
    integral = dtype is dtypes.bool or not (dtype.is_floating_point or dtype.is_complex)
    if requires_grad and integral:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype}")
    from ember.core import random

    generator = None if seed is None else random.Generator().manual_seed(seed)
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:  # twice the last dim, then every second value from the second: PyTorch's draws and layout
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype is dtypes.bool:
        lo, hi = _low_high(low, high, 0, 2, 0, 2, dtype, False)
        t = random.randint(math.ceil(lo), math.ceil(hi), shape, dtype=dtype, generator=generator)
    elif integral:
        info = np.iinfo(dtype.np)
        lo, hi = _low_high(low, high, -9, 10, info.min, info.max + (dtype is not dtypes.int64), dtype, False)
        t = random.randint(math.ceil(lo), math.ceil(hi), shape, dtype=dtype, generator=generator)
    else:
        real = dtypes.float32 if dtype is dtypes.complex64 else dtypes.float64 if dtype.is_complex else dtype
        info = np.finfo(np.float64 if real.np.kind != "f" else real.np)
        lo, hi = _low_high(low, high, -9.0, 9.0, float(info.min), float(info.max), dtype, True)
        t = empty(shape, dtype=dtype)
        parts = view_as_real(t) if dtype.is_complex else t
        if hi - lo >= float(info.max):  # uniform_ needs the range's width to be finite: draw half, then double
            parts.uniform_(lo / 2, hi / 2, generator=generator).mul_(2)
        else:
            parts.uniform_(lo, hi, generator=generator)
    if noncontiguous:
        t = t[..., 1::2]
    if exclude_zero:
        t[t == 0] = 1 if integral else float(np.finfo(real.np).tiny) if real.np.kind == "f" else 2.0 ** -126
    t = t if str(device) == "cpu" else t.to(device)
    if memory_format is not None:
        t = t.clone(memory_format=memory_format)
    return t.requires_grad_(True) if requires_grad else t


def _low_high(low, high, default_low, default_high, lowest, highest, dtype, floating: bool) -> tuple:
    """PyTorch's checks of make_tensor's bounds, then the bounds clipped to what the dtype holds."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low >= high and not (floating and low == high):
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    if high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} only "
                         f"supports [{lowest}, {highest})")
    return min(max(low, lowest), highest), min(max(high, lowest), highest)


def numerical_jacobian(fn: Callable[[np.ndarray], np.ndarray], x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """d fn(x) / d x by float64 central differences: shape (fn(x).size, x.size)."""
    x = np.array(x, dtype=np.float64)
    flat = x.reshape(-1)
    out_size = np.asarray(fn(x)).size
    jac = np.zeros((out_size, flat.size))
    for i in range(flat.size):
        orig = flat[i]
        flat[i] = orig + eps
        plus = np.asarray(fn(x), dtype=np.float64).reshape(-1)
        flat[i] = orig - eps
        minus = np.asarray(fn(x), dtype=np.float64).reshape(-1)
        flat[i] = orig
        jac[:, i] = (plus - minus) / (2 * eps)
    return jac

