"""Test helpers shared by every layer: `assert_close` (PyTorch's), `make_tensor`, finite differences."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ember.core import dtypes
from ember.core.tensor import Tensor

__all__ = ["assert_close", "make_tensor", "numerical_jacobian", "to_numpy"]

# PyTorch's default tolerances by dtype: (rtol, atol)
_TOLERANCES = {
    dtypes.float16: (1e-3, 1e-5), dtypes.bfloat16: (1.6e-2, 1e-5),
    dtypes.float32: (1.3e-6, 1e-5), dtypes.float64: (1e-7, 1e-7),
    dtypes.complex64: (1.3e-6, 1e-5), dtypes.complex128: (1e-7, 1e-7),
}


def to_numpy(x) -> np.ndarray:
    """A host numpy array of a tensor (any device, with or without grad), array or number."""
    if isinstance(x, Tensor):
        return x._host_array()
    return np.asarray(x)


def assert_close(actual, expected, *, rtol: float | None = None, atol: float | None = None,
                 equal_nan: bool = False, check_dtype: bool = True, check_device: bool = True,
                 msg: str | None = None) -> None:
    """Raise AssertionError unless `actual` and `expected` match in shape, dtype and values
    (|a - e| <= atol + rtol * |e|, with tolerances by dtype as in `torch.testing.assert_close`)."""
    if isinstance(actual, Sequence) and not isinstance(actual, str | Tensor):
        assert len(actual) == len(expected), f"sequence lengths differ: {len(actual)} != {len(expected)}"
        for a, e in zip(actual, expected, strict=True):
            assert_close(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=check_dtype,
                         check_device=check_device, msg=msg)
        return
    if isinstance(actual, Tensor) and isinstance(expected, Tensor):
        if check_dtype and actual.dtype is not expected.dtype:
            raise AssertionError(msg or f"The values for attribute 'dtype' do not match: {actual.dtype} != "
                                        f"{expected.dtype}.")
        if check_device and actual.device != expected.device:
            raise AssertionError(msg or f"The values for attribute 'device' do not match: {actual.device} != "
                                        f"{expected.device}.")
    a, e = to_numpy(actual), to_numpy(expected)
    if a.shape != e.shape:
        raise AssertionError(msg or f"The values for attribute 'shape' do not match: {a.shape} != {e.shape}.")
    dt = actual.dtype if isinstance(actual, Tensor) else (dtypes.from_numpy_dtype(a.dtype) or dtypes.float64)
    default_rtol, default_atol = _TOLERANCES.get(dt, (0.0, 0.0))
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    wide = np.complex128 if np.iscomplexobj(a) or np.iscomplexobj(e) else np.float64  # never drop imaginary parts
    a64, e64 = a.astype(wide), e.astype(wide)
    ok = np.isclose(a64, e64, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if not ok.all():
        bad = np.argwhere(~ok)
        first = tuple(int(i) for i in bad[0])
        diff = np.abs(a64 - e64)
        diff = np.where(np.isnan(diff), np.inf, diff)
        raise AssertionError(msg or (
            f"Tensor-likes are not close!\n\nMismatched elements: {len(bad)} / {a.size} "
            f"({100.0 * len(bad) / max(a.size, 1):.1f}%)\nGreatest absolute difference: {diff.max()} \n"
            f"First mismatch at index {first}: {a64[first]} vs {e64[first]} (up to {atol} allowed absolute and "
            f"{rtol} allowed relative difference)"))


def make_tensor(*shape, dtype=dtypes.float32, device="cpu", low: float | None = None, high: float | None = None,
                noncontiguous: bool = False, seed: int | None = None) -> Tensor:
    """A random tensor of `shape` in [low, high); `noncontiguous` gives a strided view of the same values."""
    from ember.core.creation import from_numpy

    shape = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], tuple | list) else tuple(shape)
    dtype = dtypes.as_dtype(dtype)
    rng = np.random.default_rng(seed)
    if dtype is dtypes.bool:
        a = rng.random(shape) < 0.5
    elif dtype.is_floating_point:
        lo, hi = -9.0 if low is None else low, 9.0 if high is None else high
        a = rng.uniform(lo, hi, shape).astype(dtype.np)
    else:
        info = np.iinfo(dtype.np)
        lo, hi = max(-9 if low is None else int(low), info.min), min(10 if high is None else int(high), info.max)
        a = rng.integers(lo, hi, shape, dtype=dtype.np)
    if noncontiguous and a.size > 1:
        spaced = np.empty(shape[:-1] + (shape[-1] * 2,) if shape else (2,), dtype=a.dtype)
        spaced[..., ::2] = a
        t = from_numpy(spaced)[..., ::2] if shape else from_numpy(spaced)[0]
    else:
        t = from_numpy(np.ascontiguousarray(a))
    return t if str(device) == "cpu" else t.to(device)


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

