"""`torch.testing`: `assert_close` with PyTorch's full signature over ember.core.testing's, and `make_tensor`."""

from __future__ import annotations

from ember.core import Tensor
from ember.core import testing as _testing
from ember.core.testing import make_tensor

__all__ = ["assert_close", "make_tensor"]


def assert_close(actual, expected, *, allow_subclasses: bool = True, rtol: float | None = None,
                 atol: float | None = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False,
                 msg: str | None = None) -> None:
    """Assert `actual` and `expected` are close (PyTorch's default tolerances per dtype).

    `check_layout` always holds (ember has only strided tensors); `check_stride` compares strides;
    `allow_subclasses=False` requires both to be of the same class.

    Raises:
        AssertionError: values, shapes, dtypes, devices or (if asked) strides differ.
        TypeError: `allow_subclasses` is False and the classes differ.
    """
    if not allow_subclasses and type(actual) is not type(expected):
        raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.")
    if check_stride and isinstance(actual, Tensor) and isinstance(expected, Tensor) \
            and actual.stride() != expected.stride():
        raise AssertionError(msg or f"The values for attribute 'stride()' do not match: {actual.stride()} != "
                                    f"{expected.stride()}.")
    _testing.assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=check_dtype,
                          check_device=check_device, msg=msg)
