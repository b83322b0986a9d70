"""PyTorch's SymInt-aware helpers (`torch.sym_int`, `sym_max`, ...) and facts about the build
(`has_lapack`, `compiled_with_cxx11_abi`).

ember traces no symbolic shapes, so the helpers see only Python and numpy numbers and do what
PyTorch's do with those (its promotion to float in `sym_max`/`sym_min`, its AssertionErrors).
"""

from __future__ import annotations

import builtins
import math

import numpy as np

__all__ = ["SymInt", "SymFloat", "SymBool", "sym_int", "sym_float", "sym_max", "sym_min", "sym_not", "sym_ite",
           "sym_sqrt", "sym_sum", "sym_constrain_range", "sym_constrain_range_for_size", "sym_fresh_size",
           "compiled_with_cxx11_abi", "has_lapack", "has_mkl", "has_openmp", "has_spectral"]

# what ember has: linear algebra (numpy's LAPACK), FFTs (scipy.fft), threads; no MKL (as torch.backends says)
has_lapack = True
has_spectral = True
has_openmp = True
has_mkl = False

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_NUMBERS = (np.integer, np.floating, builtins.int, builtins.float)
_FLOATS = (np.floating, builtins.float)


class SymInt:
    """A symbolic int of a traced shape. ember traces none, so no value is ever one: the class is here for code that
    asks (`isinstance(n, (int, torch.SymInt))`), as in eager PyTorch, where plain ints are not SymInts either."""

    def __init__(self, node) -> None:
        self.node = node


class SymFloat:
    """A symbolic float of a traced shape; as `SymInt`, never a value in ember."""

    def __init__(self, node) -> None:
        self.node = node


class SymBool:
    """A symbolic bool of a traced shape; as `SymInt`, never a value in ember."""

    def __init__(self, node) -> None:
        self.node = node


def compiled_with_cxx11_abi() -> bool:
    """Whether PyTorch's C++ build used the C++11 ABI: True, as PyTorch 2.13's wheels (ember has no C++ part)."""
    return True


def sym_int(a):
    """`int(a)` (truncating a float toward zero)."""
    return builtins.int(a)


def sym_float(a):
    """`float(a)`."""
    return builtins.float(a)


def sym_not(a):
    """`not a`."""
    return not a


def _numbers(a, b) -> bool:
    for x in (a, b):
        if not isinstance(x, _NUMBERS):
            raise AssertionError(f"expected {_NUMBERS}, got {type(x)}")
    return isinstance(a, _FLOATS) or isinstance(b, _FLOATS)


def sym_max(a, b):
    """`max(a, b)` of two int/float numbers, a float when either is one (PyTorch's promotion)."""
    floats = _numbers(a, b)
    return builtins.float(builtins.max(a, b)) if floats else builtins.max(a, b)


def sym_min(a, b):
    """`min(a, b)` of two int/float numbers, a float when either is one."""
    floats = _numbers(a, b)
    return builtins.float(builtins.min(a, b)) if floats else builtins.min(a, b)


def sym_ite(b, t, f):
    """`t if b else f`; `b` must be a bool and `t`, `f` of one type."""
    if not isinstance(b, builtins.bool):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}")
    return t if b else f


def sym_sqrt(a):
    """`math.sqrt(a)`."""
    return math.sqrt(a)


def sym_sum(*args):
    """The sum of `args` (`sym_sum(a, b, c)` or `sym_sum([a, b, c])`)."""
    if len(args) == 1 and isinstance(args[0], list | tuple):
        args = args[0]
    return builtins.sum(args)


def _constrain(size, low: int, high: int) -> None:
    if low > high:
        raise RuntimeError(f"Max must be greater than or equal to min. Got min={low} max={high}")
    value = size.item() if hasattr(size, "item") else size
    if not low <= value <= high:
        raise RuntimeError(f"Invalid value range for {value} between [{low}, {high}].")


def sym_constrain_range(size, *, min=None, max=None) -> None:  # noqa: A002 - PyTorch's argument names
    """Assert that `size` lies in `[min, max]` (unbounded where None): a traced size's range; in eager mode, as
    ember always is, a check of the number (or one-element tensor), with PyTorch's RuntimeError."""
    _constrain(size, _INT64_MIN if min is None else min, _INT64_MAX if max is None else max)


def sym_constrain_range_for_size(size, *, min=None, max=None) -> None:  # noqa: A002 - PyTorch's argument names
    """`sym_constrain_range` for a value used as a size: `min` defaults to 0."""
    _constrain(size, 0 if min is None else min, _INT64_MAX if max is None else max)


def sym_fresh_size(expr):
    """`expr` itself: a traced size made fresh for the tracer; eager mode has nothing to refresh."""
    return expr
