"""`torch.signal.windows`: scipy.signal's window family under PyTorch's signatures (`M`, `sym=True`
for the symmetric window, False for the periodic one). Each window is a constant computed in float64
with numpy and made a tensor of the requested floating dtype and device."""

from __future__ import annotations

import re

import numpy as np

from ember.autograd import dtypes as _dtypes
from ember.autograd import tensor

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming",
           "hamming", "hann", "kaiser", "nuttall"]


def _make(name: str, M: int, sym: bool, dtype, device, requires_grad: bool, fn):
    if not isinstance(M, int) or M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    dt = _dtypes.get_default_dtype() if dtype is None else _dtypes.as_dtype(dtype)
    if not dt.is_floating_point:
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dt.name}")
    if M <= 1:
        w = np.ones(M)
    else:
        n = M if sym else M + 1  # periodic: the symmetric window one longer, its last point dropped
        w = fn(np.arange(n, dtype=np.float64), n)[:M]
    return tensor(w, dtype=dt, device=device, requires_grad=requires_grad)


def _parser_type(v) -> str:
    """A value's type as PyTorch's argument parser names it in its TypeError."""
    from ember.torch import dtype, layout

    return "torch.dtype" if isinstance(v, dtype) else "torch.layout" if isinstance(v, layout) else type(v).__name__


def general_cosine(M: int, *, a, sym: bool = True, dtype=None, layout=None, device=None,
                   requires_grad: bool = False):
    """`sum_k (-1)^k a[k] cos(2 pi k n / (M - 1))`."""
    coeffs = [float(c) for c in a]
    return _make("general_cosine", M, sym, dtype, device, requires_grad,
                 lambda k, n: sum((-1) ** i * c * np.cos(2 * np.pi * i * k / (n - 1)) for i, c in enumerate(coeffs)))


def general_hamming(M: int, *, alpha: float = 0.54, sym: bool = True, dtype=None, layout=None, device=None,
                    requires_grad: bool = False):
    """`alpha - (1 - alpha) cos(2 pi n / (M - 1))`."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, device=device, requires_grad=requires_grad)


def hann(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False):
    """The Hann window."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, device=device, requires_grad=requires_grad)


def hamming(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False):
    """The Hamming window (alpha 0.54)."""
    return general_hamming(M, sym=sym, dtype=dtype, device=device, requires_grad=requires_grad)


def blackman(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False):
    """The Blackman window (0.42, 0.5, 0.08)."""
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, device=device, requires_grad=requires_grad)


def nuttall(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False):
    """The minimum 4-term Blackman-Harris window of Nuttall."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype, device=device,
                          requires_grad=requires_grad)


def bartlett(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False):
    """The triangular window that reaches 0 at both ends."""
    return _make("bartlett", M, sym, dtype, device, requires_grad, lambda k, n: 1.0 - np.abs(2.0 * k / (n - 1) - 1.0))


def cosine(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False):
    """`sin(pi (n + 0.5) / M)`, the sine window."""
    return _make("cosine", M, sym, dtype, device, requires_grad, lambda k, n: np.sin(np.pi * (k + 0.5) / n))


def exponential(M: int, *, center: float | None = None, tau: float = 1.0, sym: bool = True, dtype=None, layout=None,
                device=None, requires_grad: bool = False):
    """`exp(-|n - center| / tau)`; center defaults to the middle (and must be left so for a symmetric window)."""
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")

    def fn(k, n):
        c = (n - 1) / 2 if center is None else center
        return np.exp(-np.abs(k - c) / tau)
    return _make("exponential", M, sym, dtype, device, requires_grad, fn)


def gaussian(M: int, *, std: float = 1.0, sym: bool = True, dtype=None, layout=None, device=None,
             requires_grad: bool = False):
    """`exp(-((n - (M - 1) / 2) / std)^2 / 2)`."""
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    return _make("gaussian", M, sym, dtype, device, requires_grad,
                 lambda k, n: np.exp(-0.5 * ((k - (n - 1) / 2) / std) ** 2))


def kaiser(M: int, *, beta: float = 12.0, sym: bool = True, dtype=None, layout=None, device=None,
           requires_grad: bool = False):
    """`I0(sqrt(beta^2 - k^2)) / I0(beta)` over `k = linspace(-beta, beta, M)`, composed of tensor ops as PyTorch's
    (its float32 values, a graph where `requires_grad`, and linspace's TypeError for a non-int `M`)."""
    import ember.torch as torch

    if M < 0:
        raise ValueError(f"kaiser requires non-negative window length, got M={M}")
    dt = _dtypes.get_default_dtype() if dtype is None else _dtypes.as_dtype(dtype)
    if dt not in (_dtypes.float32, _dtypes.float64):
        raise ValueError(f"kaiser expects float32 or float64 dtypes, got: {dt.name}")
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M in (0, 1):
        return _make("kaiser", M, sym, dt, device, requires_grad, None)
    b = torch.tensor(beta, dtype=dt, device=device)
    start = -b
    end = torch.minimum(b, start + (M - 1) * (2.0 * b / (M if not sym else M - 1)))
    kw = {"start": start, "end": end, "steps": M, "dtype": dt, "layout": torch.strided if layout is None else layout,
          "device": device, "requires_grad": requires_grad}
    try:
        k = torch.linspace(**kw)
    except TypeError as e:  # PyTorch's parser lists the keyword arguments it was given, last first
        got = "".join(f"{n}={_parser_type(v)}, " for n, v in reversed(kw.items()))
        raise TypeError(re.sub(r"got \(.*?\), but", lambda _: f"got ({got}), but", str(e), count=1)) from None
    return torch.i0(torch.sqrt(b * b - torch.pow(k, 2))) / torch.i0(b)


