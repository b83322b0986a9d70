"""`torch.special`'s elementwise ops and their top-level twins (`lgamma`, `digamma`, `polygamma`,
`mvlgamma`, `erfc`, `i0`, `sinc`, `logit`, `igamma`, `igammac`), each declared once under PyTorch's
native name (`special_erfcx` ...). The CPU kernels are `numba.vectorize` ufuncs of the scalar
functions in `special_math`, built on first use and cached on disk; they compute in float64 and
round to the result dtype (integers and bools give the default float dtype, as PyTorch)."""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import declare, node_name
from ember.core.methods import attach, inplace
from ember.core.ops import bessel_float32
from ember.core.ops._util import ERRSTATE, IGNORE_ALL, arr, cast_error, shape_error, wrap, write_out
from ember.core.ops.complex import ComplexNotSupported
from ember.core.ops.elementwise import binary_dtype, laid_out
from ember.core.tensor import Tensor

__all__ = ["lgamma", "digamma", "polygamma", "mvlgamma", "erfc", "i0", "sinc", "logit", "igamma", "igammac", "erfc_",
           "i0_", "sinc_", "logit_"]

# op name (PyTorch's native name), scalar function of special_math, differentiable
UNARY = [
    ("lgamma", "lgamma", True),
    ("digamma", "digamma", True),
    ("erfc", "erfc", True),
    ("special_erfcx", "erfcx", True),
    ("i0", "i0", True),
    ("special_i0e", "i0e", True),
    ("special_i1", "i1", True),
    ("special_i1e", "i1e", True),
    ("special_ndtri", "ndtri", True),
    ("special_log_ndtr", "log_ndtr", True),
    ("special_entr", "entr", True),
    ("sinc", "sinc", True),
    # PyTorch gives these no derivative: their results never require grad
    ("special_airy_ai", "airy_ai", False),
    ("special_bessel_j0", "bessel_j0", False),
    ("special_bessel_j1", "bessel_j1", False),
    ("special_bessel_y0", "bessel_y0", False),
    ("special_bessel_y1", "bessel_y1", False),
    ("special_modified_bessel_i0", "modified_bessel_i0", False),
    ("special_modified_bessel_i1", "modified_bessel_i1", False),
    ("special_modified_bessel_k0", "modified_bessel_k0", False),
    ("special_modified_bessel_k1", "modified_bessel_k1", False),
    ("special_scaled_modified_bessel_k0", "scaled_modified_bessel_k0", False),
    ("special_scaled_modified_bessel_k1", "scaled_modified_bessel_k1", False),
    ("special_spherical_bessel_j0", "spherical_bessel_j0", False),
]

# (input, other) ops with PyTorch's promotion, integers to the default float
POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
               "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
               "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]
BINARY = [
    ("special_xlog1py", "xlog1py", True),
    ("special_zeta", "zeta", True),
    ("igamma", "gammainc", True),
    ("igammac", "gammaincc", True),
    *((f"special_{p}", p, False) for p in POLYNOMIALS),
]


@cache
def _cpu_namespace() -> dict:
    import numba

    from ember.core.ops import special_math

    return special_math.compiled(numba.njit(cache=True, nogil=True, error_model="numpy"))


@cache
def ufunc(fname: str, nargs: int):
    """The float64 numpy ufunc of special_math's `fname` (compiled on first use, cached on disk)."""
    import numba

    sig = "float64(" + ", ".join(["float64"] * nargs) + ")"
    return numba.vectorize([sig], cache=True)(_cpu_namespace()[fname + "_py"])


def float_dtype(x: Tensor) -> dtypes.dtype:
    """The result dtype of a unary special function: floats keep theirs, the rest the default float."""
    return x._dtype if x._dtype.is_floating_point else dtypes.get_default_dtype()


# the functions whose ATen schema names their argument `x`, as PyTorch's parser errors print it
_NAMED_X = frozenset({"special_airy_ai", "special_scaled_modified_bessel_k0", "special_scaled_modified_bessel_k1",
                      "special_spherical_bessel_j0"})


def _check_tensor(name: str, x) -> None:
    if not isinstance(x, Tensor):
        arg = "x" if name in _NAMED_X else "input"
        raise TypeError(f"{name}(): argument '{arg}' (position 1) must be Tensor, not {type(x).__name__}")


