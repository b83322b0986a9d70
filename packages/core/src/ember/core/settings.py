"""PyTorch's global switches and type-information objects: `finfo`/`iinfo`, memory formats,
float32 matmul precision and deterministic algorithms.

The switches record what a program asks for and report it back; on ember's backends they change
nothing: kernels compute float32 matmuls in full float32 (never TF32) and the CPU kernels are
deterministic, so every setting a program can choose is already honoured or means nothing here.
"""

from __future__ import annotations

import warnings

import numpy as np

from ember.core import dtypes, fp32_precision

__all__ = ["finfo", "iinfo", "memory_format", "contiguous_format", "channels_last", "channels_last_3d",
           "preserve_format", "set_float32_matmul_precision", "get_float32_matmul_precision",
           "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled"]


class finfo:
    """Machine limits of a floating dtype: `bits`, `eps`, `max`, `min`, `tiny`, `smallest_normal`, `resolution`.

    Example:
        >>> finfo(dtypes.float32).eps
        1.1920928955078125e-07
    """

    def __init__(self, type: dtypes.dtype | None = None) -> None:
        dt = dtypes.get_default_dtype() if type is None else dtypes.as_dtype(type)
        if dt.is_complex:  # PyTorch's: the limits of the real and imaginary parts' dtype
            dt = dt.to_real()
        if not dt.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        if dt._category == dtypes._SHELL:  # float4_e2m1fn_x2: PyTorch's finfo knows its bits, and no limit
            self.bits, self._no_limits = 8, dtypes.TORCH_NAMES[dt.name]
            return
        if dt is dtypes.bfloat16 or dt in dtypes.FLOAT8:  # numpy's finfo does not know ml_dtypes' types
            import ml_dtypes

            info = ml_dtypes.finfo(dt.np)
        else:
            info = np.finfo(dt.np)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)
        self.dtype = dt.name
        if dt in dtypes.FLOAT8:  # PyTorch's values: resolution 1 (no decimal digit), e5m2fnuz's eps 2^-3
            self.resolution = 1.0
            if dt is dtypes.float8_e5m2fnuz:
                self.eps = 0.125

    def __eq__(self, other) -> bool:
        return isinstance(other, finfo) and vars(self) == vars(other)

    def __hash__(self) -> int:
        return hash((self.dtype, self.bits))

    def __repr__(self) -> str:
        if "_no_limits" in vars(self):
            raise TypeError("bad argument type for built-in operation")
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")

    def __getattr__(self, name: str):
        missing = vars(self).get("_no_limits")
        if missing is not None and name in _FINFO_LIMITS:
            raise NotImplementedError(f"\"{_FINFO_LIMITS[name]}\" not implemented for '{missing}'")
        raise dtypes.no_attribute(self, name)


# finfo's fields and the numeric_limits member PyTorch reads for each (named in its error for float4_e2m1fn_x2)
_FINFO_LIMITS = {"eps": "epsilon", "max": "max", "min": "lowest", "tiny": "min", "smallest_normal": "min",
                 "resolution": "digits10", "dtype": "dtype"}


class iinfo:
    """Machine limits of an integer dtype: `bits`, `max`, `min`.

    Example:
        >>> iinfo(dtypes.int8).min
        -128
    """

    def __init__(self, type: dtypes.dtype) -> None:
        dt = dtypes.as_dtype(type)
        if dt.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        if dt is dtypes.bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if getattr(dt, "kind", None) == "quant":  # the limits of its underlying integer; no `dtype` name
            info = np.iinfo({"qint8": np.int8, "qint32": np.int32}.get(dt.name, np.uint8))
            self.bits, self.max, self.min = int(info.bits), int(info.max), int(info.min)
            self._no_name = dtypes.TORCH_NAMES[dt.name]
            return
        if dt._category == dtypes._SHELL:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(dt.np)
        self.bits = int(info.bits)
        self.max = int(info.max)
        self.min = int(info.min)
        self.dtype = dt.name

    def __repr__(self) -> str:
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"  # PyTorch's %g

    def __getattr__(self, name: str):
        if name == "dtype" and "_no_name" in vars(self):
            raise NotImplementedError(f"\"dtype\" not implemented for '{self._no_name}'")
        raise dtypes.no_attribute(self, name)


class memory_format:
    """A memory layout request (`channels_last` ...) for `memory_format=`: `contiguous`, `clone`, `to`, the
    `*_like` creators and `empty` lay their result out as it names (channel dim innermost for channels_last)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"{dtypes._repr_namespace}.{self.name}"

    def __reduce__(self):
        return self.name

    def __getattr__(self, name: str):
        raise dtypes.no_attribute(self, name)


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")

_matmul_precision = "highest"
_deterministic = False
_deterministic_warn_only = False
# `torch.utils.deterministic.fill_uninitialized_memory`: under deterministic algorithms, `empty` and its kin fill
# their memory (NaN, or an integer's largest value) so that a result never depends on what the allocator held
_fill_uninitialized = True


def set_float32_matmul_precision(precision: str) -> None:
    """Record "highest", "high" or "medium"; ember's float32 matmuls are always full float32 ("highest")."""
    global _matmul_precision
    if precision not in ("highest", "high", "medium"):  # PyTorch warns and keeps the setting
        from ember.core.ops._util import internally

        warnings.warn(internally(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                                 "setFloat32MatmulPrecision call has no effect.", "aten/src/ATen/Context.cpp:458"),
                      UserWarning, stacklevel=2)
        return
    _matmul_precision = precision
    fp32_precision.matmul_precision_set(precision)  # and the new API's matmul entries, as PyTorch's


def get_float32_matmul_precision() -> str:
    """The precision last set with `set_float32_matmul_precision` ("highest" by default); PyTorch's RuntimeError
    where the new API (`torch.backends.*.fp32_precision`) has since set matmul entries that disagree."""
    return fp32_precision.check_matmul_precision(_matmul_precision)


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Record the request; ember's CPU kernels are deterministic whatever it says."""
    global _deterministic, _deterministic_warn_only
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
                        f"{type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'warn_only' must be bool, not "
                        f"{type(warn_only).__name__}")
    _deterministic, _deterministic_warn_only = mode, bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    """Whether `use_deterministic_algorithms(True)` is in force."""
    return _deterministic


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether deterministic mode was requested with `warn_only=True`."""
    return _deterministic and _deterministic_warn_only
