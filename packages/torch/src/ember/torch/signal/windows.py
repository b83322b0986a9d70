"""`torch.signal.windows`: scipy.signal's window family under PyTorch's signatures (`M`, `sym=True`
for the symmetric window, False for the periodic one).

Each window is composed of tensor ops in the requested dtype, as PyTorch composes it: a `linspace`
over the scaled argument, then the window's function of it. So float32 windows round as PyTorch's
(`blackman(5, sym=False)[0]` is -1.49e-08, not 0), and `requires_grad=True` gives PyTorch's
non-leaf result (`grad_fn=<SumBackward1>` for the cosine sums); lengths 0 and 1 (and kaiser's and
bartlett's 1) are plain leaves.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

import ember.autograd as E
from ember.autograd import dtypes as _dtypes
from ember.autograd import strided as _strided

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming",
           "hamming", "hann", "kaiser", "nuttall"]


def _checked_dtype(name: str, M: int, dtype, layout):
    """PyTorch's checks of every window, in its order (length, layout, dtype); the dtype to build in. The length's
    type is not checked: a non-int one fails as PyTorch's does, at `M < 0` (a str, None) or at its `linspace`."""
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not None and layout is not _strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: torch.{layout.name}")
    dt = _dtypes.get_default_dtype() if dtype is None else _dtypes.as_dtype(dtype)
    if dt not in (_dtypes.float32, _dtypes.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: torch.{dt.name}")
    return dt


def _leaf(M: int, fill: float, dt, device, requires_grad: bool):
    return E.full((int(M),), fill, dtype=dt, device=device, requires_grad=requires_grad)


def _ramp(start, end, M: int, dt, device, requires_grad: bool):
    """The window's argument: M points from `start` to `end`, a leaf that carries `requires_grad`. PyTorch's
    windows call linspace by keyword: a length its parser refuses (2.5, True) gets its TypeError listing them, the
    last first."""
    try:
        return E.linspace(start, end, M, dtype=dt, device=device, requires_grad=requires_grad)
    except TypeError as e:
        kw = {"start": start, "end": end, "steps": M, "dtype": dt, "layout": _strided, "device": device,
              "requires_grad": requires_grad}
        got = "".join(f"{n}={_parser_type(v)}, " for n, v in reversed(kw.items()))
        raise TypeError(re.sub(r"got \(.*?\), but", lambda _: f"got ({got}), but", str(e), count=1)) from None


def _span(M: int, sym: bool) -> int:
    """The denominator of a window's spacing: M - 1 symmetric, M periodic (a length-1 window is symmetric)."""
    return M if not sym and M > 1 else M - 1


def general_cosine(M: int, *, a, sym: bool = True, dtype=None, layout=None, device=None,
                   requires_grad: bool = False):
    """`sum_k (-1)^k a[k] cos(2 pi k n / (M - 1))`; `a` is checked after the length (a window of length 0 or 1
    takes any `a`, as PyTorch's)."""
    dt = _checked_dtype("general_cosine", M, dtype, layout)
    if M <= 1:
        return _leaf(M, 1.0, dt, device, requires_grad)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    step = 2 * math.pi / (M if not sym else M - 1)
    k = _ramp(0, (M - 1) * step, M, dt, device, requires_grad)
    coeffs = E.tensor([(-1) ** i * c for i, c in enumerate(a)], dtype=dt, device=device, requires_grad=requires_grad)
    order = E.arange(coeffs.shape[0], dtype=dt, device=device, requires_grad=requires_grad)
    return (coeffs.unsqueeze(-1) * E.cos(order.unsqueeze(-1) * k)).sum(0)


def general_hamming(M: int, *, alpha: float = 0.54, sym: bool = True, dtype=None, layout=None, device=None,
                    requires_grad: bool = False):
    """`alpha - (1 - alpha) cos(2 pi n / (M - 1))`."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def hann(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False):
    """The Hann window."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hamming(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False):
    """The Hamming window (alpha 0.54)."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def blackman(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False):
    """The Blackman window (0.42, 0.5, 0.08)."""
    _checked_dtype("blackman", M, dtype, layout)  # PyTorch names blackman in its errors, the other cosine sums not
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def nuttall(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False):
    """The minimum 4-term Blackman-Harris window of Nuttall."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def bartlett(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False):
    """The triangular window that reaches 0 at both ends: `1 - |k|` for k from -1 in steps of 2 / (M - 1)."""
    dt = _checked_dtype("bartlett", M, dtype, layout)
    if M <= 1:
        return _leaf(M, 1.0, dt, device, requires_grad)
    step = 2 / (M if not sym else M - 1)
    return 1 - E.abs(_ramp(-1, -1 + (M - 1) * step, M, dt, device, requires_grad))


def cosine(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False):
    """`sin(pi (n + 0.5) / M)`, the sine window."""
    dt = _checked_dtype("cosine", M, dtype, layout)
    if M == 0:
        return _leaf(0, 1.0, dt, device, requires_grad)
    step = math.pi / (M + 1 if not sym and M > 1 else M)
    return E.sin(_ramp(0.5 * step, (0.5 + (M - 1)) * step, M, dt, device, requires_grad))


def exponential(M: int, *, center: float | None = None, tau: float = 1.0, sym: bool = True, dtype=None, layout=None,
                device=None, requires_grad: bool = False):
    """`exp(-|n - center| / tau)`; center defaults to the middle (and must be left so for a symmetric window)."""
    dt = _checked_dtype("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _leaf(0, 1.0, dt, device, requires_grad)
    if center is None:
        center = _span(M, sym) / 2.0
    k = _ramp(-center / tau, (-center + (M - 1)) / tau, M, dt, device, requires_grad)
    return E.exp(-E.abs(k))


def gaussian(M: int, *, std: float = 1.0, sym: bool = True, dtype=None, layout=None, device=None,
             requires_grad: bool = False):
    """`exp(-((n - (M - 1) / 2) / std)^2 / 2)`."""
    dt = _checked_dtype("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _leaf(0, 1.0, dt, device, requires_grad)
    start = -_span(M, sym) / 2.0
    scale = 1 / (std * math.sqrt(2))
    k = _ramp(start * scale, (start + (M - 1)) * scale, M, dt, device, requires_grad)
    return E.exp(-(k ** 2))


def kaiser(M: int, *, beta: float = 12.0, sym: bool = True, dtype=None, layout=None, device=None,
           requires_grad: bool = False):
    """`I0(beta sqrt(1 - (2n / (M - 1) - 1)^2)) / I0(beta)`, with the argument ramped from -beta to beta."""
    dt = _checked_dtype("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M in (0, 1):
        return _leaf(M, 1.0, dt, device, requires_grad)
    b = E.tensor(beta, dtype=dt, device=device)
    step = 2.0 * b / (M if not sym else M - 1)
    end = E.minimum(b, -b + (M - 1) * step)
    k = _ramp(-b, end, M, dt, device, requires_grad)
    return E.i0(E.sqrt(b * b - E.pow(k, 2))) / E.i0(b)


def _parser_type(v) -> str:
    """A value's type as PyTorch's argument parser names it in its TypeError."""
    from ember.torch import dtype, layout

    return "torch.dtype" if isinstance(v, dtype) else "torch.layout" if isinstance(v, layout) else type(v).__name__