def _f64(a) -> np.ndarray:
    return np.asarray(arr(a), dtype=np.float64)


def _run(fname: str, args: tuple, dt: dtypes.dtype, out: Tensor | None, name: str, operands: tuple = ()) -> Tensor:
    """special_math's `fname` over numpy `args` in float64, rounded to `dt` (into `out` when given), laid out
    as the tensor `operands` are (NOTE [ Elementwise result layout ]); overflow to inf and NaN are results,
    silently, as in PyTorch."""
    token = ERRSTATE.set(IGNORE_ALL)
    try:
        r = np.asarray(ufunc(fname, len(args))(*args)).astype(dt.np, copy=False)
    finally:
        ERRSTATE.reset(token)
    return _result(r, out, name, operands)


def _result(r: np.ndarray, out: Tensor | None, name: str, operands: tuple) -> Tensor:
    """`r` as the op's result: into `out` when given, else laid out as the tensor `operands` are."""
    if out is not None:
        return write_out(out, r, name)
    return laid_out(wrap(r, True), r, operands) if operands else wrap(r)


# PyTorch's CPU kernel names where they are not `<name>_cpu` (in its complex refusal's message)
_KERNEL_NAMES = {"digamma": "digamma", "erfc": "erfc_vml_cpu", "i0": "i0_vml_cpu",
                 "lgamma": "lgamma_vml_cpu"}


def _no_complex(name: str) -> tuple[type, str] | None:
    """PyTorch's refusal of complex input to `name` (none for sinc, which PyTorch computes)."""
    if name == "sinc":
        return None
    kernel = _KERNEL_NAMES.get(name, name.removeprefix("special_") + "_cpu")
    return ComplexNotSupported, f"\"{kernel}\" not implemented for '{{}}'"


# the unary functions PyTorch computes on complex input (the others refuse it in their meta step)
_COMPLEX = {"sinc": np.sinc}


# the Bessel functions PyTorch evaluates in float32 for float32 and 16-bit input (ops/bessel_float32.py)
_IN_FLOAT32 = {"i0", "special_i0e", "special_i1", "special_i1e"}
_FLOAT32_OPMATH = (dtypes.float32, dtypes.float16, dtypes.bfloat16)
_REDUCED = (dtypes.float16, dtypes.bfloat16)
# the functions PyTorch's CPU build has no float16/bfloat16 kernel for ("\"bessel_j0_cpu\" not implemented for 'Half'")
_NO_REDUCED = frozenset({"special_erfcx", "special_ndtri", "special_log_ndtr", "special_zeta",
                         *(row[0] for row in UNARY if not row[2]), *(f"special_{p}" for p in POLYNOMIALS)})


def _check_reduced(name: str, dt: dtypes.dtype) -> None:
    if dt in _REDUCED and name in _NO_REDUCED:
        from ember.core.ops.numeric import not_implemented_for

        raise not_implemented_for(name.removeprefix("special_") + "_cpu", dt)


def _log_ndtr_float32(xs: np.ndarray) -> np.ndarray:
    """PyTorch's float32 log_ndtr, each step of its formula rounded to float32 (t = x / sqrt(2); log(erfcx(-t) / 2)
    - t * t below -1, else log1p(-erfc(t) / 2)): its t * t loses at large |x| what a float64 evaluation keeps."""
    f = np.float32
    x = np.asarray(xs).astype(f)
    t = x * f(math.sqrt(0.5))
    with np.errstate(all="ignore"):
        low = np.log(ufunc("erfcx", 1)(-t.astype(np.float64)).astype(f) / f(2)) - t * t
        high = np.log1p(-ufunc("erfc", 1)(t.astype(np.float64)).astype(f) / f(2))
    return np.where(x < f(-1), low, high)


