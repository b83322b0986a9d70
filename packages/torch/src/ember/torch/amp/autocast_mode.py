"""`torch.autocast`: records the autocast state that programs query; ops keep their inputs' dtype
(ember has no reduced-precision autocast kernels, see `ember.torch.amp`)."""

from __future__ import annotations

import functools
import warnings

from ember import autograd as ea

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available", "is_autocast_enabled",
           "get_autocast_dtype"]

_DEFAULT_DTYPE = {"cuda": ea.float16, "cpu": ea.float16}  # PyTorch's CPU default is bfloat16, which ember lacks
_enabled: dict[str, bool] = {}
_dtype: dict[str, object] = {}


def is_autocast_available(device_type: str) -> bool:
    """Whether `autocast(device_type)` is accepted: "cpu" and "cuda"."""
    return device_type in ("cpu", "cuda")


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    """Whether an `autocast` region for `device_type` is active."""
    return _enabled.get(device_type, False)


def get_autocast_dtype(device_type: str):
    """The dtype the innermost active `autocast` region for `device_type` asked for."""
    return _dtype.get(device_type, _DEFAULT_DTYPE.get(device_type))


class autocast:
    """`with torch.autocast("cuda"):` or as a decorator: marks a mixed-precision region.

    Args:
        device_type: "cuda" or "cpu"; "cuda" without an available GPU disables the region with
            PyTorch's warning.
        dtype: the reduced dtype requested (recorded; ember computes in the inputs' dtype).
        enabled: False makes the region a no-op.
    """

    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled: bool | None = None) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self.device = device_type
        self.fast_dtype = dtype if dtype is not None else _DEFAULT_DTYPE[device_type]
        if enabled and device_type == "cuda" and not ea.cuda.is_available():
            warnings.warn("User provided device_type of 'cuda', but CUDA is not available. Disabling", stacklevel=2)
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        self._prev = (_enabled.get(self.device, False), _dtype.get(self.device))
        _enabled[self.device] = self._enabled
        _dtype[self.device] = self.fast_dtype
        return self

    def __exit__(self, *exc) -> None:
        _enabled[self.device], _dtype[self.device] = self._prev

    def __call__(self, func):
        @functools.wraps(func)
        def run(*args, **kwargs):
            with type(self)(self.device, self.fast_dtype, self._enabled):
                return func(*args, **kwargs)
        return run


def custom_fwd(fwd=None, *, device_type: str = "cuda", cast_inputs=None):
    """Decorator for a custom `Function.forward` under autocast: runs it as is (no casts happen in ember)."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    return fwd


def custom_bwd(bwd=None, *, device_type: str = "cuda"):
    """Decorator for a custom `Function.backward` under autocast: runs it as is."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    return bwd
