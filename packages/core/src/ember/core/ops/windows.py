"""Window functions (`torch.hann_window` ...) and trapezoidal integration (`torch.trapezoid` ...).

A window is a constant: it is computed once with numpy by PyTorch's own sequence of steps, each rounded
to the requested dtype (a 16-bit one's steps computed in float32 and rounded to 16 bits, as PyTorch's CPU
kernels do), so its values are PyTorch's to the last bit or so, and made a tensor of that dtype and device.
The integrals are composed of views and elementwise ops, so they differentiate and run on every device.
"""

from __future__ import annotations

import functools
import numpy as np

from ember.core import dtypes
from ember.core.creation import tensor
from ember.core.dispatch import node_name
from ember.core.methods import numpy_aliases
from ember.core.ops.arguments import parsed
from ember.core.ops.parser_errors import kwargs_order
from ember.core.ops._util import _CPP_TYPE_NAMES
from ember.core.ops import bessel_float32
from ember.core.ops import elementwise as ew
from ember.core.ops import reduce as R
from ember.core.ops import shape as S
from ember.core.random import _parser_type
from ember.core.tensor import Tensor

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window", "trapezoid",
           "trapz", "cumulative_trapezoid"]


def _window(name: str, window_length: int, periodic: bool, dtype, device, requires_grad: bool, fn,
            rounds: bool = True) -> Tensor:
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    dt = dtypes.get_default_dtype() if dtype is None else dtypes.as_dtype(dtype)
    if not (dt.is_floating_point or dt.is_complex):  # PyTorch prints the TensorOptions it was given
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype="
                           f"{_CPP_TYPE_NAMES.get(dt.name, dt.name)}, device={device or 'cpu'}, layout=Strided "
                           "(default), requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))")
    if dt.is_complex:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{dtypes.TORCH_NAMES[dt.name]}'")
    if window_length <= 1:
        w = np.ones(window_length)
    else:
        n = window_length + 1 if periodic else window_length  # periodic: the symmetric window one longer, cut
        k = np.arange(n, dtype=np.float64 if dt is dtypes.float64 else np.float32)
        rnd = _rounder(dt) if rounds else None
        w = (fn(k, n) if rnd is None else fn(rnd(k), n, rnd))[:window_length]
    return tensor(w, dtype=dt, device=device, requires_grad=requires_grad)


def _rounder(dt):
    """For a 16-bit dtype: float32 values rounded to it and back (each step of PyTorch's 16-bit kernels)."""
    if dt not in (dtypes.float16, dtypes.bfloat16):
        return None
    return lambda a: np.asarray(a).astype(dt.np).astype(np.float32)


def _same(a):
    return a


def _const(k, r):
    """A scalar of the computation: `k`'s float type, rounded to the 16-bit dtype when `r` rounds (PyTorch's
    16-bit kernels take their scalar operands in the tensor's dtype)."""
    return k.dtype.type if r is _same else (lambda v: r(np.float32(v)))


def _hamming(alpha: float, beta: float):
    """`alpha - beta cos(2 pi k / (n - 1))` as PyTorch computes it: `cos(k * step) * -beta + alpha`, each step
    rounded to `k`'s dtype."""
    def fn(k, n, r=_same):
        f = _const(k, r)
        return r(r(r(np.cos(r(k * f(2.0 * np.pi / (n - 1))))) * f(-beta)) + f(alpha))
    return fn


def _blackman(k, n, r=_same):
    """PyTorch's `cos(4x) * 0.08 - cos(2x) * 0.5 + 0.42` with `x = k * pi / (n - 1)`: its ends are exactly 0."""
    f = _const(k, r)
    x = r(k * f(np.pi / (n - 1)))
    return r(r(r(r(np.cos(r(x * f(4)))) * f(0.08)) - r(r(np.cos(r(x * f(2)))) * f(0.5))) + f(0.42))


def _bartlett(k, n, r=_same):
    """PyTorch's `k * 2 / (n - 1)` rising half, `2 - k * 2 / (n - 1)` falling half."""
    f = _const(k, r)
    w = r(k * f(2.0 / (n - 1)))
    half = (n - 1) // 2 + 1
    w[half:] = r(r(w[half:] * f(-1)) + f(2))
    return w


_WINDOW_OPTIONS = ("torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory "
                   "= False, bool requires_grad = False)")


