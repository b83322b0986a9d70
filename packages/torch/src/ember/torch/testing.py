"""`torch.testing`: `assert_close` with PyTorch's full signature over ember.core.testing's, its deprecated
predecessor `assert_allclose`, and `make_tensor`."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import numpy as np

from ember.core import Tensor, float16, float32, float64, tensor
from ember.core import testing as _testing
from ember.core.testing import make_tensor

__all__ = ["assert_close", "assert_allclose", "make_tensor"]


def assert_close(actual, expected, *, allow_subclasses: bool = True, rtol: float | None = None,
                 atol: float | None = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False,
                 msg: str | None = None) -> None:
    """Assert `actual` and `expected` are close (PyTorch's default tolerances per dtype).

    `check_layout` always holds (ember has only strided tensors); `check_stride` compares strides;
    `allow_subclasses=False` requires both to be of the same class.

    Raises:
        AssertionError: values, shapes, dtypes, devices or (if asked) strides differ.
        TypeError: a tensor is compared with a number, or `allow_subclasses` is False and the classes differ.
        ValueError: only one of `rtol` and `atol` is given.
    """
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'rtol' if rtol is None else 'atol'}.")
    bad = _unpaired(actual, expected, allow_subclasses, "")
    if bad is not None:
        a, e, path = bad
        raise TypeError(f"No comparison pair was able to handle inputs of type {_type_name(a)} and {_type_name(e)}."
                        + (f"\n\nThe failure occurred for item {path}" if path else ""))
    if check_stride and isinstance(actual, Tensor) and isinstance(expected, Tensor) \
            and actual.stride() != expected.stride():
        raise AssertionError(msg or f"The values for attribute 'stride()' do not match: {actual.stride()} != "
                                    f"{expected.stride()}.")
    _testing.assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=check_dtype,
                          check_device=check_device, msg=msg)


def _unpaired(actual, expected, allow_subclasses: bool, path: str):
    """The first pair, walking sequences and mappings as PyTorch pairs them up, that no comparison handles (a tensor
    and a number, list or array, or classes that differ without `allow_subclasses`): (actual, expected, "[0]['a']"),
    else None."""
    mappings = isinstance(actual, Mapping) and isinstance(expected, Mapping)
    sequences = isinstance(actual, Sequence) and isinstance(expected, Sequence) and not isinstance(actual, str) \
        and not isinstance(expected, str)
    if actual is None or expected is None:  # PyTorch's NonePair compares them
        return None
    if not (mappings or sequences) and not (_comparable(actual) and _comparable(expected)):
        return actual, expected, path  # a string, or an object no pair of PyTorch's compares
    related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
    if (isinstance(actual, Tensor) or isinstance(expected, Tensor)) and not related or \
            (not allow_subclasses and type(actual) is not type(expected) and not mappings and not sequences):
        return actual, expected, path
    if mappings and set(actual) == set(expected):
        pairs = [(k, actual[k], expected[k]) for k in actual]
    elif sequences and len(actual) == len(expected):
        pairs = list(zip(range(len(actual)), actual, expected))
    else:
        return None
    for k, a, e in pairs:
        bad = _unpaired(a, e, allow_subclasses, f"{path}[{k!r}]")
        if bad is not None:
            return bad
    return None


def _comparable(x) -> bool:
    """What PyTorch's Boolean, Number and TensorLike pairs take."""
    leaf = Tensor | np.ndarray | np.generic | int | float | complex
    return isinstance(x, leaf) and not isinstance(x, np.str_ | np.bytes_)


def _type_name(x) -> str:
    return "<class 'torch.Tensor'>" if type(x) is Tensor else str(type(x))


_ALLCLOSE_TOLERANCES = {float16: (1e-3, 1e-3), float32: (1e-4, 1e-5), float64: (1e-5, 1e-8)}


def assert_allclose(actual, expected, rtol: float | None = None, atol: float | None = None, equal_nan: bool = True,
                    msg: str = "") -> None:
    """Deprecated (PyTorch 1.12): `assert_close` with NaNs equal, no dtype check, and its own default
    tolerances (float16 1e-3/1e-3, float32 1e-4/1e-5, float64 1e-5/1e-8, other dtypes exact);
    `expected` that is not a tensor takes `actual`'s dtype."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
                  "instructions in https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = (max(v) for v in zip(*(_ALLCLOSE_TOLERANCES.get(t.dtype, (0.0, 0.0)) for t in (actual, expected))))
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True, check_dtype=False,
                 check_stride=False, msg=msg or None)