def _make_unary(name: str, fname: str, differentiable: bool):
    op = declare(name, None, differentiable=differentiable, argnames=("input",), complex_error=_no_complex(name))

    @op.register("cpu")
    def kernel(x, *, out=None):
        _check_tensor(name, x)
        if x._dtype.is_complex:  # float64 would drop the imaginary part
            r = np.asarray(_COMPLEX[name](x._np().astype(np.complex128))).astype(x._dtype.np)
            return write_out(out, r, name) if out is not None else wrap(r)
        if name == "sinc" and float_dtype(x) is not dtypes.float64:  # PyTorch's opmath: pi * x in float32
            xs = _f64(x)
            y = (xs.astype(np.float32) * np.float32(math.pi)).astype(np.float64)
            return _run("sinc_of_product", (xs, y), float_dtype(x), out, name, (x,))
        dt = float_dtype(x)
        _check_reduced(name, dt)
        if name in _IN_FLOAT32 and dt in _FLOAT32_OPMATH:  # Cephes' series in float32, as PyTorch
            r = getattr(bessel_float32, fname)(np.asarray(arr(x), np.float32)).astype(dt.np, copy=False)
            return _result(r, out, name, (x,))
        if name == "special_log_ndtr" and dt is dtypes.float32:
            return _result(_log_ndtr_float32(arr(x)), out, name, (x,))
        if name == "special_entr" and dt in _REDUCED:  # PyTorch's 16-bit kernel: -x * log(x), log(x) rounded first
            xs = np.asarray(arr(x), np.float32)
            with np.errstate(all="ignore"):
                logs = np.log(xs).astype(dt.np).astype(np.float32)
                r = np.where(xs > 0, -xs * logs, np.where(xs == 0, np.float32(0), np.where(np.isnan(xs), xs, -np.inf)))
            return _result(r.astype(dt.np), out, name, (x,))
        return _run(fname, (_f64(x),), dt, out, name, (x,))

    return op


def _binary_overloads(name: str) -> list[str]:
    """PyTorch's signatures of a binary special function, as its parser prints them (the polynomials name theirs
    `x` and `n`)."""
    x, n = ("x", "n") if name.removeprefix("special_") in POLYNOMIALS else ("input", "other")
    return [f"(Tensor {x}, Tensor {n}, *, Tensor out = None)",
            f"(Number {'x' if x == 'x' else 'self'}, Tensor {n}, *, Tensor out = None)",
            f"(Tensor {x}, Number {n}, *, Tensor out = None)"]


def _is_number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating))


def _make_binary(name: str, fname: str, differentiable: bool):
    poly = name.removeprefix("special_") in POLYNOMIALS
    op = declare(name, None, differentiable=differentiable, argnames=("x", "n") if poly else ("input", "other"),
                 complex_error=_no_complex(name))

    @op.register("cpu")
    def kernel(*args, out=None, **kwargs):
        if name.startswith("special_") and (kwargs or len(args) != 2 or not any(isinstance(v, Tensor) for v in args)
                                            or not all(isinstance(v, Tensor) or _is_number(v) for v in args)):
            from ember.core.ops.parser_errors import invalid_arguments

            raise invalid_arguments(name, args, kwargs, _binary_overloads(name))
        a, b = args
        if not isinstance(b, Tensor):
            _check_tensor(name, a)
        if name in ("igamma", "igammac"):  # PyTorch's kernels have no integral instance (no int-to-float rule)
            common = dtypes.result_type(a, b)
            if not (common.is_floating_point or common.is_complex):
                from ember.core.ops.numeric import not_implemented_for

                raise not_implemented_for(f"{name}_cpu", common)
        dt = binary_dtype("float", a, b)
        _check_reduced(name, dt)
        try:
            return _run(fname, (_f64(a), _f64(b)), dt, out, name, (a, b))
        except ValueError as e:
            if "broadcast" in str(e):
                raise shape_error(name, a, b) from None
            raise

    return op


OPS = {row[0]: _make_unary(*row) for row in UNARY}
OPS.update({row[0]: _make_binary(*row) for row in BINARY})

lgamma, digamma, erfc, i0, sinc = OPS["lgamma"], OPS["digamma"], OPS["erfc"], OPS["i0"], OPS["sinc"]
igamma, igammac = OPS["igamma"], OPS["igammac"]

_polygamma = declare("polygamma", None, argnames=("n", "input"))


@_polygamma.register("cpu")
def _polygamma_cpu(n, x, *, out=None):
    _check_tensor("polygamma", x)
    return _run("polygamma", (np.float64(n), _f64(x)), float_dtype(x), out, "polygamma", (x,))


def check_polygamma_order(n, op: str = "polygamma") -> None:
    if isinstance(n, Tensor) or isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"{op}(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")