def _window_binding(*extra: str):
    """A window function refusing what PyTorch's binding refuses, with its words: an optional argument without all
    those before it (`periodic`, then `extra`: "float alpha" ...), a `periodic` that is not a bool, too many."""
    params = ["bool periodic", *extra]

    def wrap(fn):
        names = [p.split()[1] for p in params]
        checked = parsed(fn.__name__, window_length="int")(fn)  # a float or tensor length: the parser's words

        @functools.wraps(fn)
        def bound(*args, **kwargs):
            provided = [n for i, n in enumerate(names) if i < len(args) - 1 or n in kwargs]
            periodic = args[1:2] + tuple(v for k, v in kwargs.items() if k == "periodic")
            bad = len(args) > len(names) + 1 or provided != names[: len(provided)] or any(
                type(v) is not bool for v in periodic)
            if bad:
                got = [_parser_type(v) for v in args] + [f"{k}={_parser_type(kwargs[k])}" for k in
                                                          kwargs_order(kwargs)]
                forms = "".join(f" * (int window_length, {''.join(p + ', ' for p in params[:i])}*, {_WINDOW_OPTIONS}\n"
                                for i in range(len(params) + 1))
                raise TypeError(f"{fn.__name__}() received an invalid combination of arguments - got "
                                f"({', '.join(got)}), but expected one of:\n{forms}")
            return checked(*args, **kwargs)

        return bound

    return wrap


@_window_binding()
def hann_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                requires_grad: bool = False) -> Tensor:
    """The Hann window, `0.5 - 0.5 cos(2 pi n / (N - 1))` (periodic: computed for N + 1, last dropped).

    >>> from ember.core import hann_window
    >>> hann_window(4)
    tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad, _hamming(0.5, 0.5))


@_window_binding("float alpha", "float beta")
def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    """The Hamming window, `alpha - beta cos(2 pi n / (N - 1))`."""
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad, _hamming(alpha, beta))


@_window_binding()
def blackman_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    requires_grad: bool = False) -> Tensor:
    """The Blackman window, `0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))`."""
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad, _blackman)


@_window_binding()
def bartlett_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    requires_grad: bool = False) -> Tensor:
    """The Bartlett (triangular) window, `1 - |2n / (N - 1) - 1|`."""
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad, _bartlett)


@_window_binding("float beta")
def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype=None, layout=None,
                  device=None, requires_grad: bool = False) -> Tensor:
    """The Kaiser window, `I0(beta sqrt(1 - (2n / (N - 1) - 1)^2)) / I0(beta)`."""
    dt = dtypes.get_default_dtype() if dtype is None else dtypes.as_dtype(dtype)
    fn = _kaiser_float32(beta) if dt in (dtypes.float32, dtypes.float16, dtypes.bfloat16) else (
        lambda k, n: np.i0(beta * np.sqrt(np.clip(1.0 - (2.0 * k / (n - 1) - 1.0) ** 2, 0.0, None))) / np.i0(beta))
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, fn, rounds=False)


def _kaiser_float32(beta: float):
    """The Kaiser window as PyTorch's CPU kernel computes a float32 (or 16-bit) one: every step in float32,
    `I0(beta sqrt|1 - ((n - alpha) / alpha)^2|) / I0(beta)` with alpha = (N - 1) / 2 and float32 I0."""
    f = np.float32

    def fn(k, n):
        alpha = f((n - 1) / 2.0)
        r = (k.astype(f) - alpha) / alpha
        b = np.array(beta, f)
        return bessel_float32.i0(b * np.sqrt(np.abs(f(1) - r * r))) / bessel_float32.i0(b)

    return fn


# --- trapezoidal rule ---------------------------------------------------------------------------
def _pairs(y: Tensor, dim: int):
    n = y._shape[dim]
    return S.narrow(y, dim, 0, n - 1), S.narrow(y, dim, 1, n - 1)


def _spacing(y: Tensor, x, dx, dim: int, op: str):
    """The widths between neighbours along `dim`: a number, or a tensor broadcasting against y's pairs."""
    if y._dtype is dtypes.bool or isinstance(x, Tensor) and x._dtype is dtypes.bool:
        what = "`y`" if x is None else "`x` or `y`"
        raise RuntimeError(f"{op}: received a bool input for {what}, but bool is not supported")
    if x is None:
        return 1 if dx is None else dx
    if x.ndim == 1:
        if x._shape[0] != y._shape[dim]:
            raise RuntimeError(f"{op}: There must be one `x` value for each sample point")
        d = ew.sub(S.narrow(x, 0, 1, x._shape[0] - 1), S.narrow(x, 0, 0, x._shape[0] - 1))
        view = [1] * y.ndim
        view[dim] = d._shape[0]
        return S.view(d, tuple(view))
    if x.ndim < y.ndim:  # PyTorch pads x's shape with leading ones to y's rank before taking the differences
        x = S.view(x, (1,) * (y.ndim - x.ndim) + tuple(x._shape))
    lo, hi = _pairs(x, dim)  # along y's dim, also where x has more dims than y (not aligned from the right)
    return ew.sub(hi, lo)


