"""Anomaly detection: remember where each node was created; fail loudly on NaN gradients.

Under `detect_anomaly()` every recorded node keeps the forward stack (`traceback.extract_stack`)
of the op that created it. When a node's backward raises, or returns a NaN, the error names
the node and the forward traceback is printed (as a warning) and attached to the exception as
a note, so it points at the user's forward line. The mode is global, as PyTorch's.
"""

from __future__ import annotations

import sys
import traceback
import warnings
from typing import Any

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]

_enabled = False
_check_nan = True


def is_anomaly_enabled() -> bool:
    return _enabled


def is_anomaly_check_nan_enabled() -> bool:
    return _check_nan


def _set(mode: bool, check_nan: bool) -> None:
    global _enabled, _check_nan
    _enabled, _check_nan = bool(mode), bool(check_nan)


class detect_anomaly:
    """Context manager and decorator enabling anomaly detection for the autograd engine.

    Example:
        >>> from ember.autograd import tensor
        >>> with detect_anomaly():
        ...     y = (tensor([1.0], requires_grad=True) * 2).sum()
        >>> y.grad_fn._trace is not None
        True
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan

    def __enter__(self) -> None:
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only "
                      "be enabled for debugging.", UserWarning, stacklevel=2)
        self._prev = (_enabled, _check_nan)
        _set(True, self.check_nan)

    def __exit__(self, *exc: Any) -> None:
        _set(*self._prev)

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Turn anomaly detection on or off: now (a plain call) or for a `with` block."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._prev = (_enabled, _check_nan)
        _set(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        _set(*self._prev)


def _forward_trace(node) -> str:
    """The recorded forward stack from the main script's first frame on: a runner's frames above it (`python -m
    ember.torch`'s runpy) are left out, so the trace starts where `python script.py`'s starts."""
    frames = node._trace
    main = getattr(sys.modules.get("__main__"), "__file__", None)
    start = next((i for i, f in enumerate(frames) if f.filename == main), 0) if main else 0
    return "".join(traceback.format_list(frames[start:]))


def report(node, exc: BaseException) -> None:
    """Print and attach the forward traceback of `node` to the error its backward raised."""
    text = f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n" + _forward_trace(node)
    warnings.warn(text, UserWarning, stacklevel=4)
    exc.add_note(text)


def check_nan(node, outs: list) -> None:
    """Raise if one of `node`'s input gradients holds a NaN (PyTorch's message)."""
    from ember.core.tensor import Tensor

    for i, g in enumerate(outs):
        if isinstance(g, Tensor) and g._dtype.is_floating_point and g.numel() and bool(g.isnan().any()):
            err = RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
            if node._trace is not None:
                report(node, err)
            raise err