def polygamma(n: int, input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The n-th derivative of digamma: `(-1)^(n+1) n! zeta(n + 1, input)` for n >= 1.

    Args:
        n: the order, an int >= 0 (0 is digamma).
        input: any shape; integers compute in the default float dtype.

    Raises:
        RuntimeError: n < 0. TypeError: n not an int, input not a tensor.

    Example:
        >>> import ember.core as E
        >>> E.polygamma(1, E.tensor([1.0, 2.0]))  # pi^2 / 6, pi^2 / 6 - 1
        tensor([1.6449, 0.6449])
    """
    check_polygamma_order(n)
    return _polygamma(int(n), input, out=out)


_logit = declare("logit", None, argnames=("input",), complex_error=_no_complex("logit"))


@_logit.register("cpu")
def _logit_cpu(x, eps=None, *, out=None):
    _check_tensor("logit", x)
    x64 = _f64(x)
    dt = float_dtype(x)
    if eps is not None and float(eps) >= 0.0:  # clamp to [eps, 1 - eps] as PyTorch, in x's dtype (1 - 1e-6 rounds)
        lo = np.asarray(float(eps), dtype=dt.np)
        lo64, hi64 = np.float64(lo), np.float64(np.asarray(1.0, dtype=lo.dtype) - lo)
        # PyTorch's kernel tests the low bound first: with eps > 0.5 an x below eps becomes eps, not 1 - eps
        x64 = np.where(x64 < lo64, lo64, np.where(x64 > hi64, hi64, x64))
    if dt in _REDUCED:  # PyTorch's 16-bit kernel rounds 1 - x, the quotient and its log, each to the dtype
        def rnd(v):
            return v.astype(dt.np).astype(np.float32)

        xs = rnd(x64)
        with np.errstate(all="ignore"):
            r = np.where(xs == 1, np.float32(np.inf), np.log(rnd(xs / rnd(np.float32(1) - xs))))
        return _result(np.asarray(r).astype(dt.np), out, "logit", (x,))
    return _run("logit", (x64, np.float64(-1.0)), dt, out, "logit", (x,))


def logit(input: Tensor, eps: float | None = None, *, out: Tensor | None = None) -> Tensor:
    """`log(p / (1 - p))`, with p clamped to `[eps, 1 - eps]` when `eps` is given (NaN outside [0, 1]
    when it is not).

    Example:
        >>> import ember.core as E
        >>> E.logit(E.tensor([0.0, 0.5, 0.9]), eps=0.1)
        tensor([-2.1972,  0.0000,  2.1972])
    """
    return _logit(input, eps, out=out)


def mvlgamma(input: Tensor, p: int, *, out: Tensor | None = None) -> Tensor:
    """The log of the multivariate gamma function of dimension p:
    `p (p - 1) / 4 log(pi) + sum_{j<p} lgamma(input - j / 2)` (integers compute in the default float).

    Raises:
        RuntimeError: p < 1.

    Example:
        >>> import ember.core as E
        >>> E.mvlgamma(E.tensor([2.5, 3.0]), 3)
        tensor([1.8810, 2.6949])
    """
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if not input._dtype.is_floating_point:
        input = input.to(float_dtype(input))
    from ember.core.creation import arange

    shifts = arange(p, dtype=input._dtype, device=input.device) * -0.5
    r = node_name(lgamma(input.unsqueeze(-1) + shifts).sum(-1) + p * (p - 1) / 4 * math.log(math.pi), "AddBackward0",
                  "MvlgammaBackward0")
    if out is not None:
        if not dtypes.can_cast(r._dtype, out._dtype):
            raise cast_error(r._dtype, out._dtype)
        return out.copy_(r)
    return r


for _name in ("lgamma", "digamma", "erfc", "i0", "sinc", "igamma", "igammac"):
    attach(_name, OPS[_name])
    inplace(OPS[_name], _name + "_")
attach("logit", logit)
# the in-place twins PyTorch also has as functions (`torch.i0_(x)`)
erfc_, i0_, sinc_, logit_ = Tensor.erfc_, Tensor.i0_, Tensor.sinc_, inplace(logit, "logit_")
attach("mvlgamma", mvlgamma)
inplace(mvlgamma, "mvlgamma_")


def _polygamma_method(self: Tensor, n: int) -> Tensor:
    return polygamma(n, self)


def _polygamma_inplace(self: Tensor, n: int) -> Tensor:
    return polygamma(n, self, out=self)


attach("polygamma", _polygamma_method)
attach("polygamma_", _polygamma_inplace)