_X_FORM, _DX_FORM = " * (Tensor y, Tensor x, *, int dim = -1)\n", " * (Tensor y, *, {} dx = 1, int dim = -1)\n"
_OVERLOADS = {"trapezoid": _X_FORM + _DX_FORM.format("Number"), "trapz": _DX_FORM.format("float") + _X_FORM}
_OVERLOADS["cumulative_trapezoid"] = _OVERLOADS["trapezoid"]


def _spacing_binding(fn):
    """`fn` refusing what PyTorch's binding refuses: an `x` (a Tensor, not None) together with `dx`, a `dx` of None,
    with PyTorch's words for the call (positional types, then `key=type` in its parser's order)."""
    op = fn.__name__

    @functools.wraps(fn)
    def bound(*args, **kwargs):
        has_x = len(args) > 1 or "x" in kwargs
        x = args[1] if len(args) > 1 else kwargs.get("x")
        if has_x and ("dx" in kwargs or not isinstance(x, Tensor)) or "dx" in kwargs and kwargs["dx"] is None:
            got = [type(v).__name__ for v in args]
            got += [f"{k}={type(kwargs[k]).__name__}" for k in kwargs_order(kwargs)]
            got_text = ", ".join(got) + (", " if kwargs and not args else "")  # (its trailing comma when no positional)
            raise TypeError(f"{op}() received an invalid combination of arguments - got ({got_text}), but expected one "
                            f"of:\n{_OVERLOADS[op]}")
        return fn(*args, **kwargs)

    return bound


def _dim(y: Tensor, dim: int, op: str) -> int:
    n = max(y.ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


@_spacing_binding
@numpy_aliases
def trapezoid(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """The trapezoidal rule along `dim`: spacing `dx` (default 1) or sample points `x`.

    >>> from ember.core import tensor, trapezoid
    >>> trapezoid(tensor([1.0, 2.0, 3.0]))
    tensor(4.)
    """
    if y.ndim == 0:  # PyTorch reads y's size along dim (wrapped to 0 where x is given) before anything else
        raise IndexError(f"Dimension specified as {dim if x is None else 0} but tensor has no dimensions")
    dim = _dim(y, dim, "trapezoid")
    if y._shape[dim] == 0:
        return R.sum(y, dim)
    step = _spacing(y, x, dx, dim, "trapezoid")
    if not isinstance(step, Tensor):  # PyTorch's constant-spacing form: dx (sum(y) - (y_first + y_last) / 2)
        ends = ew.add(S.select(y, dim, 0), S.select(y, dim, -1))
        return node_name(ew.mul(ew.sub(R.sum(y, dim), ew.mul(ends, 0.5)), step), "MulBackward0", "MulBackward1")
    lo, hi = _pairs(y, dim)
    return node_name(ew.div(R.sum(ew.mul(ew.add(lo, hi), step), dim), 2.0), "DivBackward0", "DivBackward1")


@_spacing_binding
@numpy_aliases
def trapz(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """`torch.trapz`, the older name of `trapezoid` (`dx` may be given positionally-by-name only)."""
    if x is not None:  # (the binding has refused x with dx)
        return trapezoid(y, x, dim=dim)
    return trapezoid(y, dx=1 if dx is None else dx, dim=dim)


@_spacing_binding
@numpy_aliases
def cumulative_trapezoid(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """The running trapezoidal integral along `dim` (one element shorter than y along it)."""
    if y.ndim == 0:
        if isinstance(x, Tensor) and x.ndim == 1:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    dim = _dim(y, dim, "cumulative_trapezoid")
    if y._shape[dim] == 0:
        return y
    step = _spacing(y, x, dx, dim, "cumulative_trapezoid")
    lo, hi = _pairs(y, dim)
    if not isinstance(step, Tensor):  # PyTorch's order of operations, so the roundings agree
        return R.cumsum(ew.mul(ew.add(lo, hi), step / 2.0), dim)
    return node_name(ew.div(R.cumsum(ew.mul(ew.add(lo, hi), step), dim), 2.0), "DivBackward0", "DivBackward1")
